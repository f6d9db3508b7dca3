package com.payments.reconciler.harness.bench;

import com.payments.reconciler.workflow.LambdaFunction;
import java.util.Map;

/**
 * One window of {@code candidates} due authorisations run end to end through the real workflow on the
 * local engines.
 *
 * @param complete the execution SUCCEEDED, decided every candidate, and delivered every release it requested
 * @param error for an execution that did not succeed: its error and cause, as Step Functions reports them
 * @param workflowInvocations Lambda invocations by the workflow (StartWindow, invoked by the schedule, excluded)
 * @param handlerSeconds handler run time per function on the local engines
 * @param deliveredPerSecond releases the provider performed after its first one, per second up to its last (0 with fewer than 2)
 * @param loadAverageBefore the machine's one-minute load average when the window started (the build machine is shared)
 * @param provider the provider side: the adapter, its requests, and (Adyen) the webhook path's figures
 */
public record ScaleRun(int candidates, String status, boolean complete, String error, long decided, long releaseRequested,
                       long skippedSettled, long delivered, long providerCalls, double deliveredPerSecond, double wallSeconds,
                       long stateTransitions, long workflowInvocations, Map<LambdaFunction, Integer> invocations,
                       Map<LambdaFunction, Double> handlerSeconds, RequestLedger.Snapshot requests,
                       InvocationProbe.PageHeap pageHeap, double loadAverageBefore, double loadAverageAfter,
                       BenchReport.ProviderFigures provider) {

    public ScaleRun {
        invocations = Map.copyOf(invocations);
        handlerSeconds = Map.copyOf(handlerSeconds);
    }

    public double transitionsPerThousand() {
        return stateTransitions * 1000.0 / candidates;
    }

    public double invocationsPerThousand() {
        return workflowInvocations * 1000.0 / candidates;
    }

    public double requestsPerRelease(Purpose purpose) {
        return releaseRequested == 0 ? 0 : (double) requests.of(purpose) / releaseRequested;
    }

    public double requestsPerRelease() {
        return releaseRequested == 0 ? 0 : (double) requests.total() / releaseRequested;
    }

    /** Lambda GB-seconds: handler time × deployed memory, per function. */
    public double gigabyteSeconds() {
        return handlerSeconds.entrySet().stream().mapToDouble(e -> e.getValue() * e.getKey().memoryMb() / 1024.0).sum();
    }
}
