package com.payments.reconciler.workflow;

/** The provider did not answer usefully (5xx, timeout, connection error). Retried with the same idempotency key. */
public final class ProviderUnavailable extends WorkflowError {

    public ProviderUnavailable(String message) {
        super(message);
    }

    public ProviderUnavailable(String message, Throwable cause) {
        super(message, cause);
    }
}
