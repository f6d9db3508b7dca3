package com.payments.reconciler.harness.local;

import com.payments.reconciler.local.lambda.LocalLambdaContext;
import com.payments.reconciler.workflow.LambdaFunction;
import java.time.Duration;
import java.util.UUID;

/**
 * The Lambda context of one local invocation (the harness's one context): the deployed timeout and memory of the
 * function, and a deadline on the wall clock, as Lambda measures it.
 */
final class LocalContext extends LocalLambdaContext {

    LocalContext(LambdaFunction function) {
        this(function, null);
    }

    /** @param limit the invocation's time when shorter than the function's timeout, or null */
    LocalContext(LambdaFunction function, Duration limit) {
        super(new Function(function.logicalName(), function.memoryMb(), StateMachineDeployer.localFunctionArn(function), "local"),
                UUID.randomUUID().toString(), limit != null && limit.compareTo(function.timeout()) < 0 ? limit : function.timeout(),
                System::nanoTime);
    }
}
