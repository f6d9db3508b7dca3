package com.payments.reconciler.workflow;

/**
 * An error the state machine reacts to by name. Lambda's Java runtime reports a thrown exception's
 * fully qualified class name as {@code errorType}, and the ASL's Retry/Catch match on it, so each
 * subclass's name is an entry of {@link ErrorNames} and means exactly one thing.
 */
public abstract sealed class WorkflowError extends RuntimeException
        permits Fenced, LeaseLost, LeaseHeld, StoreContention, ProviderUnavailable, IdempotencyAlreadyInProgress,
        InvalidInput, OperationMismatch, ProviderContractViolation, FeedNotComplete, ReleaseSurge {

    protected WorkflowError(String message) {
        super(message);
    }

    protected WorkflowError(String message, Throwable cause) {
        super(message, cause);
    }

    /** The name Step Functions sees. */
    public final String errorName() {
        return getClass().getName();
    }
}
