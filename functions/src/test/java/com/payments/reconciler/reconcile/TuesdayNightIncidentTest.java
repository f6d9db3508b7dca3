package com.payments.reconciler.reconcile;

import com.payments.reconciler.testing.Fence;
import com.payments.reconciler.audit.InvariantAudit;
import com.payments.reconciler.lease.AcquireResult;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.Ingestion;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.testing.MutableClock;
import com.payments.reconciler.testing.Worker;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The incident this design exists for: worker A reads authorisation X and checks it has no
 * settlement, then stalls (a GC pause) for 41 s — longer than its 30 s lease. Worker B takes over
 * and carries on. When A wakes, its write for X must be refused, and X released exactly once.
 * The pause is a latch, not a sleep; time moves on a test clock.
 */
@ExtendWith(LocalDynamo.class)
class TuesdayNightIncidentTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration RENEW_EVERY = Duration.ofSeconds(10);
    private static final Duration GC_PAUSE = Duration.ofSeconds(41);
    private static final Instant WINDOW_START = Instant.parse("2026-12-01T00:00:00Z");
    private static final Instant CUTOFF = WINDOW_START.minus(Duration.ofHours(72));
    private static final int SHARDS = 2;

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T02:00:00Z"));
    private final ExecutorService threads = Executors.newFixedThreadPool(2);
    private LocalDynamo.Engine engine;
    private Ingestion ingestion;
    private Worker a;
    private Worker b;

    @BeforeEach
    void seed(LocalDynamo.Engine engine) {
        this.engine = engine;
        ingestion = new Ingestion(engine.client(), engine.tables(), SHARDS);
        ingestion.authorise("X", 12_50, CUTOFF.minus(Duration.ofDays(1)));
        for (int i = 1; i <= 4; i++) {
            ingestion.authorise("other-" + i, 1_000 + i, CUTOFF.minus(Duration.ofHours(i)));
        }
        a = new Worker("worker-A", engine.client(), engine.tables(), clock, LEASE, SHARDS, Fence.LEASE_CHECKED);
        b = new Worker("worker-B", engine.client(), engine.tables(), clock, LEASE, SHARDS, Fence.LEASE_CHECKED);
    }

    @Test
    void theStaleWorkersWriteIsFencedAndXIsReleasedExactlyOnceByTheNewLeader() throws Exception {
        CountDownLatch aHasReadX = new CountDownLatch(1);
        CountDownLatch wakeA = new CountDownLatch(1);

        CompletableFuture<ReleaseOutcome> aWrite = CompletableFuture.supplyAsync(() -> {
            assertThat(a.acquire()).isInstanceOf(AcquireResult.Acquired.class);
            assertThat(a.lease().epoch()).isEqualTo(1);
            Candidate x = candidate(a, "X");
            assertThat(engine.snapshot().of(com.payments.reconciler.store.Tables.Settlements.SCHEMA)).isEmpty();
            aHasReadX.countDown();
            await(wakeA);                       // the GC pause
            return a.release(x, CUTOFF);
        }, threads);

        await(aHasReadX);
        clock.advance(RENEW_EVERY);             // A would have renewed here, but it is paused
        clock.advance(GC_PAUSE.minus(RENEW_EVERY));
        assertThat(b.acquire()).isInstanceOf(AcquireResult.Acquired.class);
        assertThat(b.lease().epoch()).isEqualTo(2);
        for (Candidate other : b.readAll(CUTOFF, 10)) {
            if (!other.authorisationId().equals("X")) {
                assertThat(b.release(other, CUTOFF)).isInstanceOf(ReleaseOutcome.Committed.class);
            }
        }

        wakeA.countDown();
        ReleaseOutcome outcome = aWrite.get(30, TimeUnit.SECONDS);

        assertThat(outcome).isEqualTo(new ReleaseOutcome.Fenced("worker-B/attempt-1", 2));
        assertThat(ingestion.authorisation("X").get(Authorisations.STATE).s()).as("A changed nothing").isEqualTo("AUTHORISED");
        assertThat(ingestion.authorisation("X").get(Authorisations.VERSION).n()).isEqualTo("1");

        assertThat(b.release(candidate(b, "X"), CUTOFF)).isInstanceOf(ReleaseOutcome.Committed.class);
        assertThat(commandsFor("X")).hasSize(1);
        assertThat(commandsFor("X").getFirst().get(ReleaseCommands.EPOCH).n()).isEqualTo("2");
        assertInvariantsHold();
    }

    @Test
    void whenTheNewLeaderAlreadyHandledXTheStaleWriteIsStillFencedAndThereIsOneCommand() throws Exception {
        a.acquire();
        Candidate xSeenByA = candidate(a, "X");
        clock.advance(GC_PAUSE);
        b.acquire();
        assertThat(b.release(candidate(b, "X"), CUTOFF)).isInstanceOf(ReleaseOutcome.Committed.class);

        assertThat(a.release(xSeenByA, CUTOFF)).isInstanceOf(ReleaseOutcome.Fenced.class);
        assertThat(commandsFor("X")).hasSize(1);
        assertInvariantsHold();
    }

    @Test
    void whenXSettlesDuringThePauseNobodyReleasesIt() throws Exception {
        a.acquire();
        Candidate xSeenByA = candidate(a, "X");
        clock.advance(GC_PAUSE);
        ingestion.settle("X", clock.instant());
        b.acquire();

        assertThat(b.release(candidate(b, "X"), CUTOFF)).isEqualTo(new ReleaseOutcome.Settled("X"));
        assertThat(a.release(xSeenByA, CUTOFF)).isInstanceOf(ReleaseOutcome.Fenced.class);
        assertThat(commandsFor("X")).isEmpty();
        assertThat(ingestion.authorisation("X").get(Authorisations.STATE).s()).isEqualTo("AUTHORISED");
        assertInvariantsHold();
    }

    @Test
    void aStaleTransactionOrderedBeforeTheTakeoverCommitsAndTheNewLeaderFindsNothingLeftForX() throws Exception {
        a.acquire();
        Candidate xSeenByA = candidate(a, "X");
        clock.advance(GC_PAUSE);
        // A's lease has expired, but DynamoDB orders A's transaction before B's takeover: it commits.
        assertThat(a.release(xSeenByA, CUTOFF)).isInstanceOf(ReleaseOutcome.Committed.class);
        b.acquire();

        assertThat(b.readAll(CUTOFF, 10)).extracting(Candidate::authorisationId).doesNotContain("X");
        // Even with A's stale read of X in hand, B's attempt is answered, not repeated.
        assertThat(b.release(xSeenByA, CUTOFF)).isEqualTo(new ReleaseOutcome.AlreadyCommanded(xSeenByA.operationId(), 1));
        assertThat(commandsFor("X")).hasSize(1);
        assertInvariantsHold();
    }

    private Candidate candidate(Worker worker, String id) {
        List<Candidate> all = worker.readAll(CUTOFF, 10);
        return all.stream().filter(c -> c.authorisationId().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError(id + " is not a candidate for " + worker.name()));
    }

    private List<java.util.Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue>> commandsFor(String id) {
        return engine.snapshot().of(com.payments.reconciler.store.Tables.ReleaseCommands.SCHEMA).stream()
                .filter(c -> c.get(ReleaseCommands.AUTHORISATION_ID).s().equals(id)).toList();
    }

    private void assertInvariantsHold() {
        InvariantAudit.Report report = new InvariantAudit(engine.tables()).audit(engine.snapshot(), engine.writes(), List.of(), null);
        assertThat(report.violations()).isEmpty();
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("latch not released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
