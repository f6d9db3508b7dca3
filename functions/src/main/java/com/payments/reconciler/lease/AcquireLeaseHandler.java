package com.payments.reconciler.lease;

import com.amazonaws.services.lambda.runtime.Context;
import com.payments.reconciler.workflow.HandlerEnvironment;
import com.payments.reconciler.workflow.JsonHandler;
import com.payments.reconciler.workflow.LeaseHeld;
import com.payments.reconciler.workflow.Timing;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes over the job's lease for this run: the returned epoch is the fencing token every later task
 * presents. A lease another run still holds is {@link LeaseHeld}, which the workflow retries for a
 * bounded time before failing as {@code LeaseHeldByAnotherRun}.
 */
public final class AcquireLeaseHandler extends JsonHandler<AcquireRequest, LeaseToken> {

    private static final Logger LOG = LoggerFactory.getLogger(AcquireLeaseHandler.class);
    private final LeaseStore leases;
    private final String leaseName;
    private final Clock clock;

    public AcquireLeaseHandler() {
        this(HandlerEnvironment.fromSystem());
    }

    public AcquireLeaseHandler(HandlerEnvironment env) {
        this(new LeaseStore(env.aws().dynamo(), env.tables().leases(), Timing.LEASE_DURATION), env.leaseName(), env.clock());
    }

    public AcquireLeaseHandler(LeaseStore leases, String leaseName, Clock clock) {
        super(AcquireRequest.class);
        this.leases = leases;
        this.leaseName = leaseName;
        this.clock = clock;
    }

    @Override
    protected LeaseToken handle(AcquireRequest request, Context context) {
        AcquireResult result = leases.acquire(leaseName, request.ownerId(), clock.instant());
        return switch (result) {
            case AcquireResult.Acquired acquired -> {
                LOG.info("lease {} acquired at epoch {} by {} for window {}{}", leaseName, acquired.lease().epoch(),
                        request.ownerId(), request.window().windowId(), acquired.retried() ? " (retry after a lost response)" : "");
                yield acquired.lease().token();
            }
            case AcquireResult.Held held -> throw new LeaseHeld("lease " + leaseName + " is held by " + held.owner()
                    + " at epoch " + held.epoch() + " until " + held.until() + "; window " + request.window().windowId()
                    + " waits for it to be released or to expire");
        };
    }
}
