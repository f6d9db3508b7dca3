package com.payments.reconciler.harness.lambda;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.workflow.Json;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * The error payloads the Lambda service itself writes (as opposed to the runtime's own error JSON, which
 * is passed through as the function posted it). Texts as AWS returns them; sources in
 * docs/emulator-differences.md, "Lambda".
 */
final class LambdaErrors {

    private LambdaErrors() {
    }

    /** An invocation not answered by its deadline: the sandbox is then reset. */
    static byte[] timedOut(String requestId, Duration timeout) {
        String seconds = String.format(Locale.ROOT, "%.2f", timeout.toMillis() / 1000.0);
        return body("Sandbox.Timedout", "RequestId: " + requestId + " Error: Task timed out after " + seconds + " seconds");
    }

    /** The runtime process ended before answering. */
    static byte[] exited(String requestId, int exitStatus) {
        String reason = exitStatus > 128
                ? "Runtime exited with error: signal: " + signalName(exitStatus - 128)
                : "Runtime exited with error: exit status " + exitStatus;
        return body("Runtime.ExitError", "RequestId: " + requestId + " Error: " + reason);
    }

    /** What the Lambda service answers (HTTP 429) when a function's concurrency is used up. */
    static byte[] throttled() {
        ObjectNode body = Json.mapper().createObjectNode()
                .put("Reason", "ReservedFunctionConcurrentInvocationLimitExceeded")
                .put("Type", "User")
                .put("message", "Rate Exceeded.");
        return body.toString().getBytes(StandardCharsets.UTF_8);
    }

    static byte[] serviceError(String message) {
        ObjectNode body = Json.mapper().createObjectNode().put("Type", "Service").put("message", message);
        return body.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String signalName(int signal) {
        return switch (signal) {
            case 9 -> "killed";
            case 15 -> "terminated";
            case 6 -> "aborted";
            case 11 -> "segmentation fault";
            default -> "signal " + signal;
        };
    }

    private static byte[] body(String type, String message) {
        ObjectNode body = Json.mapper().createObjectNode().put("errorType", type).put("errorMessage", message);
        return body.toString().getBytes(StandardCharsets.UTF_8);
    }
}
