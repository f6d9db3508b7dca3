package com.payments.reconciler.reconcile;

/**
 * Running counts of the reconcile loop, carried from page to page and shown in the run's summary.
 *
 * @param pages ReconcilePage calls
 * @param candidates index entries older than the cutoff that were decided
 * @param releaseRequested releases committed by this run (RELEASE_REQUESTED + PENDING command)
 * @param skippedSettled candidates with a settlement: never released (I3)
 * @param skippedStale candidates that changed and were no longer releasable
 * @param alreadyCommanded candidates an earlier run or leader already commanded
 * @param malformed index entries that could not be read (skipped, logged by id, never written)
 * @param wouldRelease dry runs: releases that would have been requested
 */
public record ReconcileTotals(long pages, long candidates, long releaseRequested, long skippedSettled,
                              long skippedStale, long alreadyCommanded, long malformed, long wouldRelease) {

    public static final ReconcileTotals ZERO = new ReconcileTotals(0, 0, 0, 0, 0, 0, 0, 0);

    ReconcileTotals withPage() {
        return new ReconcileTotals(pages + 1, candidates, releaseRequested, skippedSettled, skippedStale, alreadyCommanded, malformed, wouldRelease);
    }

    ReconcileTotals with(ReleaseOutcome outcome) {
        long c = candidates + 1;
        return switch (outcome) {
            case ReleaseOutcome.Committed ignored -> new ReconcileTotals(pages, c, releaseRequested + 1, skippedSettled, skippedStale, alreadyCommanded, malformed, wouldRelease);
            case ReleaseOutcome.Settled ignored -> new ReconcileTotals(pages, c, releaseRequested, skippedSettled + 1, skippedStale, alreadyCommanded, malformed, wouldRelease);
            case ReleaseOutcome.Stale ignored -> new ReconcileTotals(pages, c, releaseRequested, skippedSettled, skippedStale + 1, alreadyCommanded, malformed, wouldRelease);
            case ReleaseOutcome.AlreadyCommanded ignored -> new ReconcileTotals(pages, c, releaseRequested, skippedSettled, skippedStale, alreadyCommanded + 1, malformed, wouldRelease);
            case ReleaseOutcome.Malformed ignored -> new ReconcileTotals(pages, c, releaseRequested, skippedSettled, skippedStale, alreadyCommanded, malformed + 1, wouldRelease);
            case ReleaseOutcome.Fenced ignored -> throw new IllegalArgumentException("a fenced outcome ends the run; it is not counted");
            case ReleaseOutcome.Contention ignored -> throw new IllegalArgumentException("contention is retried by the workflow; it is not counted");
        };
    }

    ReconcileTotals withMalformed(int n) {
        return new ReconcileTotals(pages, candidates, releaseRequested, skippedSettled, skippedStale, alreadyCommanded, malformed + n, wouldRelease);
    }

    ReconcileTotals withDryRunDecision(boolean settled) {
        return new ReconcileTotals(pages, candidates + 1, releaseRequested, skippedSettled + (settled ? 1 : 0), skippedStale,
                alreadyCommanded, malformed, wouldRelease + (settled ? 0 : 1));
    }
}
