package com.payments.reconciler.delivery;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Counts a person reads in the console for one shard's delivery.
 *
 * @param batches DeliverCommands calls that ran for this shard
 * @param delivered commands the provider confirmed (including repeats answered from its idempotency record)
 * @param rejected commands the provider refused permanently (recorded REJECTED, alarmed on)
 * @param attempts provider requests made (retries included)
 * @param cancelledSettled commands not sent because their authorisation had settled meanwhile
 * @param quarantined commands parked because the provider answered outside its contract (alarmed on)
 * @param escalated commands parked because they outlived automatic delivery (alarmed on)
 * @param backlogLeft commands left PENDING for the next run when the shard's delivery ended (alarmed on)
 * @param throttledAnswers provider answers that were throttling (429, or 503 with Retry-After)
 * @param throttledMillis time sending was paused by those answers
 * @param cancelledEnded commands not sent because their authorisation ended (voided, expired) meanwhile
 * @param acknowledged commands an asynchronous provider took (ACKNOWLEDGED: sent, outcome awaited)
 * @param heldForFeed commands not sent because a hold for feed stands for their authorisation, or because the ingestion
 *                    dead-letter queue held messages (or could not be read) when the call began: they stay PENDING
 * @param sent commands ended that were sent to the provider ({@link ShardPlan#usedQuota}: its answer, or any end after a
 *             request), what the shard's plan counts against its allotment; unlike {@code attempts}, a command counts
 *             once however many requests it took
 */
public record DeliveryTotals(long batches, long delivered, long rejected, long attempts,
                             long cancelledSettled, long quarantined, long escalated,
                             long backlogLeft, long throttledAnswers, long throttledMillis, long cancelledEnded,
                             long acknowledged, long heldForFeed, long sent) {

    public static final DeliveryTotals ZERO = new DeliveryTotals(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    /**
     * Totals written before {@code sent} was counted: that build's plan counted every command ended, so they read as all
     * sent. A shard redriven from such an input then starts no more than the older build would have: never past its plan.
     */
    public DeliveryTotals(long batches, long delivered, long rejected, long attempts,
                          long cancelledSettled, long quarantined, long escalated,
                          long backlogLeft, long throttledAnswers, long throttledMillis, long cancelledEnded,
                          long acknowledged, long heldForFeed) {
        this(batches, delivered, rejected, attempts, cancelledSettled, quarantined, escalated, backlogLeft, throttledAnswers,
                throttledMillis, cancelledEnded, acknowledged, heldForFeed,
                ended(delivered, rejected, cancelledSettled, cancelledEnded, quarantined, escalated, acknowledged));
    }

    /** Totals written before commands could be held for feed. */
    public DeliveryTotals(long batches, long delivered, long rejected, long attempts,
                          long cancelledSettled, long quarantined, long escalated,
                          long backlogLeft, long throttledAnswers, long throttledMillis, long cancelledEnded, long acknowledged) {
        this(batches, delivered, rejected, attempts, cancelledSettled, quarantined, escalated, backlogLeft, throttledAnswers,
                throttledMillis, cancelledEnded, acknowledged, 0);
    }

    /** Totals of a provider that answers every request at once (no ACKNOWLEDGED commands). */
    public DeliveryTotals(long batches, long delivered, long rejected, long attempts,
                          long cancelledSettled, long quarantined, long escalated,
                          long backlogLeft, long throttledAnswers, long throttledMillis, long cancelledEnded) {
        this(batches, delivered, rejected, attempts, cancelledSettled, quarantined, escalated, backlogLeft, throttledAnswers,
                throttledMillis, cancelledEnded, 0);
    }

    /** Totals of a call that ended no command without calling the provider. */
    public DeliveryTotals(long batches, long delivered, long rejected, long attempts) {
        this(batches, delivered, rejected, attempts, 0, 0, 0);
    }

    public DeliveryTotals(long batches, long delivered, long rejected, long attempts,
                          long cancelledSettled, long quarantined, long escalated) {
        this(batches, delivered, rejected, attempts, cancelledSettled, quarantined, escalated, 0, 0, 0, 0);
    }

    /** Totals written before commands could end CANCELLED_ENDED. */
    public DeliveryTotals(long batches, long delivered, long rejected, long attempts,
                          long cancelledSettled, long quarantined, long escalated,
                          long backlogLeft, long throttledAnswers, long throttledMillis) {
        this(batches, delivered, rejected, attempts, cancelledSettled, quarantined, escalated, backlogLeft, throttledAnswers,
                throttledMillis, 0);
    }

    /** Commands this shard ended one way or another, sent or not. */
    public long ended() {
        return ended(delivered, rejected, cancelledSettled, cancelledEnded, quarantined, escalated, acknowledged);
    }

    private static long ended(long delivered, long rejected, long cancelledSettled, long cancelledEnded, long quarantined,
                              long escalated, long acknowledged) {
        return delivered + rejected + cancelledSettled + cancelledEnded + quarantined + escalated + acknowledged;
    }

    /**
     * Reads the totals from a task input. The end-state and capacity counts are absent from inputs written before
     * they existed, which a redrive (up to 14 days later) replays: absent means none, anything else is strict; an
     * absent {@code sent} means every command ended (what the older build's plan counted).
     */
    @JsonCreator
    static DeliveryTotals fromJson(@JsonProperty(value = "batches", required = true) long batches,
                                   @JsonProperty(value = "delivered", required = true) long delivered,
                                   @JsonProperty(value = "rejected", required = true) long rejected,
                                   @JsonProperty(value = "attempts", required = true) long attempts,
                                   @JsonProperty("cancelledSettled") Long cancelledSettled,
                                   @JsonProperty("quarantined") Long quarantined,
                                   @JsonProperty("escalated") Long escalated,
                                   @JsonProperty("backlogLeft") Long backlogLeft,
                                   @JsonProperty("throttledAnswers") Long throttledAnswers,
                                   @JsonProperty("throttledMillis") Long throttledMillis,
                                   @JsonProperty("cancelledEnded") Long cancelledEnded,
                                   @JsonProperty("acknowledged") Long acknowledged,
                                   @JsonProperty("heldForFeed") Long heldForFeed,
                                   @JsonProperty("sent") Long sent) {
        DeliveryTotals older = new DeliveryTotals(batches, delivered, rejected, attempts, orZero(cancelledSettled), orZero(quarantined),
                orZero(escalated), orZero(backlogLeft), orZero(throttledAnswers), orZero(throttledMillis), orZero(cancelledEnded),
                orZero(acknowledged), orZero(heldForFeed));
        return sent == null ? older : older.withSent(sent);
    }

    private DeliveryTotals withSent(long count) {
        return new DeliveryTotals(batches, delivered, rejected, attempts, cancelledSettled, quarantined, escalated, backlogLeft,
                throttledAnswers, throttledMillis, cancelledEnded, acknowledged, heldForFeed, count);
    }

    private static long orZero(Long count) {
        return count == null ? 0 : count;
    }

    public DeliveryTotals plus(DeliveryTotals other) {
        return new DeliveryTotals(batches + other.batches, delivered + other.delivered,
                rejected + other.rejected, attempts + other.attempts, cancelledSettled + other.cancelledSettled,
                quarantined + other.quarantined, escalated + other.escalated, backlogLeft + other.backlogLeft,
                throttledAnswers + other.throttledAnswers, throttledMillis + other.throttledMillis, cancelledEnded + other.cancelledEnded,
                acknowledged + other.acknowledged, heldForFeed + other.heldForFeed, sent + other.sent);
    }
}
