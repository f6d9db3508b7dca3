package com.payments.reconciler.testing;

import com.payments.reconciler.audit.InvariantAudit;
import com.payments.reconciler.lease.AcquireResult;
import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.reconcile.FencedWriter;
import com.payments.reconciler.reconcile.ReleaseOutcome;
import com.payments.reconciler.workflow.LeaseLost;
import com.payments.reconciler.workflow.StoreContention;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.LongFunction;

/**
 * Runs one random interleaving of 2–4 workers over 5–50 authorisations, one step at a time, with
 * pauses past the lease, takeovers, settlements arriving and (through {@code faults}) injected
 * conflicts, throttling and lost responses; then lets a final leader finish the window, and audits
 * I1–I5 from the stored state and the engine's ordered write log. Everything follows from the seed.
 */
public final class InterleavingHarness {

    public enum Step { ACQUIRE, READ, WRITE, RENEW, PAUSE_PAST_LEASE, TICK, SETTLE }

    /** Writes are drawn more often than the rest, so leaders get work done between disruptions. */
    private static final Step[] DRAW = {Step.ACQUIRE, Step.READ, Step.WRITE, Step.WRITE, Step.WRITE, Step.RENEW,
            Step.PAUSE_PAST_LEASE, Step.TICK, Step.SETTLE};

    public record Outcome(long seed, int workers, int authorisations, int steps, InvariantAudit.Report report,
                          Map<Step, Integer> stepsTaken, int fenced, int committed, int takeovers, List<String> trace) {
    }

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Instant WINDOW_START = Instant.parse("2026-12-01T00:00:00Z");
    private static final Instant CUTOFF = WINDOW_START.minus(Duration.ofHours(72));
    private static final int SHARDS = 2;

    private final LocalDynamo.Engine engine;
    private final Fence fence;
    private final LongFunction<List<ExecutionInterceptor>> faults;

    /**
     * @param faults interceptors for a worker's client, given a seed (the fault layer), or none
     */
    public InterleavingHarness(LocalDynamo.Engine engine, Fence fence, LongFunction<List<ExecutionInterceptor>> faults) {
        this.engine = engine;
        this.fence = fence;
        this.faults = faults;
    }

    public Outcome run(long seed) {
        engine.reset();
        SplittableRandom random = new SplittableRandom(seed);
        int workerCount = 2 + random.nextInt(3);
        int authCount = 5 + random.nextInt(46);
        int stepCount = 20 + random.nextInt(61);
        MutableClock clock = new MutableClock(Instant.parse("2026-12-01T02:00:00Z"));
        Ingestion ingestion = new Ingestion(engine.client(), engine.tables(), SHARDS);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < authCount; i++) {
            String id = "auth-" + seed + "-" + i;
            ids.add(id);
            // A few are too young for this window: they must be left alone.
            Instant at = random.nextInt(10) == 0 ? CUTOFF.plusSeconds(60) : CUTOFF.minusSeconds(1 + random.nextInt(86_400));
            ingestion.authorise(id, 100 + random.nextInt(100_000), at);
        }
        List<Worker> workers = new ArrayList<>();
        List<Deque<Candidate>> inHand = new ArrayList<>();
        for (int w = 0; w < workerCount; w++) {
            workers.add(new Worker("w" + w, engine.clientWithoutBackoff(faults.apply(seed * 31 + w).toArray(ExecutionInterceptor[]::new)),
                    engine.tables(), clock, LEASE, SHARDS, fence));
            inHand.add(new ArrayDeque<>());
        }
        boolean[] leader = new boolean[workerCount];
        Map<Step, Integer> taken = new EnumMap<>(Step.class);
        List<String> trace = new ArrayList<>();
        int fenced = 0;
        int committed = 0;
        int takeovers = 0;
        for (int s = 0; s < stepCount; s++) {
            Step step = DRAW[random.nextInt(DRAW.length)];
            int w = random.nextInt(workerCount);
            Worker worker = workers.get(w);
            taken.merge(step, 1, Integer::sum);
            try {
                switch (step) {
                    case ACQUIRE -> {
                        AcquireResult result = worker.acquire();
                        if (result instanceof AcquireResult.Acquired a && !a.retried()) {
                            leader[w] = true;
                            takeovers++;
                            trace.add(worker.name() + " acquired epoch " + a.lease().epoch());
                        }
                    }
                    case READ -> {
                        if (leader[w]) {
                            inHand.get(w).clear();
                            inHand.get(w).addAll(worker.readAll(CUTOFF, 7));
                            trace.add(worker.name() + " read " + inHand.get(w).size());
                        }
                    }
                    case WRITE -> {
                        if (leader[w] && !inHand.get(w).isEmpty()) {
                            // Batches of 1 to 4, as ReconcilePage batches them: one lease check, split on cancellation.
                            List<Candidate> batch = new ArrayList<>();
                            for (int size = 1 + random.nextInt(4); batch.size() < size && !inHand.get(w).isEmpty(); ) {
                                batch.add(inHand.get(w).poll());
                            }
                            List<ReleaseOutcome> outcomes = worker.releaseAll(batch, CUTOFF);
                            for (int k = 0; k < batch.size(); k++) {
                                ReleaseOutcome outcome = outcomes.get(k);
                                trace.add(worker.name() + "@" + worker.lease().epoch() + " " + batch.get(k).authorisationId()
                                        + " -> " + outcome.getClass().getSimpleName() + (batch.size() > 1 ? " (batch of " + batch.size() + ")" : ""));
                                if (outcome instanceof ReleaseOutcome.Committed) {
                                    committed++;
                                }
                            }
                            if (outcomes.stream().anyMatch(ReleaseOutcome.Fenced.class::isInstance)) {
                                fenced++;
                                leader[w] = false;
                                inHand.get(w).clear();
                            }
                        }
                    }
                    case RENEW -> {
                        if (leader[w]) {
                            worker.renew();
                        }
                    }
                    case PAUSE_PAST_LEASE -> {
                        clock.advance(LEASE.plusSeconds(1));
                        trace.add("pause " + (LEASE.getSeconds() + 1) + "s");
                    }
                    case TICK -> clock.advance(Duration.ofSeconds(5));
                    case SETTLE -> {
                        String id = ids.get(random.nextInt(ids.size()));
                        ingestion.settle(id, clock.instant());
                        trace.add("settled " + id);
                    }
                }
            } catch (LeaseLost lost) {
                leader[w] = false;
                inHand.get(w).clear();
                trace.add(worker.name() + " lost the lease");
            } catch (StoreContention contention) {
                trace.add(worker.name() + " contention: " + contention.getMessage());
            }
        }

        finishWindow(clock);
        InvariantAudit.Report report = new InvariantAudit(engine.tables()).audit(engine.snapshot(), engine.writes(), List.of(),
                new InvariantAudit.Completion(CUTOFF, false));
        return new Outcome(seed, workerCount, authCount, stepCount, report, taken, fenced, committed, takeovers, trace);
    }

    /** The operator's rerun: a fresh leader, after every lease has expired, decides whatever is left. */
    private void finishWindow(MutableClock clock) {
        clock.advance(LEASE.plusSeconds(1));
        Worker last = new Worker("final", engine.client(), engine.tables(), clock, LEASE, SHARDS, Fence.LEASE_CHECKED);
        if (!(last.acquire() instanceof AcquireResult.Acquired)) {
            throw new AssertionError("the final leader could not acquire an expired lease");
        }
        for (int round = 0; round < 5; round++) {
            List<Candidate> left = last.readAll(CUTOFF, 25);
            if (left.isEmpty()) {
                return;
            }
            for (Candidate c : left) {
                last.release(c, CUTOFF);
            }
        }
    }

    public static Instant cutoff() {
        return CUTOFF;
    }
}
