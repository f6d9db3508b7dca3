package com.payments.reconciler.harness.lambda;

/** How one invocation ended, as the Invoke API reports it. */
sealed interface InvocationOutcome {

    /** The runtime posted a response: HTTP 200, the body as the payload. */
    record Succeeded(byte[] payload) implements InvocationOutcome {
    }

    /** A function error (the runtime's error JSON, a timeout, an exit, an init error): HTTP 200 + {@code X-Amz-Function-Error}. */
    record FunctionFailed(byte[] errorJson) implements InvocationOutcome {
    }

    /** The Lambda service refused the invocation (HTTP 4xx/5xx with {@code x-amzn-ErrorType}). */
    record Refused(int httpStatus, String errorType, byte[] body) implements InvocationOutcome {
    }
}
