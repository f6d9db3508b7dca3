package com.payments.reconciler.window;

import java.time.Instant;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;

/** One execution of a window, as {@code bin/reconciler status} lists it. */
public record WindowExecution(ExecutionName name, String executionArn, ExecutionStatus status, Instant startDate, Instant stopDate) {
}
