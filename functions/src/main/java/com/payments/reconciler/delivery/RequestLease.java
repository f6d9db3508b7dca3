package com.payments.reconciler.delivery;

/**
 * The call's lease as a provider request sees it: a request leaves only while the lease, as last renewed, outlives
 * it by {@link com.payments.reconciler.workflow.Timing#LEASE_SEND_MARGIN}, so it is answered or abandoned before
 * another worker may take over.
 */
interface RequestLease {

    /** Whether a request may leave now; renews the lease first when it is too close to its expiry (a round trip). */
    boolean allowsRequest();

    /**
     * The same judgment from what is already known, with no round trip: the last check before the bytes leave,
     * after whatever else (a facts read) took time since {@link #allowsRequest()}.
     */
    boolean stillAllowsRequest();
}
