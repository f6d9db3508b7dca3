package com.payments.reconciler.lease;

import com.payments.reconciler.delivery.DeliveryTotals;
import com.payments.reconciler.reconcile.ReconcileTotals;
import com.payments.reconciler.window.NightWindow;
import com.payments.reconciler.workflow.InvalidInput;
import com.payments.reconciler.workflow.LogContext;
import java.util.List;
import java.util.Map;

/**
 * Input of ReleaseLease at the end of a run: the loop's totals and each shard's delivery totals.
 *
 * @param failure a Catch's {@code {Error, Cause}}: sent only by the definition before the redrive decision
 *                (its ReleaseLeaseAfterFailure state); still accepted so such an execution's input parses
 */
public record ReleaseRequest(NightWindow window, LeaseToken lease, ReconcileTotals reconcile,
                             List<DeliveryTotals> deliveries, Map<String, String> failure) implements LogContext {

    public ReleaseRequest {
        if (window == null) {
            throw new InvalidInput("window", "required, the execution input");
        }
        if (lease == null) {
            throw new InvalidInput("lease", "required, {leaseName, ownerId, epoch} from AcquireLease");
        }
        reconcile = reconcile == null ? ReconcileTotals.ZERO : reconcile;
        deliveries = deliveries == null ? List.of() : List.copyOf(deliveries);
        failure = failure == null ? Map.of() : Map.copyOf(failure);
    }

    @Override
    public Map<String, String> logContext() {
        return LogContext.of(window.windowId(), lease.ownerId(), lease.epoch());
    }
}
