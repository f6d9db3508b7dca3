package com.payments.reconciler.lease;

import com.payments.reconciler.delivery.DeliveryTotals;
import com.payments.reconciler.reconcile.ReconcileTotals;
import java.time.Duration;
import java.time.Instant;

/**
 * The run's output, as the Step Functions console shows it on the final state: which window, which
 * epoch decided it, and the counts a person checks ("released 412, 3 settled meanwhile, all delivered").
 *
 * @param gracePeriod the grace the night decided with: the deployment's when AcquireLease resolved the window
 * @param cutoff the cutoff it decided with (window start minus that grace)
 * @param outcome {@code COMPLETED}, or {@code FAILED: <error>} when written on the failure path
 */
public record RunSummary(String windowId, Duration gracePeriod, Instant cutoff, long epoch, String outcome, ReconcileTotals reconcile,
                         DeliveryTotals delivery) {
}
