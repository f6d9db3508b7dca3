package com.payments.reconciler.lease;

import java.time.Instant;
import java.util.Objects;

/**
 * A lease we hold: its name, our owner id for this acquisition attempt, and the fencing token.
 *
 * @param epoch the fencing token: every protected write checks it, and a takeover advances it
 * @param expiresAt when another worker may take over unless we renew first
 */
public record Lease(String name, String owner, long epoch, Instant expiresAt) {

    public Lease {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(expiresAt, "expiresAt");
        if (epoch < 1) {
            throw new IllegalArgumentException("epoch must be >= 1, was " + epoch);
        }
    }

    /** The token as the workflow carries it between tasks (no expiry: each task renews). */
    public LeaseToken token() {
        return new LeaseToken(name, owner, epoch);
    }
}
