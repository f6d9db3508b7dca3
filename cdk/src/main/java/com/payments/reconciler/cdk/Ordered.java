package com.payments.reconciler.cdk;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Maps whose iteration order is the order written, so the template they end up in is the same on every synth
 * ({@code Map.of} iterates in an order salted per JVM; SynthOrderArchitectureTest keeps it out of the stack's code).
 */
final class Ordered {

    private Ordered() {
    }

    @SafeVarargs
    static <K, V> Map<K, V> map(Map.Entry<K, V>... entries) {
        Map<K, V> map = new LinkedHashMap<>();
        for (Map.Entry<K, V> entry : entries) {
            if (map.put(entry.getKey(), entry.getValue()) != null) {
                throw new IllegalArgumentException("duplicate key: " + entry.getKey());
            }
        }
        return Collections.unmodifiableMap(map);
    }
}
