package com.payments.reconciler.workflow;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A task input that says which run a log line belongs to. {@link JsonHandler} puts these fields in the
 * logging MDC for the whole invocation, so every JSON log line carries the execution name, the window
 * and the epoch (CloudWatch Logs Insights filters on them). Only identifiers: never amounts or card data.
 */
public interface LogContext {

    Map<String, String> logContext();

    /**
     * The fields every leader-side task logs. The owner id is {@code {executionName}/{uuid}} (minted by the
     * workflow), so the execution name is its first part.
     */
    static Map<String, String> of(String windowId, String ownerId, Long epoch) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("windowId", windowId);
        if (ownerId != null) {
            int slash = ownerId.indexOf('/');
            fields.put("executionName", slash > 0 ? ownerId.substring(0, slash) : ownerId);
        }
        if (epoch != null) {
            fields.put("epoch", Long.toString(epoch));
        }
        return fields;
    }
}
