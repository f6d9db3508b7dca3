package com.payments.reconciler.delivery;

/**
 * Output of one DeliverCommands call, and the next call's {@code batch} input for the same shard.
 *
 * @param more whether pending commands may remain in this shard (the workflow calls again)
 * @param totals running totals for this shard across its calls
 */
public record DeliveryBatch(boolean more, DeliveryTotals totals) {

    public static final DeliveryBatch FIRST = new DeliveryBatch(true, DeliveryTotals.ZERO);

    public DeliveryBatch {
        if (totals == null) {
            totals = DeliveryTotals.ZERO;
        }
    }
}
