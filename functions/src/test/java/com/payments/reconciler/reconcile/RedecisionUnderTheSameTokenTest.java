package com.payments.reconciler.reconcile;

import com.payments.reconciler.testing.Fence;
import com.payments.reconciler.lease.AcquireResult;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.faults.DynamoFaults;
import com.payments.reconciler.store.Backoff;
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
 * at the same epoch and version, within DynamoDB's 10-minute token window. The request is not the same
 * ({@code createdAt} is the new call's clock). The retry is another task attempt, so its token is another;
 * a writer bound to one attempt that decides the batch again reuses its token and DynamoDB
 * answers {@code IdempotentParameterMismatchException}. Either way it is our own earlier decision: it must
 * end as a recognised commit, not fail the task. The fault layer gives moto AWS's token semantics.
 */
@ExtendWith(LocalDynamo.class)
class RedecisionUnderTheSameTokenTest {

    private static final Instant T0 = Instant.parse("2026-12-01T02:00:00Z");
    private static final Instant CUTOFF = T0.minus(Duration.ofHours(72));
    private static final Backoff NO_WAIT = new Backoff(1, d -> { }, 6, Duration.ofMillis(1), Duration.ofMillis(5));

    @Test
    void theSameDecisionMadeAgainByALaterCallIsRecognisedAsOurs(LocalDynamo.Engine engine) {
        MutableClock clock = new MutableClock(T0);
        DynamoFaults tokens = DynamoFaults.builder(1).clock(clock).build();
        new Ingestion(engine.client(), engine.tables(), 1).authorise("x", 1_000, CUTOFF.minusSeconds(60));
        Worker worker = new Worker("w", engine.clientWithoutBackoff(tokens), engine.tables(), clock, Duration.ofMinutes(5), 1,
                Fence.LEASE_CHECKED);
        assertThat(worker.acquire()).isInstanceOf(AcquireResult.Acquired.class);
        Candidate x = worker.readAll(CUTOFF, 10).getFirst();

        assertThat(worker.release(x, CUTOFF)).isEqualTo(new ReleaseOutcome.Committed(x.operationId(), false));
        clock.advance(Duration.ofSeconds(40));
        ReleaseOutcome again = worker.release(x, CUTOFF);

        assertThat(tokens.tokenMismatches()).as("DynamoDB refused the reused token").isEqualTo(1);
        assertThat(again).isEqualTo(new ReleaseOutcome.Committed(x.operationId(), true));
        assertThat(worker.readAll(CUTOFF, 10)).as("released once, nothing pending").isEqualTo(List.of());
    }

    @Test
    void aRetriedTaskAttemptDecidingTheSameBatchMeetsNoMismatchAndRecognisesItsCommit(LocalDynamo.Engine engine) {
        MutableClock clock = new MutableClock(T0);
        DynamoFaults tokens = DynamoFaults.builder(1).clock(clock).build();
        Ingestion ingestion = new Ingestion(engine.client(), engine.tables(), 1);
        ingestion.authorise("x", 1_000, CUTOFF.minusSeconds(60));
        ingestion.authorise("y", 2_000, CUTOFF.minusSeconds(30));
        Worker worker = new Worker("w", engine.client(), engine.tables(), clock, Duration.ofMinutes(5), 1,
                Fence.LEASE_CHECKED);
        assertThat(worker.acquire()).isInstanceOf(AcquireResult.Acquired.class);
        List<Candidate> batch = worker.readAll(CUTOFF, 10);
        FencedWriter task = new FencedWriter(engine.clientWithoutBackoff(tokens), engine.tables(), NO_WAIT);
        LeaseToken lease = worker.lease().token();

        assertThat(task.forAttempt("invocation-1").requestReleases(lease, batch, Worker.WINDOW, CUTOFF, clock.instant()))
                .allSatisfy(o -> assertThat(o).isInstanceOf(ReleaseOutcome.Committed.class));
        clock.advance(Duration.ofSeconds(40));
        List<ReleaseOutcome> again = task.forAttempt("invocation-2").requestReleases(lease, batch, Worker.WINDOW, CUTOFF, clock.instant());

        assertThat(tokens.tokenMismatches()).as("request tokens of the retried attempt refused by DynamoDB").isZero();
        assertThat(again).isEqualTo(batch.stream().map(c -> (ReleaseOutcome) new ReleaseOutcome.Committed(c.operationId(), true)).toList());
    }

    @Test
    void aTokenIsStableWithinOneAttemptAndDiffersAcrossAttemptsAndCancellations() {
        String first = BatchRounds.requestToken("release-hold:x@1,release-hold:y@3", 4, "invocation-1", 0);

        assertThat(first).hasSizeLessThanOrEqualTo(36).isEqualTo(BatchRounds.requestToken("release-hold:x@1,release-hold:y@3", 4, "invocation-1", 0));
        assertThat(BatchRounds.requestToken("release-hold:x@1,release-hold:y@3", 4, "invocation-2", 0)).isNotEqualTo(first);
        assertThat(BatchRounds.requestToken("release-hold:x@1,release-hold:y@3", 4, "invocation-1", 1)).isNotEqualTo(first);
        assertThat(BatchRounds.requestToken("release-hold:x@1,release-hold:y@3", 5, "invocation-1", 0)).isNotEqualTo(first);
    }
}
