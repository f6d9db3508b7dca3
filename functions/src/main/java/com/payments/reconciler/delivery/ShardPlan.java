package com.payments.reconciler.delivery;

import com.payments.reconciler.reconcile.DeliveryRecord;
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
 * <p>
 * The allotment counts commands sent to the provider ({@link #usedQuota}), not every command the shard ends: a command
 * cancelled as settled or ended, or escalated, without a request, and one a hold for feed keeps PENDING, use none of
 * the quota, so a backlog night where many commands settle before delivery still sends as many as fit.
 *
 * @param allotment commands this shard sends to the provider at most this night (one request each; see {@link #usedQuota})
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
     * Whether a command that ended with {@code result} after {@code requests} provider requests of this call counts
     * against the allotment: it was sent, so it took its place in the quota. The provider's answer (delivered, refused,
     * acknowledged, or outside its contract, which quarantines it) was sent for, tonight or in an earlier attempt whose
     * answer the operation guard recorded (a call that died after its request spent that quota tonight too); any other
     * end counts after at least one request (a cancellation after unanswered requests, an escalation after a status
     * lookup). Cancelled as settled or ended, or escalated, with no request: not counted, no quota was used.
     */
    public static boolean usedQuota(DeliveryRecord.Result result, int requests) {
        return switch (result) {
            case DeliveryRecord.Result.Delivered d -> true;
            case DeliveryRecord.Result.Rejected r -> true;
            case DeliveryRecord.Result.Acknowledged a -> true;
            case DeliveryRecord.Result.Quarantined q -> true;
            case DeliveryRecord.Result.CancelledSettled c -> requests > 0;
            case DeliveryRecord.Result.CancelledEnded c -> requests > 0;
            case DeliveryRecord.Result.Escalated e -> requests > 0;
            case DeliveryRecord.Result.OutcomeOverdue o -> requests > 0;
        };
    }

    /**
     * Commands a call may still start under the plan: none once the budget passed, else what the allotment leaves
     * after the shard's earlier calls sent {@code sentBefore} ({@link DeliveryTotals#sent()}) and this call started
     * {@code started} (less those it started that ended or stayed without a request).
     */
    public long startable(long sentBefore, long started, Instant now) {
        if (budgetPassed(now)) {
            return 0;
        }
        return Math.max(0, allotment - sentBefore - started);
    }

    /**
     * Whether the shard has sent as many commands as the plan allows tonight ({@code sent} over all its calls,
     * {@link DeliveryTotals#sent()}), or its budget is over; the clock is read only when the allotment is not reached.
     */
    public boolean spent(long sent, InstantSource clock) {
        return sent >= allotment || budgetPassed(clock.instant());
    }

    /** The same plan with the pacing state the next call of the shard must honour. */
    public ShardPlan withPacing(Instant resumeAt, long throttledSinceAnswerMillis) {
        return new ShardPlan(backlog, allotment, deliverUntil, resumeAt.toEpochMilli(), throttledSinceAnswerMillis);
    }
}
