package com.payments.reconciler.lease;

import com.amazonaws.services.lambda.runtime.Context;
import com.payments.reconciler.delivery.DeliveryTotals;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.HandlerEnvironment;
import com.payments.reconciler.workflow.JsonHandler;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.LeaseLost;
import com.payments.reconciler.workflow.Metrics;
import com.payments.reconciler.workflow.Timing;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the lease back at the end of a run and builds the run's summary. A failed run does not come
 * here: it keeps its lease so that a redrive can renew it (docs/decisions.md, Redrive). Release checks owner and epoch and keeps the record and its epoch;
 * a lease another run has taken meanwhile is {@link LeaseLost}, which ends the run as Superseded.
 */
public final class ReleaseLeaseHandler extends JsonHandler<ReleaseRequest, RunSummary> {

    private static final Logger LOG = LoggerFactory.getLogger(ReleaseLeaseHandler.class);
    private final LeaseStore leases;
    private final EmfMetrics metrics;
    private final Clock clock;

    public ReleaseLeaseHandler() {
        this(HandlerEnvironment.fromSystem());
    }

    public ReleaseLeaseHandler(HandlerEnvironment env) {
        this(new LeaseStore(env.aws().dynamo(), env.tables().leases(), Timing.LEASE_DURATION),
                EmfMetrics.toStdout(env.clock(), LambdaFunction.RELEASE_LEASE.logicalName()), env.clock());
    }

    public ReleaseLeaseHandler(LeaseStore leases, EmfMetrics metrics, Clock clock) {
        super(ReleaseRequest.class);
        this.leases = leases;
        this.metrics = metrics;
        this.clock = clock;
    }

    @Override
    protected RunSummary handle(ReleaseRequest request, Context context) {
        leases.release(request.lease(), clock.instant());
        DeliveryTotals delivery = request.deliveries().stream().reduce(DeliveryTotals.ZERO, DeliveryTotals::plus);
        boolean failed = !request.failure().isEmpty();
        String outcome = failed ? "FAILED: " + request.failure().getOrDefault("Error", "unknown error") : "COMPLETED";
        RunSummary summary = new RunSummary(request.window().windowId(), request.window().gracePeriod(), request.window().cutoff(), request.lease().epoch(), outcome, request.reconcile(), delivery);
        if (!failed) {
            Map<String, Long> counts = new LinkedHashMap<>();
            counts.put(Metrics.DELIVERIES, delivery.delivered());
            counts.put(Metrics.DELIVERY_REJECTED, delivery.rejected());
            counts.put(Metrics.DELIVERY_CANCELLED_SETTLED, delivery.cancelledSettled());
            counts.put(Metrics.DELIVERY_CANCELLED_ENDED, delivery.cancelledEnded());
            counts.put(Metrics.DELIVERY_QUARANTINED, delivery.quarantined());
            counts.put(Metrics.DELIVERY_ESCALATED, delivery.escalated());
            counts.put(Metrics.NIGHT_CANDIDATES, request.reconcile().candidates());
            counts.put(Metrics.NIGHT_WOULD_RELEASE, request.reconcile().wouldRelease());
            counts.put(Metrics.NIGHT_RELEASED, request.reconcile().releaseRequested());
            counts.put(Metrics.NIGHT_SETTLED_AFTER_DECISION, delivery.cancelledSettled());
            metrics.count(counts);
        }
        LOG.info("window {} epoch {} {}: lease released; {} released, {} delivered, {} rejected, {} cancelled as settled, "
                        + "{} cancelled as ended, {} quarantined, {} escalated", summary.windowId(), summary.epoch(), outcome,
                request.reconcile().releaseRequested(), delivery.delivered(), delivery.rejected(), delivery.cancelledSettled(),
                delivery.cancelledEnded(), delivery.quarantined(), delivery.escalated());
        return summary;
    }
}
