package com.payments.reconciler.cli.chaos;

import java.util.List;
import java.util.Map;

/**
 * What a campaign found. Violations are counted per invariant from the stored tables and the
 * provider's effect log; each failing schedule comes with its seed and a trace to reproduce it.
 */
public record ChaosReport(int schedules, boolean fenced, long seed, Map<String, Long> faultsInjected, long executionsSuperseded,
                          long rerunsNeeded, Map<String, Long> violations, List<Failure> failures) {

    public record Failure(long seed, String schedule, List<String> violations, List<String> trace) {
    }

    public long totalViolations() {
        return violations.values().stream().mapToLong(Long::longValue).sum();
    }
}
