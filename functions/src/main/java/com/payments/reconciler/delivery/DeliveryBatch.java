package com.payments.reconciler.delivery;

/**
 * Output of one DeliverCommands call, and the next call's {@code batch} input for the same shard.
 *
 * @param more whether pending commands may remain in this shard (the workflow calls again)
 * @param totals running totals for this shard across its calls
 * @param plan the shard's night plan, made by its first call (absent before it, and in inputs older than plans)
 */
public record DeliveryBatch(boolean more, DeliveryTotals totals, ShardPlan plan) {

    /** The first call's input: no totals and no plan yet (the call makes it). */
    public static final DeliveryBatch FIRST = new DeliveryBatch(true, DeliveryTotals.ZERO, null);

    public DeliveryBatch(boolean more, DeliveryTotals totals) {
        this(more, totals, null);
    }

    public DeliveryBatch {
        if (totals == null) {
            totals = DeliveryTotals.ZERO;
        }
    }
}
