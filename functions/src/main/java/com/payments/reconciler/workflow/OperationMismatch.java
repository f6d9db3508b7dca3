package com.payments.reconciler.workflow;

/**
 * One operation id arrived with a different request than the one recorded for it (the outbox command
 * changed after it was first delivered). Never retried and never "fixed" by sending the new request:
 * someone must look at the command ({@link ErrorNames#TABLE}).
 */
public final class OperationMismatch extends WorkflowError {

    public OperationMismatch(String message, Throwable cause) {
        super(message, cause);
    }

    public OperationMismatch(String message) {
        super(message);
    }
}
