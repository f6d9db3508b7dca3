package com.payments.reconciler.reconcile;

import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.window.NightWindow;
import com.payments.reconciler.workflow.InvalidInput;
import com.payments.reconciler.workflow.LogContext;
import java.util.Map;

/** Input of ReconcilePage: the window (for its cutoff), our lease token, and where the loop stands. */
public record PageRequest(NightWindow window, LeaseToken lease, PageState page) implements LogContext {

    public PageRequest {
        if (window == null) {
            throw new InvalidInput("window", "required, the execution input");
        }
        if (lease == null) {
            throw new InvalidInput("lease", "required, {leaseName, ownerId, epoch} from AcquireLease");
        }
        if (page == null) {
            throw new InvalidInput("page", "required, {\"cursor\": null} on the first call, then the previous call's output");
        }
        if (page.cursor() != null && page.cursor().shard() >= window.shards()) {
            throw new InvalidInput("page.cursor.shard", "must be below the window's shards (" + window.shards() + "), was " + page.cursor().shard());
        }
    }

    @Override
    public Map<String, String> logContext() {
        return LogContext.of(window.windowId(), lease.ownerId(), lease.epoch());
    }
}
