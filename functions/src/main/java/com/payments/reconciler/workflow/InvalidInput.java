package com.payments.reconciler.workflow;

/**
 * A malformed input (execution input, event, item): names the field and the accepted form.
 * Never retried: the same input fails the same way, and nothing has been written.
 */
public final class InvalidInput extends WorkflowError {

    private final String field;

    public InvalidInput(String field, String problem) {
        super(field + ": " + problem);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
