package com.payments.reconciler.reconcile;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * When an authorisation is due for release (docs/design.md, "Holds valid longer"): not before
 * max(authorisedAt + grace, holdUntil). The grace period is the night's rule for any hold; {@code holdUntil} (contract
 * version 2, on a create or an increment) is the validity the network gave this one, e.g. a hotel's 31 days. Pure: the
 * window's start comes from the execution input, never a clock, so a rerun decides the same way.
 */
public final class HoldValidity {

    private HoldValidity() {
    }

    /** The first instant the authorisation may be released at. */
    public static Instant dueAt(Instant authorisedAt, Optional<Instant> holdUntil, Duration grace) {
        Instant byGrace = authorisedAt.plus(grace);
        return holdUntil.filter(until -> until.isAfter(byGrace)).orElse(byGrace);
    }

    /**
     * Whether the window starting at {@code windowStart} may release it: authorised before the cutoff (windowStart - grace,
     * strictly, as the pending-by-age query reads) and its validity not after the window's start.
     */
    public static boolean dueInWindow(Instant authorisedAt, Optional<Instant> holdUntil, Duration grace, Instant windowStart) {
        return authorisedAt.plus(grace).isBefore(windowStart) && holdUntil.map(until -> !until.isAfter(windowStart)).orElse(true);
    }

    public static boolean dueInWindow(Candidate candidate, Duration grace, Instant windowStart) {
        return dueInWindow(candidate.authorisedAt(), candidate.holdUntil(), grace, windowStart);
    }
}
