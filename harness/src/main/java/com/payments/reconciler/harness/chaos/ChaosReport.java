package com.payments.reconciler.harness.chaos;

import java.util.List;
import java.util.Map;

/**
 * What a campaign found. Violations are counted per invariant from the stored tables, moto's write log
 * and the provider's effect log; each failing schedule comes with its seed and a trace to reproduce it.
 *
 * @param fenced whether decisions carried the lease check (false for the mutants that remove it)
 * @param mutant the deliberate defect the campaign ran with ({@code --mutant}, its command-line name), or null
 * @param mutantEffects how many times the mutant changed what reached the store or the provider: a mutant campaign
 *                      whose mutant never took effect proves nothing about the checks
 * @param seed the campaign seed (or, for a replay, the schedule's own seed)
 * @param wallTimeMillis the whole campaign, engines' start included
 * @param medianScheduleMillis one schedule, from empty tables to the audited, completed window
 * @param faultsInjected by kind, counted where they were injected
 * @param executionsSuperseded executions that ended in {@code Superseded} (fenced out by a takeover)
 * @param rerunsNeeded operator reruns (faults off) it took to complete windows the faults left incomplete
 * @param schedulesWithViolations schedules with at least one violation
 * @param violations per invariant (I1-I5): how many violations the audits found
 * @param failures schedules with violations, each with its seed and trace
 * @param errors schedules that could not be run to a verdict (an engine or harness error), with seed and trace
 * @param faultSequence for a replay, the faults that took effect, per stream in its order (DynamoDB: per caller and
 *                      item; provider: per operation id); empty for a campaign
 */
public record ChaosReport(int schedules, boolean fenced, String mutant, long mutantEffects, long seed, long wallTimeMillis, long medianScheduleMillis,
                          Map<String, Long> faultsInjected, long executionsSuperseded, long rerunsNeeded,
                          long schedulesWithViolations, Map<String, Long> violations, List<Failure> failures,
                          List<Failure> errors, Map<String, List<String>> faultSequence) {

    /** A failing schedule: replay it with {@code bin/reconciler chaos --replay <seed>} (plus {@code --mutant NAME} if it was). */
    public record Failure(long seed, String schedule, List<String> violations, List<String> trace) {
    }

    /** Whether the campaign proves what it claims: every schedule ran to a verdict and none found a violation. */
    public boolean clean() {
        return totalViolations() == 0 && errors.isEmpty();
    }

    public long totalViolations() {
        return violations.values().stream().mapToLong(Long::longValue).sum();
    }
}
