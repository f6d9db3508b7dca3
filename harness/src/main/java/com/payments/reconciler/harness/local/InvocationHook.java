package com.payments.reconciler.harness.local;

import com.payments.reconciler.workflow.LambdaFunction;

/**
 * Lets tests and scenarios interfere with local Lambda invocations the way the Lambda service can:
 * fail before the handler runs (a service error, throttling), or fail after it ran and committed
 * (a timeout after success), or hold an invocation (a frozen container).
 */
public interface InvocationHook {

    /** Called before the handler; may block, or return a failure to report instead of invoking. */
    default InjectedFailure before(LambdaFunction function, int invocation, byte[] payload) {
        return null;
    }

    /** Called after the handler succeeded; may return a failure to report although the work was done. */
    default InjectedFailure afterSuccess(LambdaFunction function, int invocation, byte[] payload, byte[] result) {
        return null;
    }

    InvocationHook NONE = new InvocationHook() {
    };

    /**
     * A failure as the Lambda service reports it.
     *
     * @param serviceError true: an HTTP 5xx/429 from the Lambda service ({@code Lambda.<code>} in Step
     *                     Functions); false: a function error (errorType = {@code code})
     */
    record InjectedFailure(boolean serviceError, int httpStatus, String code, String message) {

        public static InjectedFailure serviceException(String message) {
            return new InjectedFailure(true, 500, "ServiceException", message);
        }

        public static InjectedFailure throttled(String message) {
            return new InjectedFailure(true, 429, "TooManyRequestsException", message);
        }

        /** What Lambda reports when a function ran out of time (after its work may have committed). */
        public static InjectedFailure timedOut(LambdaFunction function) {
            return new InjectedFailure(false, 200, "Sandbox.Timedout",
                    "Task timed out after " + function.timeout().toSeconds() + ".00 seconds");
        }
    }
}
