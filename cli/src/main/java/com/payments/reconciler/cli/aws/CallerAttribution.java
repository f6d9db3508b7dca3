package com.payments.reconciler.cli.aws;

import java.util.Map;
import java.util.Optional;

/**
 * Which function made a call. Today the in-process pipeline gives each function its own recorder front
 * door ({@link #byFrontDoor}); the process-based Lambda service gives each function its own access key id
 * ({@link #byAccessKeyId}, from its {@code accessKeyId → function logical name} lookup).
 */
@FunctionalInterface
public interface CallerAttribution {

    /** The function's logical name ({@code LambdaFunction.logicalName()}), or empty for a call of no function. */
    Optional<String> functionOf(RecordedCall.Caller caller);

    static CallerAttribution byFrontDoor() {
        return caller -> caller.frontDoor().isEmpty() ? Optional.empty() : Optional.of(caller.frontDoor());
    }

    static CallerAttribution byAccessKeyId(Map<String, String> functionByAccessKeyId) {
        Map<String, String> copy = Map.copyOf(functionByAccessKeyId);
        return caller -> caller.accessKeyId().map(copy::get);
    }
}
