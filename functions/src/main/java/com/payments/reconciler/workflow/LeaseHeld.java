package com.payments.reconciler.workflow;

/** Another run holds an unexpired lease. Retried with a bounded wait. */
public final class LeaseHeld extends WorkflowError {

    public LeaseHeld(String message) {
        super(message);
    }

    public LeaseHeld(String message, Throwable cause) {
        super(message, cause);
    }
}
