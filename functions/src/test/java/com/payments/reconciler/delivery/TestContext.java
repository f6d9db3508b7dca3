package com.payments.reconciler.delivery;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A Lambda context whose remaining time the test sets: deadlines without waiting. */
public final class TestContext implements Context {

    private final AtomicLong remainingMillis;
    private final String requestId;

    public TestContext(Duration remaining) {
        this(remaining, "test-request");
    }

    /** Another invocation: Lambda gives each its own request id (a task retried by the workflow gets a new one). */
    public TestContext(Duration remaining, String requestId) {
        this.remainingMillis = new AtomicLong(remaining.toMillis());
        this.requestId = requestId;
    }

    void remaining(Duration remaining) {
        remainingMillis.set(remaining.toMillis());
    }

    @Override
    public int getRemainingTimeInMillis() {
        return (int) remainingMillis.get();
    }

    @Override
    public String getAwsRequestId() {
        return requestId;
    }

    @Override
    public String getLogGroupName() {
        return "/aws/lambda/DeliverCommands";
    }

    @Override
    public String getLogStreamName() {
        return "test";
    }

    @Override
    public String getFunctionName() {
        return "DeliverCommands";
    }

    @Override
    public String getFunctionVersion() {
        return "$LATEST";
    }

    @Override
    public String getInvokedFunctionArn() {
        return "arn:aws:lambda:eu-west-1:000000000000:function:DeliverCommands";
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
    public int getMemoryLimitInMB() {
        return 1024;
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
