package com.payments.reconciler.cli.report;

import java.util.Map;

/**
 * The local run's report, exactly the object of design §11: what {@code bin/reconciler local --json}
 * prints on stdout. Counts come from the run's summary, fenced refusals from the execution histories,
 * costs from what the local engines counted, and the invariants from the stored tables and the
 * provider's effect log, never from the workers' own claims. {@code engine} says how the functions ran:
 * {@code lambda-sandboxes} (each function of the synthesised template in its own JVMs, as Lambda runs it) or
 * {@code in-process}.
 */
public record RunReport(String window, Execution execution, Counts counts, Cost cost, Map<String, Boolean> invariants,
                        String engine) {

    public record Execution(String name, String status, int duplicateStartsSuppressed) {
    }

    /**
     * @param cancelledSettled commands not sent because their authorisation settled after the decision
     * @param quarantined commands parked because the provider answered outside its contract
     * @param escalated commands parked because they outlived automatic delivery
     */
    public record Counts(long authorisations, long candidates, long releaseRequested, long skippedSettled,
                         long skippedStale, long fencedRefusals, long delivered, long deliveryAttempts,
                         long cancelledSettled, long quarantined, long escalated) {
    }

    public record Cost(long stateTransitions, long lambdaInvocations, long dynamodbRequests, long providerCalls) {
    }

    public boolean invariantsHold() {
        return !invariants.isEmpty() && invariants.values().stream().allMatch(Boolean::booleanValue);
    }
}
