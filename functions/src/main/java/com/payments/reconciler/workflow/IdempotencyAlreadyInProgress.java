package com.payments.reconciler.workflow;

/** Another invocation is delivering the same operation right now. Retried after the in-progress window. */
public final class IdempotencyAlreadyInProgress extends WorkflowError {

    public IdempotencyAlreadyInProgress(String message) {
        super(message);
    }

    public IdempotencyAlreadyInProgress(String message, Throwable cause) {
        super(message, cause);
    }
}
