package com.payments.reconciler.harness.lambda;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;

/**
 * One function as the stack deploys it: what the process service needs to run it the way Lambda does.
 * The integrator fills it from the synthesized template ({@code AWS::Lambda::Function}: logical name,
 * {@code Handler}, {@code MemorySize}, {@code Timeout}, {@code Environment.Variables}, {@code ReservedConcurrentExecutions}).
 *
 * @param logicalName the function's name in the Invoke API path (and {@code AWS_LAMBDA_FUNCTION_NAME})
 * @param handler     Lambda's Java handler string, {@code com.example.Handler::handleRequest}
 * @param memoryMb    {@code MemorySize}: sizes the sandbox's heap as Lambda's Java runtime does ({@link HeapSize})
 * @param timeout     {@code Timeout}: an invocation with no answer by then fails with {@code Sandbox.Timedout}
 * @param environment the function's own variables; Lambda's reserved ones are added by the service
 * @param reservedConcurrency {@code ReservedConcurrentExecutions}: the most sandboxes it runs at once (invocations
 *                            beyond get 429); when absent, the service's {@code maxSandboxesPerFunction}
 */
public record FunctionSpec(String logicalName, String handler, int memoryMb, Duration timeout, Map<String, String> environment,
                           OptionalInt reservedConcurrency) {

    /**
     * Lambda refuses these as function variables (they are reserved for the role's credentials); here they
     * would also defeat the point of giving each function its own container credentials.
     */
    static final Set<String> CREDENTIAL_VARIABLES = Set.of(
            "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ACCESS_KEY", "AWS_SECRET_KEY");

    public FunctionSpec {
        Objects.requireNonNull(logicalName, "logicalName");
        Objects.requireNonNull(handler, "handler");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(reservedConcurrency, "reservedConcurrency");
        environment = Map.copyOf(environment);
        if (!logicalName.matches("[A-Za-z0-9_-]{1,64}")) {
            throw new IllegalArgumentException("a function name is 1-64 letters, digits, '-' or '_': " + logicalName);
        }
        // Lambda's limits: 128 MB to 10,240 MB, 1 s to 900 s.
        if (memoryMb < 128 || memoryMb > 10_240) {
            throw new IllegalArgumentException(logicalName + ": MemorySize must be 128..10240 MB, was " + memoryMb);
        }
        if (timeout.compareTo(Duration.ofMillis(1)) < 0 || timeout.compareTo(Duration.ofSeconds(900)) > 0) {
            throw new IllegalArgumentException(logicalName + ": Timeout must be at most 900 s and positive, was " + timeout);
        }
        // Lambda accepts 0 (every invocation throttled); a local night has no use for a function that never runs.
        if (reservedConcurrency.isPresent() && reservedConcurrency.getAsInt() < 1) {
            throw new IllegalArgumentException(logicalName + ": ReservedConcurrentExecutions must be at least 1 to be hosted, was "
                    + reservedConcurrency.getAsInt());
        }
        for (String variable : environment.keySet()) {
            if (CREDENTIAL_VARIABLES.contains(variable)) {
                throw new IllegalArgumentException(logicalName + ": " + variable + " is reserved by Lambda; the sandbox gets "
                        + "its credentials from the container credentials endpoint only");
            }
        }
    }

    /** A function without reserved concurrency: the service's cap applies. */
    public FunctionSpec(String logicalName, String handler, int memoryMb, Duration timeout, Map<String, String> environment) {
        this(logicalName, handler, memoryMb, timeout, environment, OptionalInt.empty());
    }
}
