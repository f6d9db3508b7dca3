package com.payments.reconciler.delivery;

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
 */
public record DeliveryTotals(long batches, long delivered, long rejected, long attempts,
                             long cancelledSettled, long quarantined, long escalated) {

    public static final DeliveryTotals ZERO = new DeliveryTotals(0, 0, 0, 0, 0, 0, 0);

    /** Totals of a call that ended no command without calling the provider. */
    public DeliveryTotals(long batches, long delivered, long rejected, long attempts) {
        this(batches, delivered, rejected, attempts, 0, 0, 0);
    }

    public DeliveryTotals plus(DeliveryTotals other) {
        return new DeliveryTotals(batches + other.batches, delivered + other.delivered,
                rejected + other.rejected, attempts + other.attempts, cancelledSettled + other.cancelledSettled,
                quarantined + other.quarantined, escalated + other.escalated);
    }
}
