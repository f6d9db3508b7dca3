package com.payments.reconciler.delivery;

import com.payments.reconciler.lease.Lease;
import com.payments.reconciler.lease.LeaseStore;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.workflow.Timing;

import java.time.Clock;
import java.time.Instant;

/**
 * One delivery call's lease renewals: at its start, then at least every {@link Timing#LEASE_RENEW_INTERVAL} while it
 * coordinates or waits. A failed renewal after the start halts the call through its {@link DeliveryFailures}, so the
 * deliveries in flight finish and their answers are marked instead of the error escaping past them. Before every
 * provider request a delivery thread asks {@link #allowsRequest()}: the lease as last renewed must outlive the request
 * by {@link Timing#LEASE_SEND_MARGIN}, or be renewed first.
 */
final class LeaseRenewals implements RequestLease {

    private final LeaseStore leases;
    private final LeaseToken lease;
    private final Clock clock;
    private final DeliveryFailures failures;
    private volatile Instant lastRenewal;
    /** The lease's expiry as last renewed: after it another worker may take over. */
    private volatile Instant expiresAt;

    LeaseRenewals(LeaseStore leases, LeaseToken lease, Clock clock, DeliveryFailures failures) {
        this.leases = leases;
        this.lease = lease;
        this.clock = clock;
        this.failures = failures;
    }

    synchronized void renewIfDue() {
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
    synchronized void renew() {
        Instant now = clock.instant();
        Lease renewed = leases.renew(lease, now);
        lastRenewal = now;
        expiresAt = renewed.expiresAt();
    }

    /**
     * Whether a provider request may leave now: checked locally against the lease's expiry as last renewed, minus
     * {@link Timing#LEASE_SEND_MARGIN}. Closer than that (the call was paused or frozen) it renews first; a refused
     * renewal halts the call (the takeover is recorded in its failures) and nothing is sent.
     */
    @Override
    public synchronized boolean allowsRequest() {
        if (stillAllowsRequest()) {
            return true;
        }
        if (failures.superseded()) {
            return false;
        }
        try {
            renew();
        } catch (RuntimeException e) {
            failures.add(e);
            return false;
        }
        return stillAllowsRequest();
    }

    @Override
    public boolean stillAllowsRequest() {
        return !failures.superseded() && clock.instant().isBefore(expiresAt.minus(Timing.LEASE_SEND_MARGIN));
    }
}
