package com.payments.reconciler.harness.local;

import com.payments.reconciler.store.Attr;
import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.workflow.EnvVars;
import java.time.Duration;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The operator's wait before a rerun of a failed night. A failed run keeps its lease so that a redrive can renew it
 * (docs/decisions.md, Redrive); the runbook's rerun waits until it has expired, or AcquireLease's bounded wait may end
 * LeaseHeldByAnotherRun. Locally the wait is the run's clock moved past the expiry, not minutes of real time.
 */
public final class FailedRunLease {

    private FailedRunLease() {
    }

    /** Moves {@code clock} a second past the held lease's expiry; how far it moved (zero when the lease is free or expired). */
    public static Duration waitOut(LocalPipeline pipeline, ShiftableClock clock) {
        Map<String, AttributeValue> lease = pipeline.dynamo().getItem(b -> b.tableName(pipeline.tables().leases()).consistentRead(true)
                .key(Map.of(Leases.LEASE_NAME, AttributeValue.fromS(EnvVars.DEFAULT_LEASE_NAME)))).item();
        if (lease == null || !lease.containsKey(Leases.OWNER)) {
            return Duration.ZERO;
        }
        long remaining = Attr.numberOr(lease, Leases.EXPIRES_AT, 0) - clock.millis();
        if (remaining < 0) {
            return Duration.ZERO;
        }
        Duration wait = Duration.ofMillis(remaining).plusSeconds(1);
        clock.advance(wait);
        return wait;
    }
}
