package com.payments.reconciler.delivery;

/**
 * Counts a person reads in the console for one shard's delivery.
 *
 * @param batches DeliverCommands calls that ran for this shard
 * @param delivered commands the provider confirmed (including repeats answered from its idempotency record)
 * @param rejected commands the provider refused permanently (recorded REJECTED, alarmed on)
 * @param attempts provider requests made (retries included)
 */
public record DeliveryTotals(long batches, long delivered, long rejected, long attempts) {

    public static final DeliveryTotals ZERO = new DeliveryTotals(0, 0, 0, 0);

    public DeliveryTotals plus(DeliveryTotals other) {
        return new DeliveryTotals(batches + other.batches, delivered + other.delivered,
                rejected + other.rejected, attempts + other.attempts);
    }
}
