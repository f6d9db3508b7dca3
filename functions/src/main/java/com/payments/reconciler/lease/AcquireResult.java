package com.payments.reconciler.lease;

import java.time.Instant;

/** The outcome of a takeover attempt. */
public sealed interface AcquireResult {

    /** We hold the lease at {@code lease.epoch()}; {@code retried} when a lost first response was recognised. */
    record Acquired(Lease lease, boolean retried) implements AcquireResult {
    }

    /** Another owner holds an unexpired lease. */
    record Held(String owner, long epoch, Instant until) implements AcquireResult {
    }
}
