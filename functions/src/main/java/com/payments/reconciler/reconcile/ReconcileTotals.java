package com.payments.reconciler.reconcile;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

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
 * @param candidatesRead items the {@code pending-by-age} queries returned (what the night's reads grow with)
 * @param leftIndex settled candidates this run took out of the index (tables written before ingestion did it)
 * @param heldForFeed due candidates not released (nor counted as would-release) because IngestEvents refused a
 *                    settlement that could concern them (HeldForFeed): they stay in the index for a later night
 */
public record ReconcileTotals(long pages, long candidates, long releaseRequested, long skippedSettled,
                              long skippedStale, long alreadyCommanded, long malformed, long wouldRelease,
                              long candidatesRead, long leftIndex, long heldForFeed) {

    public static final ReconcileTotals ZERO = new ReconcileTotals(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    /**
     * Reads the totals from a task input. {@code candidatesRead}, {@code leftIndex} and {@code heldForFeed} are absent from inputs written
     * before they existed, which a redrive (up to 14 days later) replays: absent means none, anything else is strict.
     */
    @JsonCreator
    static ReconcileTotals fromJson(@JsonProperty(value = "pages", required = true) long pages,
                                    @JsonProperty(value = "candidates", required = true) long candidates,
                                    @JsonProperty(value = "releaseRequested", required = true) long releaseRequested,
                                    @JsonProperty(value = "skippedSettled", required = true) long skippedSettled,
                                    @JsonProperty(value = "skippedStale", required = true) long skippedStale,
                                    @JsonProperty(value = "alreadyCommanded", required = true) long alreadyCommanded,
                                    @JsonProperty(value = "malformed", required = true) long malformed,
                                    @JsonProperty(value = "wouldRelease", required = true) long wouldRelease,
                                    @JsonProperty("candidatesRead") Long candidatesRead,
                                    @JsonProperty("leftIndex") Long leftIndex,
                                    @JsonProperty("heldForFeed") Long heldForFeed) {
        return new ReconcileTotals(pages, candidates, releaseRequested, skippedSettled, skippedStale, alreadyCommanded, malformed, wouldRelease,
                candidatesRead == null ? 0 : candidatesRead, leftIndex == null ? 0 : leftIndex, heldForFeed == null ? 0 : heldForFeed);
    }

    /** The totals as runs before {@code heldForFeed} reported them. */
    public ReconcileTotals(long pages, long candidates, long releaseRequested, long skippedSettled, long skippedStale,
                           long alreadyCommanded, long malformed, long wouldRelease, long candidatesRead, long leftIndex) {
        this(pages, candidates, releaseRequested, skippedSettled, skippedStale, alreadyCommanded, malformed, wouldRelease, candidatesRead, leftIndex, 0);
    }

    /** The totals as runs before {@code candidatesRead} and {@code leftIndex} reported them. */
    public ReconcileTotals(long pages, long candidates, long releaseRequested, long skippedSettled,
                           long skippedStale, long alreadyCommanded, long malformed, long wouldRelease) {
        this(pages, candidates, releaseRequested, skippedSettled, skippedStale, alreadyCommanded, malformed, wouldRelease, 0, 0, 0);
    }

    ReconcileTotals withPage() {
        return new ReconcileTotals(pages + 1, candidates, releaseRequested, skippedSettled, skippedStale, alreadyCommanded, malformed, wouldRelease, candidatesRead, leftIndex, heldForFeed);
    }

    ReconcileTotals with(ReleaseOutcome outcome) {
        long c = candidates + 1;
        return switch (outcome) {
            case ReleaseOutcome.Committed ignored -> new ReconcileTotals(pages, c, releaseRequested + 1, skippedSettled, skippedStale, alreadyCommanded, malformed, wouldRelease, candidatesRead, leftIndex, heldForFeed);
            case ReleaseOutcome.Settled ignored -> new ReconcileTotals(pages, c, releaseRequested, skippedSettled + 1, skippedStale, alreadyCommanded, malformed, wouldRelease, candidatesRead, leftIndex, heldForFeed);
            case ReleaseOutcome.Stale ignored -> new ReconcileTotals(pages, c, releaseRequested, skippedSettled, skippedStale + 1, alreadyCommanded, malformed, wouldRelease, candidatesRead, leftIndex, heldForFeed);
            case ReleaseOutcome.AlreadyCommanded ignored -> new ReconcileTotals(pages, c, releaseRequested, skippedSettled, skippedStale, alreadyCommanded + 1, malformed, wouldRelease, candidatesRead, leftIndex, heldForFeed);
            case ReleaseOutcome.Malformed ignored -> new ReconcileTotals(pages, c, releaseRequested, skippedSettled, skippedStale, alreadyCommanded, malformed + 1, wouldRelease, candidatesRead, leftIndex, heldForFeed);
            case ReleaseOutcome.Fenced ignored -> throw new IllegalArgumentException("a fenced outcome ends the run; it is not counted");
            case ReleaseOutcome.Contention ignored -> throw new IllegalArgumentException("contention is retried by the workflow; it is not counted");
        };
    }

    ReconcileTotals withMalformed(int n) {
        return new ReconcileTotals(pages, candidates, releaseRequested, skippedSettled, skippedStale, alreadyCommanded, malformed + n, wouldRelease, candidatesRead, leftIndex, heldForFeed);
    }

    ReconcileTotals withDryRunDecision(boolean settled) {
        return new ReconcileTotals(pages, candidates + 1, releaseRequested, skippedSettled + (settled ? 1 : 0), skippedStale,
                alreadyCommanded, malformed, wouldRelease + (settled ? 0 : 1), candidatesRead, leftIndex, heldForFeed);
    }

    ReconcileTotals withRead(int items) {
        return new ReconcileTotals(pages, candidates, releaseRequested, skippedSettled, skippedStale, alreadyCommanded, malformed, wouldRelease,
                candidatesRead + items, leftIndex, heldForFeed);
    }

    /** A due candidate held for feed: decided (counted as a candidate), neither released nor would-release. */
    ReconcileTotals withHeldForFeed() {
        return new ReconcileTotals(pages, candidates + 1, releaseRequested, skippedSettled, skippedStale, alreadyCommanded, malformed, wouldRelease,
                candidatesRead, leftIndex, heldForFeed + 1);
    }

    ReconcileTotals withLeftIndex(int removed) {
        return new ReconcileTotals(pages, candidates, releaseRequested, skippedSettled, skippedStale, alreadyCommanded, malformed, wouldRelease,
                candidatesRead, leftIndex + removed, heldForFeed);
    }
}
