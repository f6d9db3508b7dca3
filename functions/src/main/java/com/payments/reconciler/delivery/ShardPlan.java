package com.payments.reconciler.delivery;

import com.payments.reconciler.workflow.ProviderQuota;
import com.payments.reconciler.workflow.Timing;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/**
 * What one shard's delivery may do this night, decided once, at the shard's first call, and carried
 * through its later calls in the workflow's state: the shard's backlog (its PENDING commands, oldest first),
 * how many of them fit at the shard's share of the quota before {@code deliverUntil} (the execution's budget
 * less {@link Timing#DELIVERY_FINISH_RESERVE}), and the pacing state a later call must honour (a
 * {@code Retry-After} still running, throttled time without an answer). Times are epoch milliseconds.
 *
 * @param allotment commands this shard ends (delivered, refused, cancelled, parked) at most this night
 */
public record ShardPlan(long backlog, long allotment, long deliverUntil, long resumeAt, long throttledSinceAnswerMillis) {

    /** The execution ends after its budget: delivery plans to stop this long before it. */
    public static Instant deliverUntil(Instant executionStartedAt) {
        return executionStartedAt.plus(Timing.EXECUTION_TIMEOUT).minus(Timing.DELIVERY_FINISH_RESERVE);
    }

    /**
     * The plan for a shard with {@code backlog} commands at {@code now}: all of them if they fit, else as many as
     * the share's rate sends before {@code deliverUntil} (one request each; retries and throttling eat into it, which
     * the stop at {@code deliverUntil} covers).
     */
    public static ShardPlan plan(long backlog, ProviderQuota.Share share, Instant now, Instant deliverUntil) {
        if (backlog < 0) {
            throw new IllegalArgumentException("backlog must not be negative, was " + backlog);
        }
        long millis = Math.max(0, Duration.between(now, deliverUntil).toMillis());
        long fits = (long) Math.floor(share.requestsPerSecond() * millis / 1000.0);
        return new ShardPlan(backlog, Math.min(backlog, fits), deliverUntil.toEpochMilli(), 0, 0);
    }

    /** An input written before plans existed (a redrive replays it): deliver as before, with no night budget. */
    public static ShardPlan unplanned() {
        return new ShardPlan(-1, Long.MAX_VALUE, Long.MAX_VALUE, 0, 0);
    }

    public boolean fitsAll() {
        return allotment >= backlog;
    }

    public boolean budgetPassed(Instant now) {
        return now.toEpochMilli() >= deliverUntil;
    }

    /**
     * Commands a call may still start under the plan: none once the budget passed, else what the allotment leaves
     * after the shard's earlier calls ended {@code endedBefore} and this call started {@code started}.
     */
    public long startable(long endedBefore, long started, Instant now) {
        if (budgetPassed(now)) {
            return 0;
        }
        return Math.max(0, allotment - endedBefore - started);
    }

    /**
     * Whether the shard has ended as many commands as the plan allows tonight ({@code ended} over all its calls), or
     * its budget is over; the clock is read only when the allotment is not reached.
     */
    public boolean spent(long ended, InstantSource clock) {
        return ended >= allotment || budgetPassed(clock.instant());
    }

    /** The same plan with the pacing state the next call of the shard must honour. */
    public ShardPlan withPacing(Instant resumeAt, long throttledSinceAnswerMillis) {
        return new ShardPlan(backlog, allotment, deliverUntil, resumeAt.toEpochMilli(), throttledSinceAnswerMillis);
    }
}
