package com.payments.reconciler.delivery;

import com.payments.reconciler.workflow.ProviderQuota;
import com.payments.reconciler.workflow.Timing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Predicate;

/**
 * One delivery call's pace toward the provider: a token bucket at its share of the quota holding
 * {@link Timing#PACING_CATCH_UP} of it (at least one request), kept as the generic cell rate algorithm's one instant
 * ({@code theoretical}: when the bucket would be empty again at the current rate). Turns stay on the rate's grid: a
 * sender that comes late (the round's settlement read, marking answers, a page read) gets its missed turns at once,
 * up to the catch-up, instead of shifting every later turn. In any window of length {@code L} its turns number at
 * most {@code rate × (L + PACING_CATCH_UP)} (one more at the start of a call, whose bucket starts empty; a call starts no
 * earlier than its predecessor's next turn, {@link #resumeAt()}, and claims only turns it can use).
 * A throttling answer halves the rate and pauses every sender until its {@code Retry-After}, with the bucket empty
 * when the pause ends (no burst into a provider that has just refused); other answers climb back additively (AIMD,
 * as TCP and the AWS SDKs' adaptive mode do), never above the share nor below a tenth of it. Time is read from the
 * injected clock; nothing here sleeps.
 */
final class SendingRate {

    /** Answers it takes to climb back from the floor to the share: a gradual recovery, not a step. */
    static final int RECOVERY_ANSWERS = 20;

    private final double ceiling;
    private final double floor;
    private final Clock clock;
    private final Duration catchUp;
    private double rate;
    /** The bucket is empty at this instant (GCRA's theoretical arrival time less its tolerance, plus the tolerance). */
    private Instant theoretical;
    private Instant pausedUntil;
    private long throttledMillis;
    /**
     * When the throttling answers since the last other answer began (null: the last answer was not throttling). The clock
     * counts, not only the pauses asked for: a provider answering 429 with {@code Retry-After: 0}, or with short pauses,
     * is as throttled as one asking for long ones, and counting only the pauses let such a provider hold a night for hours.
     */
    private Instant throttledSince;

    SendingRate(ProviderQuota.Share share, Clock clock, Instant pausedUntil, long throttledSinceAnswerMillis) {
        this(share, clock, pausedUntil, throttledSinceAnswerMillis, Timing.PACING_CATCH_UP);
    }

    SendingRate(ProviderQuota.Share share, Clock clock, Instant pausedUntil, long throttledSinceAnswerMillis, Duration catchUp) {
        if (catchUp.isNegative()) {
            throw new IllegalArgumentException("the pacing catch-up must not be negative, was " + catchUp);
        }
        this.ceiling = share.requestsPerSecond();
        this.floor = ceiling / 10;
        this.clock = clock;
        this.catchUp = catchUp;
        this.rate = ceiling;
        this.pausedUntil = pausedUntil == null ? Instant.EPOCH : pausedUntil;
        this.throttledSince = throttledSinceAnswerMillis > 0
                ? latest(clock.instant(), this.pausedUntil, Instant.EPOCH).minusMillis(throttledSinceAnswerMillis) : null;
        // Empty at the start: the previous call of the shard may have spent its bucket just before it returned.
        this.theoretical = latest(clock.instant(), this.pausedUntil, Instant.EPOCH).plus(tolerance());
    }

    /**
     * Takes the next send time and returns how long to wait for it. A request's turn is claimed before the
     * wait, so concurrent senders queue in order and the share holds however many of them there are.
     */
    synchronized Duration claimTurn() {
        return claimTurn(wait -> true).delay();
    }

    /**
     * The next send time's wait, claimed only if {@code usable} accepts it. A turn the call cannot use (its wait would
     * pass the call's deadline) is left for the shard's next call, which starts at {@link #resumeAt()}: claimed and
     * unused, each deferred sender would push the next call's start one spacing further, and a small share would fall
     * behind the clock call after call until the shard sent nothing more.
     */
    synchronized Turn claimTurn(Predicate<Duration> usable) {
        Instant now = clock.instant();
        Instant turn = latest(now, theoretical.minus(tolerance()), pausedUntil);
        Duration wait = Duration.between(now, turn);
        if (!usable.test(wait)) {
            return new Turn(wait, false);
        }
        theoretical = latest(theoretical, turn, Instant.EPOCH).plusNanos(intervalNanos());
        return new Turn(wait, true);
    }

    /** The wait for a send time, and whether it was claimed. */
    record Turn(Duration delay, boolean claimed) {
    }

    /** One request's spacing at the current rate. */
    private long intervalNanos() {
        return (long) (1_000_000_000L / rate);
    }

    /** How far ahead of its grid the bucket lets a turn come: the catch-up less one request's spacing, never below 0. */
    private Duration tolerance() {
        long nanos = catchUp.toNanos() - intervalNanos();
        return Duration.ofNanos(Math.max(0, nanos));
    }

    /** A throttling answer: slow down, and send nothing before its {@code Retry-After} (or the default pause). */
    synchronized void throttled(Duration retryAfter) {
        Instant now = clock.instant();
        rate = Math.max(floor, rate / 2);
        if (throttledSince == null) {
            throttledSince = now;
        }
        Instant until = now.plus(retryAfter == null ? Timing.THROTTLE_DEFAULT_PAUSE : retryAfter);
        Instant from = latest(now, pausedUntil, Instant.EPOCH);
        if (until.isAfter(from)) {
            throttledMillis += Duration.between(from, until).toMillis();
            pausedUntil = until;
        }
        // Empty when the pause ends: the first turn after it is its end, the next one interval later.
        theoretical = latest(theoretical, pausedUntil.plus(tolerance()), Instant.EPOCH);
    }

    /** An answer that was not throttling: climb back toward the share. */
    synchronized void answered() {
        rate = Math.min(ceiling, rate + (ceiling - floor) / RECOVERY_ANSWERS);
        throttledSince = null;
    }

    synchronized double rate() {
        return rate;
    }

    synchronized Instant pausedUntil() {
        return pausedUntil;
    }

    /** Time this call's sending was paused by throttling answers. */
    synchronized long throttledMillis() {
        return throttledMillis;
    }

    /**
     * How long the provider has throttled without one other answer: from the first of the throttling answers that followed
     * the last other answer to now, or to the end of the pause it asked for when that is later (a pause asked for is
     * time the provider has said it will not serve). Carried across the shard's calls.
     */
    synchronized long throttledSinceAnswerMillis() {
        return throttledSince == null ? 0
                : Math.max(0, Duration.between(throttledSince, latest(clock.instant(), pausedUntil, Instant.EPOCH)).toMillis());
    }

    /**
     * When the shard's next call may send its first request: the end of a pause, or the bucket's next turn at the current
     * rate, whichever is later. A call's bucket starts empty, so without the latter each call of a shard could send one
     * request at once however small its share (at 0.0025 requests/s a call of 100 s would send 1 where 0.25 are due).
     */
    synchronized Instant resumeAt() {
        return latest(pausedUntil, theoretical.minus(tolerance()), Instant.EPOCH);
    }

    private static Instant latest(Instant a, Instant b, Instant c) {
        Instant max = a.isAfter(b) ? a : b;
        return max.isAfter(c) ? max : c;
    }
}
