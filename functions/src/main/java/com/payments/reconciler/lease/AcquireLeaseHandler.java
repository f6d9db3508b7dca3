package com.payments.reconciler.lease;

import com.amazonaws.services.lambda.runtime.Context;
import com.payments.reconciler.workflow.HandlerEnvironment;
import com.payments.reconciler.workflow.JsonHandler;
import com.payments.reconciler.workflow.LeaseHeld;
import com.payments.reconciler.workflow.Timing;
import com.payments.reconciler.window.NightWindow;
import com.payments.reconciler.window.WindowConfig;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes over the job's lease for this run: the returned epoch is the fencing token every later task
 * presents. A lease another run still holds is {@link LeaseHeld}, which the workflow retries for a
 * bounded time before failing as {@code LeaseHeldByAnotherRun}.
 */
public final class AcquireLeaseHandler extends JsonHandler<AcquireRequest, AcquiredNight> {

    private static final Logger LOG = LoggerFactory.getLogger(AcquireLeaseHandler.class);
    private final LeaseStore leases;
    private final String leaseName;
    private final WindowConfig config;
    private final Clock clock;

    public AcquireLeaseHandler() {
        this(HandlerEnvironment.fromSystem());
    }

    public AcquireLeaseHandler(HandlerEnvironment env) {
        this(new LeaseStore(env.aws().dynamo(), env.tables().leases(), Timing.LEASE_DURATION), env.leaseName(),
                WindowConfig.fromEnvironment(env), env.clock());
    }

    public AcquireLeaseHandler(LeaseStore leases, String leaseName, WindowConfig config, Clock clock) {
        super(AcquireRequest.class);
        this.leases = leases;
        this.leaseName = leaseName;
        this.config = config;
        this.clock = clock;
    }

    @Override
    protected AcquiredNight handle(AcquireRequest request, Context context) {
        // The night from the input's window and the deployed configuration, before anything is written: a window whose
        // start has not passed (a console start) is refused here as the schedule and the operator's commands refuse it.
        NightWindow night = config.resolve(request.window());
        config.requireStarted(request.window().window(), clock.instant());
        AcquireResult result = leases.acquire(leaseName, request.ownerId(), clock.instant());
        return switch (result) {
            case AcquireResult.Acquired acquired -> {
                LOG.info("lease {} acquired at epoch {} by {} for window {}{}", leaseName, acquired.lease().epoch(),
                        request.ownerId(), request.window().windowId(), acquired.retried() ? " (retry after a lost response)" : "");
                // Every shard a night ever ran with is read, so lowering `shards` strands nothing (docs/decisions.md, "Shard changes").
                NightWindow read = night.withShards(leases.recordShards(leaseName, night.shards()));
                LOG.info("window {}: grace {} from the deployment, cutoff {}, shards {} deployed, {} read", read.windowId(), read.gracePeriod(),
                        read.cutoff(), night.shards(), read.shards());
                yield new AcquiredNight(read, acquired.lease().token());
            }
            case AcquireResult.Held held -> throw new LeaseHeld("lease " + leaseName + " is held by " + held.owner()
                    + " at epoch " + held.epoch() + " until " + held.until() + "; window " + request.window().windowId()
                    + " waits for it to be released or to expire");
        };
    }
}
