package com.payments.reconciler.harness.local;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * Counts the DynamoDB requests the handlers send, by operation, attempts included (each attempt is
 * billed): the "DynamoDB requests per released hold" figure of the report and the benchmark.
 */
public final class RequestCounter implements ExecutionInterceptor {

    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        counts.computeIfAbsent(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME), k -> new LongAdder()).increment();
    }

    public Map<String, Long> byOperation() {
        Map<String, Long> snapshot = new TreeMap<>();
        counts.forEach((op, n) -> snapshot.put(op, n.sum()));
        return snapshot;
    }

    public long total() {
        return counts.values().stream().mapToLong(LongAdder::sum).sum();
    }

    public void reset() {
        counts.clear();
    }
}
