package com.payments.reconciler.cli.chaos;

import java.util.List;
import java.util.Map;

/**
 * What a campaign found. Violations are counted per invariant from the stored tables, moto's write log
 * and the provider's effect log; each failing schedule comes with its seed and a trace to reproduce it.
 *
 * @param seed the campaign seed (or, for a replay, the schedule's own seed)
 * @param wallTimeMillis the whole campaign, engines' start included
 * @param medianScheduleMillis one schedule, from empty tables to the audited, completed window
 * @param faultsInjected by kind, counted where they were injected
 * @param executionsSuperseded executions that ended in {@code Superseded} (fenced out by a takeover)
 * @param rerunsNeeded operator reruns (faults off) it took to complete windows the faults left incomplete
 * @param schedulesWithViolations schedules with at least one violation
 * @param violations per invariant (I1-I5): how many violations the audits found
 */
public record ChaosReport(int schedules, boolean fenced, long seed, long wallTimeMillis, long medianScheduleMillis,
                          Map<String, Long> faultsInjected, long executionsSuperseded, long rerunsNeeded,
                          long schedulesWithViolations, Map<String, Long> violations, List<Failure> failures) {

    /** A failing schedule: replay it with {@code bin/reconciler chaos --replay <seed>} (plus {@code --unfenced} if it was). */
    public record Failure(long seed, String schedule, List<String> violations, List<String> trace) {
    }

    public long totalViolations() {
        return violations.values().stream().mapToLong(Long::longValue).sum();
    }
}
