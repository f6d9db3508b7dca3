package com.payments.reconciler.reconcile;

import java.util.List;
import java.util.stream.IntStream;

/**
 * The reconcile loop's state between ReconcilePage calls: output of one call, {@code page} input of
 * the next. The workflow's first call passes {@code {"cursor": null}}.
 *
 * @param cursor where to resume, or null to start at shard 0
 * @param more whether candidates may remain (the workflow's Choice loops on it)
 * @param totals running counts
 * @param deliveryShards the outbox shards the delivery Map iterates over (small: one integer per shard)
 */
public record PageState(Cursor cursor, Boolean more, ReconcileTotals totals, List<Integer> deliveryShards) {

    public PageState {
        more = more == null || more;
        totals = totals == null ? ReconcileTotals.ZERO : totals;
        deliveryShards = deliveryShards == null ? List.of() : List.copyOf(deliveryShards);
    }

    static List<Integer> allShards(int shards) {
        return IntStream.range(0, shards).boxed().toList();
    }
}
