package com.payments.reconciler.harness.local;

import com.payments.reconciler.workflow.LambdaFunction;
import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * A local Lambda Invoke API ({@code POST /2015-03-31/functions/{name}/invocations}) as moto's Step
 * Functions executor and the CLI call it. Two implementations: {@link LocalLambdaEndpoint} runs the
 * handler classes in this JVM (fast, shares the fault layer's clients), and
 * {@code com.payments.reconciler.harness.lambda.ProcessLambdaService} runs each function in its own JVM
 * sandboxes through the Lambda Runtime API, as Lambda does. The chaos harness only needs this contract.
 */
public interface LambdaService extends AutoCloseable {

    /** The endpoint to give an SDK client or moto ({@code http://127.0.0.1:port}). */
    URI uri();

    /** Replaces the hook called around every invocation of one of the {@link LambdaFunction}s (null: none). */
    void hook(InvocationHook hook);

    /** Invocations so far per function (the Lambda requests a window cost). */
    Map<LambdaFunction, Integer> invocationCounts();

    void resetCounts();

    /**
     * Caps the time each invocation is told it has (its context's remaining time) below the deployed
     * timeout; null: the deployed timeout. See {@link LocalLambdaEndpoint#limitInvocationTime}.
     */
    void limitInvocationTime(Duration limit);

    @Override
    void close();
}
