package com.payments.reconciler.delivery;

import com.payments.reconciler.local.lambda.LocalLambdaContext;
import java.time.Duration;

/** A Lambda context whose remaining time the test sets: deadlines without waiting (the harness's one context, frozen). */
public final class TestContext extends LocalLambdaContext {

    private static final Function DELIVER_COMMANDS = new Function("DeliverCommands", 1024,
            "arn:aws:lambda:eu-west-1:000000000000:function:DeliverCommands", "test");

    public TestContext(Duration remaining) {
        this(remaining, "test-request");
    }

    /** Another invocation: Lambda gives each its own request id (a task retried by the workflow gets a new one). */
    public TestContext(Duration remaining, String requestId) {
        super(DELIVER_COMMANDS, requestId, remaining, () -> 0L);
    }
}
