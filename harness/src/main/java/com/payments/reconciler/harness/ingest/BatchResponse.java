package com.payments.reconciler.harness.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.Json;
import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What Lambda's SQS event source mapping does with one invocation's answer (AWS Lambda Developer Guide, "Handling
 * errors for an SQS event source in Lambda", services-sqs-errorhandling): with {@code ReportBatchItemFailures}, the
 * messages named in {@code batchItemFailures} stay on the queue (visible again after the visibility timeout) and the
 * others are deleted; an empty or absent list is complete success; an item with an empty, missing or unknown
 * {@code itemIdentifier} fails the whole batch, as do an answer that is not JSON and a function error. Without {@code ReportBatchItemFailures} the
 * answer is ignored: success deletes the batch.
 */
public final class BatchResponse {

    private BatchResponse() {
    }

    /**
     * @param batch the message ids the invocation was given
     * @param functionError the invocation failed (the Invoke API's {@code X-Amz-Function-Error})
     * @param answer the function's answer (empty: none)
     * @return the ids to delete, in the batch's order; the rest become visible again
     */
    public static List<String> toDelete(List<String> batch, boolean functionError, byte[] answer, boolean reportBatchItemFailures) {
        if (functionError) {
            return List.of();
        }
        if (!reportBatchItemFailures || answer.length == 0) {
            return List.copyOf(batch);
        }
        JsonNode response;
        try {
            response = Json.mapper().readTree(answer);
        } catch (IOException e) {
            return List.of();
        }
        if (response == null || response.isNull()) {
            return List.copyOf(batch);
        }
        JsonNode failures = response.path("batchItemFailures");
        if (failures.isMissingNode() || failures.isNull()) {
            return List.copyOf(batch);
        }
        if (!failures.isArray()) {
            return List.of();
        }
        Set<String> failed = new LinkedHashSet<>();
        for (JsonNode failure : failures) {
            JsonNode id = failure.get("itemIdentifier");
            if (id == null || !id.isTextual() || id.textValue().isEmpty() || !batch.contains(id.textValue())) {
                return List.of();
            }
            failed.add(id.textValue());
        }
        return batch.stream().filter(id -> !failed.contains(id)).toList();
    }
}
