package com.payments.reconciler.workflow;

/** The lease is no longer ours (renewal refused). Never retried. */
public final class LeaseLost extends WorkflowError {

    public LeaseLost(String message) {
        super(message);
    }

    public LeaseLost(String message, Throwable cause) {
        super(message, cause);
    }
}
