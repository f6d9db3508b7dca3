package com.payments.reconciler.workflow;

/** DynamoDB conflicts or throttling persisted after in-function retries. Retried by the workflow. */
public final class StoreContention extends WorkflowError {

    public StoreContention(String message) {
        super(message);
    }

    public StoreContention(String message, Throwable cause) {
        super(message, cause);
    }
}
