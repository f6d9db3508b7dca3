package com.payments.reconciler.cli.local;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import com.payments.reconciler.workflow.LambdaFunction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

/**
 * The Lambda context of one local invocation: the deployed timeout and memory of the function, and a
 * deadline on the wall clock, as Lambda measures it.
 */
final class LocalContext implements Context {

    private final LambdaFunction function;
    private final String requestId = UUID.randomUUID().toString();
    private final long deadlineNanos;

    LocalContext(LambdaFunction function) {
        this(function, null);
    }

    /** @param limit the invocation's time when shorter than the function's timeout, or null */
    LocalContext(LambdaFunction function, Duration limit) {
        this.function = function;
        Duration given = limit != null && limit.compareTo(function.timeout()) < 0 ? limit : function.timeout();
        this.deadlineNanos = System.nanoTime() + given.toNanos();
    }

    @Override
    public String getAwsRequestId() {
        return requestId;
    }

    @Override
    public String getLogGroupName() {
        return "/aws/lambda/" + function.logicalName();
    }

    @Override
    public String getLogStreamName() {
        return "local";
    }

    @Override
    public String getFunctionName() {
        return function.logicalName();
    }

    @Override
    public String getFunctionVersion() {
        return "$LATEST";
    }

    @Override
    public String getInvokedFunctionArn() {
        return StateMachineDeployer.localFunctionArn(function);
    }

    @Override
    public CognitoIdentity getIdentity() {
        return null;
    }

    @Override
    public ClientContext getClientContext() {
        return null;
    }

    @Override
    public int getRemainingTimeInMillis() {
        return (int) Math.max(0, (deadlineNanos - System.nanoTime()) / 1_000_000);
    }

    @Override
    public int getMemoryLimitInMB() {
        return function.memoryMb();
    }

    @Override
    public LambdaLogger getLogger() {
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
