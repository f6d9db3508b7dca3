package com.payments.reconciler.harness.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One randomized fault schedule, a pure function of its seed: what the campaign does to one window.
 * The same seed gives the same schedule (and the same {@link #describe()}), which is how a failure is
 * reproduced: {@code bin/reconciler chaos --replay SEED}.
 *
 * @param authorisations synthetic authorisations in the window
 * @param settledFraction of the due ones, how many already have a settlement
 * @param gcPause the scheduled execution's worker freezes just before one of its release decisions
 *                reaches DynamoDB, the clock passes its lease, and the operator forces a rerun that takes over
 * @param pausedDecision which of the frozen worker's decisions is held (1 = its first write)
 * @param resume when the frozen worker wakes up, relative to the rerun that took over
 * @param settleWhileFrozen the authorisation the frozen worker is about to release settles while it is frozen
 * @param racingRerun (without a GC pause) the operator forces a rerun while the scheduled execution runs
 * @param duplicateDeliveries extra Scheduler deliveries of the same occurrence
 * @param commitThenTimeout which Lambda call commits its work, then reports a timeout to Step Functions
 * @param settlementsDuringRun settlements that arrive while the first page runs
 * @param providerFaults forced provider faults (perform-then-drop, 503, slow) on random commands
 * @param dynamoFaults whether the DynamoDB fault layer (conflicts, throttling, lost responses) is on
 * @param providerThrottleBurst requests answered 429 with {@code Retry-After} in a burst when delivery starts (0: none)
 * @param quotaLowered the provider enforces the night's quota and lowers it to {@link #LOWERED_QUOTA} when delivery starts
 * @param lambdaThrottled which function's first invocations Lambda refuses with {@code TooManyRequestsException}
 * @param lambdaThrottles how many of its invocations are refused (the workflow's retriers allow 6 attempts)
 */
public record ChaosSchedule(long seed, int authorisations, double settledFraction, boolean gcPause, int pausedDecision,
                            Resume resume, boolean settleWhileFrozen, boolean racingRerun, int duplicateDeliveries,
                            CommitThenTimeout commitThenTimeout, int settlementsDuringRun, int providerFaults, boolean dynamoFaults,
                            int providerThrottleBurst, boolean quotaLowered, LambdaThrottled lambdaThrottled, int lambdaThrottles) {

    /** Requests per second the provider lowers its quota to mid-night (the night was configured with the stack's 40). */
    public static final double LOWERED_QUOTA = 5;

    /** The function whose invocations Lambda throttles (another workload exhausting the account's concurrency). */
    public enum LambdaThrottled { NONE, RECONCILE_PAGE, DELIVER_COMMANDS, RELEASE_LEASE }

    /** When a frozen worker resumes. */
    public enum Resume {
        /** after the rerun took over, before it decides anything: the stale write races the new leader */
        BEFORE_RERUN_DECIDES,
        /** after the rerun decided (it is delivering): the stale write meets authorisations already decided */
        AFTER_RERUN_DECIDES,
        /** after the rerun finished and released the lease */
        AFTER_RERUN_ENDS;

        String phrase() {
            return switch (this) {
                case BEFORE_RERUN_DECIDES -> "after the rerun took over, before it decides";
                case AFTER_RERUN_DECIDES -> "after the rerun decided, while it delivers";
                case AFTER_RERUN_ENDS -> "after the rerun ended";
            };
        }
    }

    /** The Lambda call that succeeds and is then reported to Step Functions as timed out (its retry re-runs it). */
    public enum CommitThenTimeout { NONE, RECONCILE_PAGE, DELIVER_COMMANDS }

    public static ChaosSchedule generate(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int authorisations = 6 + r.nextInt(15);
        double settledFraction = r.nextDouble() * 0.3;
        boolean gcPause = r.nextDouble() < 0.6;
        int pausedDecision = 1 + r.nextInt(3);
        Resume resume = Resume.values()[r.nextInt(Resume.values().length)];
        boolean settleWhileFrozen = r.nextDouble() < 0.3;
        boolean racingRerun = r.nextDouble() < 0.3;
        int duplicateDeliveries = r.nextInt(4);
        CommitThenTimeout commitThenTimeout = CommitThenTimeout.values()[r.nextInt(CommitThenTimeout.values().length)];
        int settlementsDuringRun = r.nextInt(3);
        int providerFaults = r.nextInt(4);
        boolean dynamoFaults = r.nextDouble() < 0.7;
        // The capacity faults are drawn after the others, so every earlier schedule keeps its faults.
        int providerThrottleBurst = r.nextDouble() < 0.3 ? 3 + r.nextInt(6) : 0;
        boolean quotaLowered = r.nextDouble() < 0.25;
        LambdaThrottled lambdaThrottled = r.nextDouble() < 0.3
                ? LambdaThrottled.values()[1 + r.nextInt(LambdaThrottled.values().length - 1)] : LambdaThrottled.NONE;
        int lambdaThrottles = lambdaThrottled == LambdaThrottled.NONE ? 0 : 1 + r.nextInt(3);
        return new ChaosSchedule(seed, authorisations, settledFraction, gcPause, pausedDecision, resume, gcPause && settleWhileFrozen,
                !gcPause && racingRerun, duplicateDeliveries, commitThenTimeout, settlementsDuringRun, providerFaults, dynamoFaults,
                providerThrottleBurst, quotaLowered, lambdaThrottled, lambdaThrottles);
    }

    /**
     * The same schedule without the capacity faults: for the mutant table, whose schedules were chosen for the fault a
     * defect needs (a 429 before a perform-then-drop would mask the drop a new-key-per-retry defect needs).
     */
    public ChaosSchedule withoutCapacityFaults() {
        return new ChaosSchedule(seed, authorisations, settledFraction, gcPause, pausedDecision, resume, settleWhileFrozen, racingRerun,
                duplicateDeliveries, commitThenTimeout, settlementsDuringRun, providerFaults, dynamoFaults, 0, false, LambdaThrottled.NONE, 0);
    }

    /** What the schedule does, in the words of the trace: enough, with the seed, to reproduce it. */
    public String describe() {
        List<String> parts = new ArrayList<>();
        parts.add(authorisations + " authorisations (settled " + String.format("%.2f", settledFraction) + ")");
        if (gcPause) {
            parts.add("GC pause before decision " + pausedDecision + " past the lease, resumed " + resume.phrase()
                    + (settleWhileFrozen ? ", its authorisation settling meanwhile" : ""));
        }
        if (racingRerun) {
            parts.add("a forced rerun racing the scheduled execution");
        }
        if (duplicateDeliveries > 0) {
            parts.add(duplicateDeliveries + " duplicate Scheduler deliveries");
        }
        switch (commitThenTimeout) {
            case RECONCILE_PAGE -> parts.add("ReconcilePage commits then times out");
            case DELIVER_COMMANDS -> parts.add("DeliverCommands commits then times out");
            case NONE -> { }
        }
        if (settlementsDuringRun > 0) {
            parts.add(settlementsDuringRun + " settlements during the run");
        }
        if (providerFaults > 0) {
            parts.add(providerFaults + " provider faults");
        }
        if (dynamoFaults) {
            parts.add("DynamoDB faults on");
        }
        if (providerThrottleBurst > 0) {
            parts.add("a burst of " + providerThrottleBurst + " provider 429s as delivery starts");
        }
        if (quotaLowered) {
            parts.add("provider quota lowered to " + (long) LOWERED_QUOTA + "/s as delivery starts");
        }
        if (lambdaThrottles > 0) {
            parts.add(lambdaThrottles + " " + lambdaThrottled.name().toLowerCase().replace('_', '-') + " invocations throttled by Lambda");
        }
        return "seed " + seed + ": " + String.join(", ", parts);
    }
}
