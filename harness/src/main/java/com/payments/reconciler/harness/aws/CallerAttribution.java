package com.payments.reconciler.harness.aws;

import java.util.Map;
import java.util.Optional;

/**
 * Which function made a call: by the recorder front door it came in on ({@link #byFrontDoor}), or by the access key id
 * it signed with ({@link #byAccessKeyId}: the process-based Lambda service gives each function's sandboxes their own,
 * and its {@code accessKeyId → function logical name} lookup is the map).
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
