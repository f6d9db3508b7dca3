package com.payments.reconciler.lease;

import com.payments.reconciler.window.NightWindow;

/**
 * AcquireLease's output, the workflow's state from then on: the night resolved from the execution input and the deployed
 * configuration (the later tasks' {@code window}: its grace, cutoff and shards are the deployment's, and the execution's
 * history shows them) and the lease token.
 */
public record AcquiredNight(NightWindow window, LeaseToken lease) {
}
