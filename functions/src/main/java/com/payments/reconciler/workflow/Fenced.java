package com.payments.reconciler.workflow;

/** Our transaction was refused by the lease check: another worker holds a newer epoch. Never retried. */
public final class Fenced extends WorkflowError {

    public Fenced(String message) {
        super(message);
    }

    public Fenced(String message, Throwable cause) {
        super(message, cause);
    }
}
