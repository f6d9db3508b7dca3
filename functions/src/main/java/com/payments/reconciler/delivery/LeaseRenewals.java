package com.payments.reconciler.delivery;

import com.payments.reconciler.lease.LeaseStore;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.workflow.Timing;

import java.time.Clock;
import java.time.Instant;

/**
 * One delivery call's lease renewals: at its start, then at least every {@link Timing#LEASE_RENEW_INTERVAL} while it
 * coordinates or waits. A failed renewal after the start halts the call through its {@link DeliveryFailures}, so the
 * deliveries in flight finish and their answers are marked instead of the error escaping past them.
 */
final class LeaseRenewals {

    private final LeaseStore leases;
    private final LeaseToken lease;
    private final Clock clock;
    private final DeliveryFailures failures;
    private Instant lastRenewal;

    LeaseRenewals(LeaseStore leases, LeaseToken lease, Clock clock, DeliveryFailures failures) {
        this.leases = leases;
        this.lease = lease;
        this.clock = clock;
        this.failures = failures;
    }

    void renewIfDue() {
        if (failures.superseded() || clock.instant().isBefore(lastRenewal.plus(Timing.LEASE_RENEW_INTERVAL))) {
            return;
        }
        try {
            renew();
        } catch (RuntimeException e) {
            // Not only LeaseLost and StoreContention: whatever ends the renewal halts the call here, so the
            // deliveries in flight finish and their answers are marked, instead of escaping past them.
            failures.add(e);
        }
    }

    /** Renews now; a refusal is thrown (the call's first renewal: nothing was done yet). */
    void renew() {
        Instant now = clock.instant();
        leases.renew(lease, now);
        lastRenewal = now;
    }
}
