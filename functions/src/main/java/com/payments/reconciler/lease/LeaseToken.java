package com.payments.reconciler.lease;

import com.payments.reconciler.workflow.InvalidInput;

/**
 * What the workflow passes from task to task: which lease, whose, at which epoch. Every protected
 * write checks owner and epoch together against the lease item, so a copy of a stale token is harmless.
 */
public record LeaseToken(String leaseName, String ownerId, long epoch) {

    public LeaseToken {
        if (leaseName == null || leaseName.isBlank()) {
            throw new InvalidInput("lease.leaseName", "required, a non-empty string");
        }
        if (ownerId == null || ownerId.isBlank()) {
            throw new InvalidInput("lease.ownerId", "required, a non-empty string");
        }
        if (epoch < 1) {
            throw new InvalidInput("lease.epoch", "required, an integer >= 1 (the fencing token), was " + epoch);
        }
    }
}
