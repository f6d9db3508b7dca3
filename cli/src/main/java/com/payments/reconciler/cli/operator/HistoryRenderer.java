package com.payments.reconciler.cli.operator;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;

/**
 * Renders history events as the console's "Events" view reads: state entered and exited, task
 * failures with the error name (and what the Retry did next), the execution's end. One line each,
 * ids and counts only: payloads never reach the terminal (they could carry card data one day). A state that passes its
 * input through unchanged (a Choice) exits with the counts of the task before it; they are shown once, at that task.
 */
public final class HistoryRenderer {

    /** Entered states whose exit has not been seen yet, by event id, with their input (a Map's iterations interleave). */
    private static final int REMEMBERED_ENTRIES = 256;

    private final Instant start;
    private final Map<Long, String> enteredInputs = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, String> eldest) {
            return size() > REMEMBERED_ENTRIES;
        }
    };

    public HistoryRenderer(Instant start) {
        this.start = start;
    }

    public Optional<String> render(HistoryEvent event) {
        String at = String.format("%7.1fs ", Duration.between(start, event.timestamp()).toMillis() / 1000.0);
        String type = event.typeAsString();
        if (type.endsWith("StateEntered")) {
            if (event.id() != null) {
                enteredInputs.put(event.id(), String.valueOf(event.stateEnteredEventDetails().input()));
            }
            return Optional.of(at + "→ " + event.stateEnteredEventDetails().name());
        }
        if (type.endsWith("StateExited")) {
            String output = event.stateExitedEventDetails().output();
            // Exited straight after being entered, with its input as its output: nothing happened here that is not
            // already shown (the counts belong to the task before it).
            String input = event.previousEventId() == null ? null : enteredInputs.remove(event.previousEventId());
            boolean passedThrough = input != null && input.equals(String.valueOf(output));
            return Optional.of(at + "✓ " + event.stateExitedEventDetails().name() + (passedThrough ? "" : summary(output)));
        }
        return switch (type) {
            case "ExecutionStarted" -> Optional.of(at + "▶ execution started");
            case "TaskFailed" -> Optional.of(at + "✗ task failed: " + event.taskFailedEventDetails().error() + message(event.taskFailedEventDetails().cause()));
            case "TaskTimedOut" -> Optional.of(at + "✗ task timed out: " + event.taskTimedOutEventDetails().error());
            case "LambdaFunctionFailed" -> Optional.of(at + "✗ function failed: " + event.lambdaFunctionFailedEventDetails().error());
            case "MapIterationFailed" -> Optional.of(at + "✗ map iteration " + event.mapIterationFailedEventDetails().index() + " failed");
            case "ExecutionSucceeded" -> Optional.of(at + "■ execution SUCCEEDED");
            case "ExecutionFailed" -> Optional.of(at + "■ execution FAILED: " + event.executionFailedEventDetails().error()
                    + message(event.executionFailedEventDetails().cause()));
            case "ExecutionTimedOut" -> Optional.of(at + "■ execution TIMED_OUT");
            case "ExecutionAborted" -> Optional.of(at + "■ execution ABORTED");
            default -> Optional.empty();
        };
    }

    /** The counts of a task's output (the summary fields), never the payload itself. */
    private static String summary(String output) {
        if (output == null) {
            return "";
        }
        try {
            JsonNode node = Json.mapper().readTree(output);
            JsonNode page = node.path("page").path("totals");
            if (!page.isMissingNode() && node.has("page") && !node.has("deliveries")) {
                return "  (candidates " + page.path("candidates").asLong() + ", released " + page.path("releaseRequested").asLong()
                        + ", more " + node.path("page").path("more").asBoolean() + ")";
            }
            JsonNode batch = node.path("batch").path("totals");
            if (!batch.isMissingNode()) {
                return "  (shard " + node.path("shard").asText() + ": delivered " + batch.path("delivered").asLong() + ")";
            }
            if (node.has("lease") && node.path("lease").has("epoch") && !node.has("page")) {
                return "  (epoch " + node.path("lease").path("epoch").asLong() + ")";
            }
            return "";
        } catch (java.io.IOException | RuntimeException e) {
            return "";
        }
    }

    /** The errorMessage of a Lambda error cause, which our handlers keep free of card data. */
    private static String message(String cause) {
        if (cause == null || cause.isBlank()) {
            return "";
        }
        try {
            JsonNode node = Json.mapper().readTree(cause);
            if (node.has("errorMessage")) {
                return " — " + node.get("errorMessage").asText();
            }
        } catch (java.io.IOException | RuntimeException e) {
            // not JSON: show it as it is
        }
        return " — " + cause;
    }
}
