package com.payments.reconciler.harness.chaos;

import com.payments.reconciler.local.faults.DynamoFaults;
import com.payments.reconciler.local.faults.Fault;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/** The DynamoDB fault layer's injected-fault counts, named for the report ({@code ddb-transaction-conflict}, ...). */
final class FaultCounts {

    private FaultCounts() {
    }

    static Map<String, Long> of(ExecutionInterceptor interceptor) {
        Map<String, Long> named = new LinkedHashMap<>();
        if (interceptor instanceof DynamoFaults faults) {
            Map<Fault, ? extends Number> counts = faults.counts();
            counts.forEach((fault, n) -> {
                if (n.longValue() > 0) {
                    named.put("ddb-" + fault.name().toLowerCase().replace('_', '-'), n.longValue());
                }
            });
        }
        return named;
    }
}
