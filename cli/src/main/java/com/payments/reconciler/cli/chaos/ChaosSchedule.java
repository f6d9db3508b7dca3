package com.payments.reconciler.cli.chaos;

import java.util.SplittableRandom;

/**
 * One randomized fault schedule, a pure function of its seed: what the campaign does to one window.
 *
 * @param authorisations synthetic authorisations in the window
 * @param settledFraction of the due ones, how many already have a settlement
 * @param gcPause the first execution's worker freezes just before its first write, past its lease
 * @param resumeDuringTakeover the frozen worker resumes right after the rerun took over (before the rerun
 *                             decides anything), rather than after the rerun finished
 * @param duplicateDeliveries extra Scheduler deliveries of the same occurrence
 * @param commitThenFailFunction 0 none, 1 ReconcilePage, 2 DeliverCommands: that call commits, then Lambda reports a timeout
 * @param settlementsDuringRun settlements that arrive while the first page runs
 * @param providerFaults forced provider faults (perform-then-drop, 503, slow) on random commands
 * @param dynamoFaults whether the DynamoDB fault layer (conflicts, throttling, lost responses) is on
 */
public record ChaosSchedule(long seed, int authorisations, double settledFraction, boolean gcPause, boolean resumeDuringTakeover,
                            int duplicateDeliveries, int commitThenFailFunction, int settlementsDuringRun, int providerFaults,
                            boolean dynamoFaults) {

    public static ChaosSchedule generate(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        return new ChaosSchedule(seed, 6 + r.nextInt(15), r.nextDouble() * 0.3, r.nextDouble() < 0.6, r.nextBoolean(),
                r.nextInt(4), r.nextInt(3), r.nextInt(3), r.nextInt(4), r.nextDouble() < 0.7);
    }

    /** A minimal event trace to reproduce a schedule: its seed and what it did. */
    public String describe() {
        return "seed " + seed + ": " + authorisations + " authorisations (settled " + String.format("%.2f", settledFraction) + ")"
                + (gcPause ? ", GC pause before the first write, resumed " + (resumeDuringTakeover ? "right after the takeover" : "after the rerun") : "")
                + (duplicateDeliveries > 0 ? ", " + duplicateDeliveries + " duplicate deliveries" : "")
                + (commitThenFailFunction == 1 ? ", ReconcilePage commits then times out" : commitThenFailFunction == 2 ? ", DeliverCommands commits then times out" : "")
                + (settlementsDuringRun > 0 ? ", " + settlementsDuringRun + " settlements during the run" : "")
                + (providerFaults > 0 ? ", " + providerFaults + " provider faults" : "")
                + (dynamoFaults ? ", DynamoDB faults on" : "");
    }
}
