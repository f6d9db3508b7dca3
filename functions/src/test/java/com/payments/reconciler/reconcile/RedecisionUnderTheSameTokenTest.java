package com.payments.reconciler.reconcile;

import com.payments.reconciler.lease.AcquireResult;
import com.payments.reconciler.local.faults.DynamoFaults;
import com.payments.reconciler.testing.Ingestion;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.testing.MutableClock;
import com.payments.reconciler.testing.Worker;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A task whose first try committed a release and then failed (its Lambda timed out after the commit) is
 * retried by the workflow; the retry may read a lagging index image and decide the same authorisation again
 * at the same epoch and version, within DynamoDB's 10-minute token window. The request token is the same, the
 * request is not ({@code createdAt} is the new call's clock), so DynamoDB answers
 * {@code IdempotentParameterMismatchException}. That is our own earlier decision: it must end as a
 * recognised commit, not fail the task. The fault layer gives moto AWS's token semantics.
 */
@ExtendWith(LocalDynamo.class)
class RedecisionUnderTheSameTokenTest {

    private static final Instant T0 = Instant.parse("2026-12-01T02:00:00Z");
    private static final Instant CUTOFF = T0.minus(Duration.ofHours(72));

    @Test
    void theSameDecisionMadeAgainByALaterCallIsRecognisedAsOurs(LocalDynamo.Engine engine) {
        MutableClock clock = new MutableClock(T0);
        DynamoFaults tokens = DynamoFaults.builder(1).clock(clock).build();
        new Ingestion(engine.client(), engine.tables(), 1).authorise("x", 1_000, CUTOFF.minusSeconds(60));
        Worker worker = new Worker("w", engine.clientWithoutBackoff(tokens), engine.tables(), clock, Duration.ofMinutes(5), 1,
                FencedWriter.Fence.LEASE_CHECKED);
        assertThat(worker.acquire()).isInstanceOf(AcquireResult.Acquired.class);
        Candidate x = worker.readAll(CUTOFF, 10).getFirst();

        assertThat(worker.release(x, CUTOFF)).isEqualTo(new ReleaseOutcome.Committed(x.operationId(), false));
        clock.advance(Duration.ofSeconds(40));
        ReleaseOutcome again = worker.release(x, CUTOFF);

        assertThat(tokens.tokenMismatches()).as("DynamoDB refused the reused token").isEqualTo(1);
        assertThat(again).isEqualTo(new ReleaseOutcome.Committed(x.operationId(), true));
        assertThat(worker.readAll(CUTOFF, 10)).as("released once, nothing pending").isEqualTo(List.of());
    }
}
