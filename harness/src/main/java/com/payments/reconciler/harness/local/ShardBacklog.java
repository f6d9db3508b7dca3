package com.payments.reconciler.harness.local;

import com.payments.reconciler.workflow.LambdaFunction;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntToLongFunction;

/**
 * Each delivery shard's backlog, the "of m" of its progress line: its PENDING commands counted once, when the night's
 * first DeliverCommands invocation arrives and before any of them runs (every DeliverCommands invocation waits for the
 * count), so no release has been performed yet and the count is the whole backlog — counted later, a command performed
 * but not yet marked DELIVERED (marks are written in batches) would be counted twice. The count is the shard's own
 * ({@code PendingCommands.count}, what its plan reads), a few COUNT queries on the pending-delivery index.
 */
final class ShardBacklog implements InvocationHook {

    private final int shards;
    private final IntToLongFunction pending;
    private volatile Map<Integer, Long> counted;

    /** {@code pending}: a shard's PENDING commands now. */
    ShardBacklog(int shards, IntToLongFunction pending) {
        this.shards = shards;
        this.pending = pending;
    }

    @Override
    public InjectedFailure before(LambdaFunction function, int invocation, byte[] payload) {
        if (function == LambdaFunction.DELIVER_COMMANDS && counted == null) {
            countOnce();
        }
        return null;
    }

    private synchronized void countOnce() {
        if (counted != null) {
            return;
        }
        Map<Integer, Long> backlog = new LinkedHashMap<>();
        try {
            for (int shard = 0; shard < shards; shard++) {
                backlog.put(shard, pending.applyAsLong(shard));
            }
        } catch (RuntimeException e) {
            // Progress only: a failed count leaves the lines without "of m", and never fails an invocation.
            backlog = Map.of();
        }
        counted = Map.copyOf(backlog);
    }

    /** Per shard, its commands when delivery started; empty before the first DeliverCommands invocation. */
    Map<Integer, Long> counted() {
        return Optional.ofNullable(counted).orElse(Map.of());
    }
}
