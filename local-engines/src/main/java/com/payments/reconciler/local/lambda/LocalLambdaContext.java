package com.payments.reconciler.local.lambda;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The one Lambda {@link Context} of the harness: the function's identity, the invocation's request id and a
 * deadline, as Lambda measures it. A local invocation's deadline runs on the wall clock; a test's stands still until
 * the test moves it ({@link #remaining(Duration)}), so deadlines are tested without waiting. The modules' presets
 * ({@code harness.local.LocalContext}, the functions tests' {@code TestContext}) only fill in the function: they know the
 * domain, this module does not.
 */
public class LocalLambdaContext implements Context {

    /** What Lambda tells a handler about the function it runs as. */
    public record Function(String name, int memoryMb, String invokedArn, String logStreamName) {
        public Function {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(invokedArn, "invokedArn");
            Objects.requireNonNull(logStreamName, "logStreamName");
        }
    }

    private final Function function;
    private final String requestId;
    private final LongSupplier nanoTime;
    private final AtomicLong deadlineNanos = new AtomicLong();

    /**
     * @param remaining the time left before the deadline, from now
     * @param nanoTime  the clock the deadline runs on: {@code System::nanoTime} for a local invocation, a constant for
     *                  a test, whose time then stands still until {@link #remaining(Duration)} moves it
     */
    public LocalLambdaContext(Function function, String requestId, Duration remaining, LongSupplier nanoTime) {
        this.function = Objects.requireNonNull(function, "function");
        this.requestId = Objects.requireNonNull(requestId, "requestId");
        this.nanoTime = nanoTime;
        remaining(remaining);
    }

    /** From now on, {@code remaining} is left before the deadline. */
    public final void remaining(Duration remaining) {
        deadlineNanos.set(nanoTime.getAsLong() + remaining.toNanos());
    }

    @Override
    public final int getRemainingTimeInMillis() {
        return (int) Math.max(0, (deadlineNanos.get() - nanoTime.getAsLong()) / 1_000_000);
    }

    @Override
    public final String getAwsRequestId() {
        return requestId;
    }

    @Override
    public final String getLogGroupName() {
        return "/aws/lambda/" + function.name();
    }

    @Override
    public final String getLogStreamName() {
        return function.logStreamName();
    }

    @Override
    public final String getFunctionName() {
        return function.name();
    }

    @Override
    public final String getFunctionVersion() {
        return "$LATEST";
    }

    @Override
    public final String getInvokedFunctionArn() {
        return function.invokedArn();
    }

    @Override
    public final CognitoIdentity getIdentity() {
        return null;
    }

    @Override
    public final ClientContext getClientContext() {
        return null;
    }

    @Override
    public final int getMemoryLimitInMB() {
        return function.memoryMb();
    }

    @Override
    public final LambdaLogger getLogger() {
        return new LambdaLogger() {
            @Override
            public void log(String message) {
                System.err.print(message);
            }

            @Override
            public void log(byte[] message) {
                System.err.print(new String(message, StandardCharsets.UTF_8));
            }
        };
    }
}
