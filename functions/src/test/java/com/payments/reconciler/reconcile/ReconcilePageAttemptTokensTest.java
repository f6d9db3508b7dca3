package com.payments.reconciler.reconcile;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.delivery.TestContext;
import com.payments.reconciler.lease.AcquireResult;
import com.payments.reconciler.lease.LeaseStore;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.faults.DynamoFaults;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.testing.Ingestion;
import com.payments.reconciler.testing.LaggingIndex;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.testing.MutableClock;
import com.payments.reconciler.window.NightWindow;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.JsonHandler;
import com.payments.reconciler.workflow.Timing;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Request tokens per attempt on the ReconcilePage path: the handler binds its writer to each invocation, so a task the workflow
 * retries (a new request id) deciding the batch its earlier attempt committed — a lagging image of the
 * {@code pending-by-age} index still lists it — sends other request tokens. The fault layer gives moto DynamoDB's
 * token rule.
 */
@ExtendWith(LocalDynamo.class)
class ReconcilePageAttemptTokensTest {

    private static final Instant WINDOW_START = Instant.parse("2026-12-01T02:00:00Z");
    private static final Duration GRACE = Duration.ofHours(72);
    private static final Instant CUTOFF = WINDOW_START.minus(GRACE);
    private static final Backoff NO_WAIT = new Backoff(1, d -> { }, 6, Duration.ofMillis(1), Duration.ofMillis(5));

    @Test
    void aRetriedReconcilePageFacingTheSameBatchDoesNotMeetIdempotentParameterMismatch(LocalDynamo.Engine engine) throws IOException {
        MutableClock clock = new MutableClock(WINDOW_START.plusSeconds(60));
        Ingestion ingestion = new Ingestion(engine.client(), engine.tables(), 1);
        List<String> ids = List.of("auth-1", "auth-2", "auth-3");
        ids.forEach(id -> ingestion.authorise(id, 1_000, CUTOFF.minusSeconds(3_600)));
        LeaseStore leases = new LeaseStore(engine.client(), engine.tables().leases(), Timing.LEASE_DURATION, NO_WAIT);
        LeaseToken lease = ((AcquireResult.Acquired) leases.acquire("hold-release-reconciler", "run/1", clock.instant())).lease().token();
        DynamoFaults tokens = DynamoFaults.builder(1).clock(clock).build();
        ReconcilePageHandler handler = new ReconcilePageHandler(
                new CandidateFinder(engine.client(new LaggingIndex()), engine.tables().authorisations()),
                new FencedWriter(engine.clientWithoutBackoff(tokens), engine.tables(), NO_WAIT),
                new SettlementCheck(engine.client(), engine.tables().settlements(), NO_WAIT),
                leases, new com.payments.reconciler.surge.ReleaseSurgeGuard(new com.payments.reconciler.surge.NightRecords(engine.client(),
                        engine.tables().leases()), com.payments.reconciler.surge.ReleaseSurgePolicy.DEFAULT, clock),
                new EmfMetrics(clock, "ReconcilePage", line -> { }), clock, com.payments.reconciler.testing.CompleteFeed.gate(),
                new HeldForFeed(DeadLetterDepth.empty()));
        String sameInput = input(new NightWindow("2026-12-01", WINDOW_START, CUTOFF, GRACE, false, 1), lease);

        invoke(handler, sameInput, new TestContext(Timing.RECONCILE_PAGE_TIMEOUT, "invocation-1"));
        clock.advance(Duration.ofSeconds(40));
        invoke(handler, sameInput, new TestContext(Timing.RECONCILE_PAGE_TIMEOUT, "invocation-2"));

        assertThat(tokens.tokenMismatches()).as("request tokens of the retried attempt refused by DynamoDB").isZero();
        ids.forEach(id -> assertThat(ingestion.authorisation(id).get(Authorisations.STATE).s())
                .isEqualTo(Authorisations.STATE_RELEASE_REQUESTED));
        ids.forEach(id -> assertThat(ingestion.authorisation(id).get(Authorisations.VERSION).n()).as("released once").isEqualTo("2"));
    }

    private static String input(NightWindow window, LeaseToken lease) {
        ObjectNode root = JsonHandler.json().createObjectNode();
        root.set("window", JsonHandler.json().valueToTree(window));
        root.set("lease", JsonHandler.json().valueToTree(lease));
        root.set("page", JsonHandler.json().createObjectNode().putNull("cursor"));
        return root.toString();
    }

    private static void invoke(ReconcilePageHandler handler, String input, TestContext context) throws IOException {
        handler.handleRequest(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), new ByteArrayOutputStream(), context);
    }

}
