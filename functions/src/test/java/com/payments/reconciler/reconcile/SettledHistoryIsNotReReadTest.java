package com.payments.reconciler.reconcile;

import java.time.Clock;
import java.util.Optional;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.delivery.TestContext;
import com.payments.reconciler.ingest.EventDecoder;
import com.payments.reconciler.ingest.EventIngestion;
import com.payments.reconciler.ingest.IngestOutcome;
import com.payments.reconciler.ingest.IngestStore;
import com.payments.reconciler.ingest.IngestionDecision;
import com.payments.reconciler.lease.AcquireResult;
import com.payments.reconciler.lease.LeaseStore;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.testing.Ingestion;
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
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two nights on the same tables: a night's reads from the {@code pending-by-age} index depend on that night's due
 * authorisations, not on the settled history. Counted as the items the index queries return (what DynamoDB bills
 * for), not from the handler's own totals. On the code before the index fix (commit b3c72bf) settled authorisations
 * stayed in the index and every night read them again: the first test failed with 18 items read by night 1 for its 6
 * open authorisations (night 2 would have read 18 again: its own 6 and night 1's 12 settled), the second with the
 * settled items still in the index after night 1.
 */
@ExtendWith(LocalDynamo.class)
class SettledHistoryIsNotReReadTest {

    private static final int SHARDS = 2;
    private static final Duration GRACE = Duration.ofHours(72);
    private static final Instant NIGHT_1 = Instant.parse("2026-12-01T02:00:00Z");
    private static final Instant NIGHT_2 = NIGHT_1.plus(Duration.ofDays(1));
    private static final Backoff NO_WAIT = new Backoff(1, d -> { }, 6, Duration.ofMillis(1), Duration.ofMillis(5));

    private LocalDynamo.Engine engine;
    private final AtomicLong indexItemsRead = new AtomicLong();
    private EventIngestion events;
    private MutableClock clock;

    @BeforeEach
    void setUp(LocalDynamo.Engine engine) {
        this.engine = engine;
        this.clock = new MutableClock(NIGHT_1.plusSeconds(60));
        DynamoDbClient dynamo = engine.client();
        this.events = new EventIngestion(new EventDecoder(), new IngestionDecision(SHARDS),
                new IngestStore(dynamo, engine.tables().authorisations(), engine.tables().settlements(), Backoff.standard(7)), Optional.empty(), Clock.systemUTC());
    }

    @Test
    void settledAuthorisationsInEitherOrderAreNotReadByTheNextNight() throws IOException {
        // Night 1's due authorisations: 6 open, 6 settled after their create, 6 settled before their create arrived.
        for (int i = 0; i < 18; i++) {
            String id = "n1-" + i;
            Instant at = cutoff(NIGHT_1).minus(Duration.ofHours(1 + i));
            if (i >= 12) {
                ingest(settled(id, at.plus(Duration.ofHours(30))));
            }
            ingest(created(id, at));
            if (i >= 6 && i < 12) {
                ingest(settled(id, at.plus(Duration.ofHours(30))));
            }
        }
        long night1 = night(NIGHT_1, false);
        // Night 2's own due authorisations: 6 more, open.
        for (int i = 0; i < 6; i++) {
            ingest(created("n2-" + i, cutoff(NIGHT_2).minus(Duration.ofMinutes(10 + i))));
        }
        long night2 = night(NIGHT_2, false);

        assertThat(night1).as("night 1 reads its 6 open authorisations only").isEqualTo(6);
        assertThat(night2).as("night 2 reads its own 6 due authorisations, none of night 1's history").isEqualTo(6);
    }

    @Test
    void aNightRemovesSettledItemsTheOldIngestionLeftInTheIndexAndTheNextNightDoesNotReadThem() throws IOException {
        // A table written before the fix: settled authorisations still carrying pendingShard.
        Ingestion legacy = new Ingestion(engine.client(), engine.tables(), SHARDS);
        for (int i = 0; i < 10; i++) {
            legacy.authorise("old-" + i, 1_000, cutoff(NIGHT_1).minus(Duration.ofHours(2 + i)));
            legacy.settle("old-" + i, cutoff(NIGHT_1));
        }
        long night1 = night(NIGHT_1, false);
        long night2 = night(NIGHT_2, false);

        assertThat(night1).as("night 1 meets the 10 settled items once").isEqualTo(10);
        for (int i = 0; i < 10; i++) {
            var item = legacy.authorisation("old-" + i);
            assertThat(item).as("left the index, still AUTHORISED at version 1").doesNotContainKey(Authorisations.PENDING_SHARD);
            assertThat(item.get(Authorisations.STATE).s()).isEqualTo(Authorisations.STATE_AUTHORISED);
            assertThat(item.get(Authorisations.VERSION).n()).isEqualTo("1");
        }
        assertThat(night2).as("night 2 reads none of them").isZero();
    }

    @Test
    void aDryRunRemovesNothing() throws IOException {
        Ingestion legacy = new Ingestion(engine.client(), engine.tables(), SHARDS);
        for (int i = 0; i < 4; i++) {
            legacy.authorise("old-" + i, 1_000, cutoff(NIGHT_1).minus(Duration.ofHours(2 + i)));
            legacy.settle("old-" + i, cutoff(NIGHT_1));
        }
        long dry = night(NIGHT_1, true);

        assertThat(dry).isEqualTo(4);
        for (int i = 0; i < 4; i++) {
            assertThat(legacy.authorisation("old-" + i)).as("a dry run changes no business data")
                    .containsKey(Authorisations.PENDING_SHARD);
        }
        assertThat(night(NIGHT_1, true)).as("so a second dry run meets them again").isEqualTo(4);
    }

    @Test
    void theCleanupIsFencedAStaleEpochRemovesNothingTheCurrentOneDoes() {
        Ingestion legacy = new Ingestion(engine.client(), engine.tables(), SHARDS);
        legacy.authorise("old-1", 1_000, cutoff(NIGHT_1).minus(Duration.ofHours(2)));
        legacy.settle("old-1", cutoff(NIGHT_1));
        Candidate read = new CandidateFinder(engine.client(), engine.tables().authorisations())
                .page(Shards.of("old-1", SHARDS), cutoff(NIGHT_1), null, 10).candidates().getFirst();
        LeaseStore leases = new LeaseStore(engine.client(), engine.tables().leases(), Timing.LEASE_DURATION, NO_WAIT);
        LeaseToken stale = ((AcquireResult.Acquired) leases.acquire("hold-release-reconciler", "run/a", clock.instant())).lease().token();
        clock.advance(Timing.LEASE_DURATION.plusMinutes(1));
        LeaseToken current = ((AcquireResult.Acquired) leases.acquire("hold-release-reconciler", "run/b", clock.instant())).lease().token();
        FencedWriter writer = new FencedWriter(engine.client(), engine.tables(), NO_WAIT);

        assertThat(writer.removeSettledFromIndex(stale, List.of(read))).isEqualTo(new FencedWriter.IndexCleanup.Fenced("run/b", current.epoch()));
        assertThat(legacy.authorisation("old-1")).as("a stale worker writes nothing").containsKey(Authorisations.PENDING_SHARD);
        assertThat(writer.removeSettledFromIndex(current, List.of(read))).isEqualTo(new FencedWriter.IndexCleanup.Removed(1, 0));
        assertThat(legacy.authorisation("old-1")).doesNotContainKey(Authorisations.PENDING_SHARD);
        assertThat(writer.removeSettledFromIndex(current, List.of(read))).as("already out: left as it is")
                .isEqualTo(new FencedWriter.IndexCleanup.Removed(0, 1));
    }

    /**
     * The night read a settlement outside the transaction; on tables the platform writes itself, the settlement can be
     * gone by the time the cleanup commits. The cleanup checks it in the same transaction, so an unsettled authorisation
     * never leaves the index (it would never be released: I4). Without that check (the first version of the cleanup)
     * this item left the index. A settled neighbour in the same transaction still leaves.
     */
    @Test
    void anAuthorisationWhoseSettlementIsGoneByTheCleanupStaysInTheIndex() {
        Ingestion legacy = new Ingestion(engine.client(), engine.tables(), SHARDS);
        legacy.authorise("old-1", 1_000, cutoff(NIGHT_1).minus(Duration.ofHours(2)));
        legacy.settle("old-1", cutoff(NIGHT_1));
        legacy.authorise("old-2", 1_000, cutoff(NIGHT_1).minus(Duration.ofHours(3)));
        legacy.settle("old-2", cutoff(NIGHT_1));
        CandidateFinder finder = new CandidateFinder(engine.client(), engine.tables().authorisations());
        Candidate one = finder.page(Shards.of("old-1", SHARDS), cutoff(NIGHT_1), null, 10).candidates().stream()
                .filter(c -> c.authorisationId().equals("old-1")).findFirst().orElseThrow();
        Candidate two = finder.page(Shards.of("old-2", SHARDS), cutoff(NIGHT_1), null, 10).candidates().stream()
                .filter(c -> c.authorisationId().equals("old-2")).findFirst().orElseThrow();
        engine.client().deleteItem(b -> b.tableName(engine.tables().settlements())
                .key(java.util.Map.of(com.payments.reconciler.store.Tables.Settlements.AUTHORISATION_ID,
                        software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS("old-1"))));
        LeaseStore leases = new LeaseStore(engine.client(), engine.tables().leases(), Timing.LEASE_DURATION, NO_WAIT);
        LeaseToken lease = ((AcquireResult.Acquired) leases.acquire("hold-release-reconciler", "run/a", clock.instant())).lease().token();

        FencedWriter.IndexCleanup result = new FencedWriter(engine.client(), engine.tables(), NO_WAIT).removeSettledFromIndex(lease, List.of(one, two));

        assertThat(result).isEqualTo(new FencedWriter.IndexCleanup.Removed(1, 1));
        assertThat(legacy.authorisation("old-1")).as("unsettled after all: still in the index").containsKey(Authorisations.PENDING_SHARD);
        assertThat(legacy.authorisation("old-2")).doesNotContainKey(Authorisations.PENDING_SHARD);
    }

    private static Instant cutoff(Instant windowStart) {
        return windowStart.minus(GRACE);
    }

    /** One whole reconcile loop of the window starting at {@code windowStart}; returns the index items it read. */
    private long night(Instant windowStart, boolean dryRun) throws IOException {
        Instant target = windowStart.plusSeconds(60);
        if (target.isAfter(clock.instant())) {
            clock.advance(Duration.between(clock.instant(), target));
        }
        indexItemsRead.set(0);
        ExecutionInterceptor countIndexItems = new ExecutionInterceptor() {
            @Override
            public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
                SdkResponse response = context.response();
                if (response instanceof QueryResponse query) {
                    indexItemsRead.addAndGet(query.count());
                }
            }
        };
        LeaseStore leases = new LeaseStore(engine.client(), engine.tables().leases(), Timing.LEASE_DURATION, NO_WAIT);
        LeaseToken lease = ((AcquireResult.Acquired) leases.acquire("hold-release-reconciler", "run/" + windowStart, clock.instant()))
                .lease().token();
        ReconcilePageHandler handler = new ReconcilePageHandler(
                new CandidateFinder(engine.client(countIndexItems), engine.tables().authorisations()),
                new FencedWriter(engine.client(), engine.tables(), NO_WAIT),
                new SettlementCheck(engine.client(), engine.tables().settlements(), NO_WAIT),
                leases, new com.payments.reconciler.surge.ReleaseSurgeGuard(new com.payments.reconciler.surge.NightRecords(engine.client(),
                        engine.tables().leases()), com.payments.reconciler.surge.ReleaseSurgePolicy.DEFAULT, clock),
                new EmfMetrics(clock, "ReconcilePage", line -> { }), clock, com.payments.reconciler.testing.CompleteFeed.gate(),
                com.payments.reconciler.reconcile.HeldForFeed.stored(engine.client(), engine.tables().settlements(), NO_WAIT));
        String windowId = windowStart.toString().substring(0, 10);
        NightWindow window = new NightWindow(windowId, windowStart, cutoff(windowStart), GRACE, dryRun, SHARDS);
        ObjectNode page = JsonHandler.json().createObjectNode().putNull("cursor");
        int calls = 0;
        while (true) {
            ObjectNode root = JsonHandler.json().createObjectNode();
            root.set("window", JsonHandler.json().valueToTree(window));
            root.set("lease", JsonHandler.json().valueToTree(lease));
            root.set("page", page);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            handler.handleRequest(new ByteArrayInputStream(root.toString().getBytes(StandardCharsets.UTF_8)), out,
                    new TestContext(Timing.RECONCILE_PAGE_TIMEOUT, "night-" + windowId + "-" + calls++));
            page = (ObjectNode) JsonHandler.json().readTree(out.toByteArray());
            if (!page.path("more").asBoolean()) {
                break;
            }
        }
        leases.release(lease, clock.instant());
        return indexItemsRead.get();
    }

    private void ingest(String body) {
        assertThat(events.ingest(body)).isInstanceOf(IngestOutcome.Accepted.class);
    }

    private static String created(String id, Instant authorisedAt) {
        return """
                {"version":1,"type":"authorisation.created","eventId":"created:%s","authorisationId":"%s","amountMinor":1000,\
                "currency":"EUR","merchantId":"merchant-1","authorisedAt":"%s"}""".formatted(id, id, authorisedAt);
    }

    private static String settled(String id, Instant settledAt) {
        return """
                {"version":1,"type":"settlement.posted","eventId":"settled:%s","authorisationId":"%s","amountMinor":1000,\
                "currency":"EUR","settledAt":"%s"}""".formatted(id, id, settledAt);
    }
}
