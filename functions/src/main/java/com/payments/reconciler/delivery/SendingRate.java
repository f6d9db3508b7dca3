package com.payments.reconciler.delivery;

import com.payments.reconciler.workflow.ProviderQuota;
import com.payments.reconciler.workflow.Timing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * One delivery call's pace toward the provider (issue 17): a token bucket at its share of the quota (a burst
 * of one request, so no second is ever over the share), halved on every throttling answer and paused for its
 * {@code Retry-After}, recovered additively on answers (AIMD, as TCP and the AWS SDKs' adaptive mode do), never
 * above the share and never below a tenth of it. Time is read from the injected clock; nothing here sleeps.
 */
final class SendingRate {

    /** Answers it takes to climb back from the floor to the share: a gradual recovery, not a step. */
    static final int RECOVERY_ANSWERS = 20;

    private final double ceiling;
    private final double floor;
    private final Clock clock;
    private double rate;
    private Instant nextSend;
    private Instant pausedUntil;
    private long throttledMillis;
    private long throttledSinceAnswerMillis;

    SendingRate(ProviderQuota.Share share, Clock clock, Instant pausedUntil, long throttledSinceAnswerMillis) {
        this.ceiling = share.requestsPerSecond();
        this.floor = ceiling / 10;
        this.clock = clock;
        this.rate = ceiling;
        this.nextSend = clock.instant();
        this.pausedUntil = pausedUntil == null ? Instant.EPOCH : pausedUntil;
        this.throttledSinceAnswerMillis = throttledSinceAnswerMillis;
    }

    /**
     * Takes the next send time and returns how long to wait for it. A request's turn is claimed before the
     * wait, so concurrent senders queue in order and the share holds however many of them there are.
     */
    synchronized Duration claimTurn() {
        Instant now = clock.instant();
        Instant turn = latest(now, nextSend, pausedUntil);
        nextSend = turn.plusNanos((long) (1_000_000_000L / rate));
        return Duration.between(now, turn);
    }

    /** A throttling answer: slow down, and send nothing before its {@code Retry-After} (or the default pause). */
    synchronized void throttled(Duration retryAfter) {
        Instant now = clock.instant();
        rate = Math.max(floor, rate / 2);
        Instant until = now.plus(retryAfter == null ? Timing.THROTTLE_DEFAULT_PAUSE : retryAfter);
        Instant from = latest(now, pausedUntil, Instant.EPOCH);
        if (until.isAfter(from)) {
            long added = Duration.between(from, until).toMillis();
            throttledMillis += added;
            throttledSinceAnswerMillis += added;
            pausedUntil = until;
        }
    }

    /** An answer that was not throttling: climb back toward the share. */
    synchronized void answered() {
        rate = Math.min(ceiling, rate + (ceiling - floor) / RECOVERY_ANSWERS);
        throttledSinceAnswerMillis = 0;
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

    /** Paused time since the last answer that was not throttling, carried across the shard's calls. */
    synchronized long throttledSinceAnswerMillis() {
        return throttledSinceAnswerMillis;
    }

    private static Instant latest(Instant a, Instant b, Instant c) {
        Instant max = a.isAfter(b) ? a : b;
        return max.isAfter(c) ? max : c;
    }
}
