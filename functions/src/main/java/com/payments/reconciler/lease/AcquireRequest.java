package com.payments.reconciler.lease;

import com.payments.reconciler.window.ExecutionInput;
import com.payments.reconciler.workflow.InvalidInput;
import com.payments.reconciler.workflow.LogContext;
import java.util.Map;

/**
 * Input of AcquireLease. The owner id is minted by the workflow (a Pass state with {@code States.UUID})
 * before the task, so a retried task presents the same id and a lost response is recognised.
 */
public record AcquireRequest(ExecutionInput window, String ownerId) implements LogContext {

    /** {@code {executionName}/{uuid}}: the execution says which run holds the lease in the console. */
    static final String OWNER_ID_FORM = "[0-9A-Za-z_.-]{1,80}/[0-9a-fA-F-]{36}";

    public AcquireRequest {
        if (window == null) {
            throw new InvalidInput("window", "required, the execution input {\"windowId\": \"YYYY-MM-DD\", \"dryRun\": true|false}");
        }
        if (ownerId == null || !ownerId.matches(OWNER_ID_FORM)) {
            throw new InvalidInput("ownerId", "required, {executionName}/{uuid} as minted by the workflow, was " + ownerId);
        }
    }

    @Override
    public Map<String, String> logContext() {
        return LogContext.of(window.windowId(), ownerId, null);
    }
}
