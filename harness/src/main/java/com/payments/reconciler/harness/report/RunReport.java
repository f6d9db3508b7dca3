package com.payments.reconciler.harness.report;

import java.util.List;
import java.util.Map;

/**
 * The local run's report (docs/design.md §12): what {@code bin/reconciler local --json}
 * prints on stdout. Counts come from the run's summary, fenced refusals from the execution histories,
 * costs from what the local engines counted, and the invariants from the stored tables and the
 * provider's effect log, never from the workers' own claims. {@code engine} says how the functions ran:
 * {@code lambda-sandboxes} (each function of the synthesised template in its own JVMs, as Lambda runs it) or
 * {@code in-process}. A window's report covers every execution of it the run started ({@code executions}, in the
 * order they closed; {@code execution} is the last): {@code counts} holds what the tables show for the window
 * (release requests and their commands), the decisions of the last execution (from its summary, or from its history
 * when it failed or was superseded) and every fenced refusal the engine made, whichever execution it refused.
 */
public record RunReport(String window, Execution execution, Counts counts, Cost cost, Map<String, Boolean> invariants,
                        String engine, Provider provider, Ingestion ingestion, List<ExecutionCounts> executions, Phases phases) {

    public RunReport {
        executions = List.copyOf(executions);
    }

    /** Without phases: a night of a multi-night series, whose time the series reports on its own. */
    public RunReport(String window, Execution execution, Counts counts, Cost cost, Map<String, Boolean> invariants,
                     String engine, Provider provider, Ingestion ingestion, List<ExecutionCounts> executions) {
        this(window, execution, counts, cost, invariants, engine, provider, ingestion, executions, null);
    }

    /**
     * Where a local run's wall time went, in seconds: starting the engines, the functions' sandboxes and the provider
     * (to the first event published); publishing and ingesting the events; and the last execution's phases from its
     * history ({@link NightPhases}).
     */
    public record Phases(double startUpSeconds, double ingestionSeconds, NightPhases night) {
    }

    public record Execution(String name, String status, int duplicateStartsSuppressed) {
    }

    /**
     * @param releaseRequested authorisations the window's executions moved to RELEASE_REQUESTED: its commands in the outbox
     * @param fencedRefusals transactions of any of the window's executions the engine refused on their lease check
     * @param cancelledSettled commands not sent because their authorisation settled after the decision
     * @param cancelledEnded commands not sent because their authorisation was voided or expired after the decision
     * @param quarantined commands parked because the provider answered outside its contract
     * @param escalated commands parked because they outlived automatic delivery
     * @param backlogLeft commands the night left PENDING for the next run (its budget could not fit them at the quota)
     * @param wouldRelease a dry run: the authorisations it would release, as the unchanged tables imply them (0 otherwise)
     * @param candidatesRead items the night read from the pending-by-age index (its runs' totals): what grows with history
     *                       when settled authorisations stay in the index
     * @param heldForFeed due candidates not released because IngestEvents refused a settlement that could concern them
     */
    public record Counts(long authorisations, long candidates, long releaseRequested, long skippedSettled,
                         long skippedStale, long fencedRefusals, long delivered, long deliveryAttempts,
                         long cancelledSettled, long cancelledEnded, long quarantined, long escalated, long backlogLeft,
                         long wouldRelease, long candidatesRead, long heldForFeed) {
    }

    /**
     * The provider's side of the night.
     *
     * @param quota the requests per second the simulated provider enforced, null when it enforced none
     * @param maxConcurrent the concurrent requests it allowed, null when it enforced no quota
     * @param quotaViolations requests it refused for being over its quota (counted by the provider)
     * @param answers429 throttling answers the night's delivery met (counted by the workers, in the run's summary)
     * @param throttledSeconds time the delivery calls' sending was paused by throttling answers, summed over calls
     * @param peakConcurrent the most requests the provider had in flight at once (0 when it enforced no quota)
     */
    /**
     * @param utilisation releases per second at the provider (after the first, from its first release to its last) over
     *                    the quota; null without a quota or with fewer than two releases
     */
    /**
     * @param adapter the adapter DeliverCommands talked through (stack context {@code provider}); null where not recorded
     * @param webhooks the Adyen night's webhook phase; null for the synchronous adapters
     */
    public record Provider(Double quota, Integer maxConcurrent, long quotaViolations, long answers429, double throttledSeconds,
                           int peakConcurrent, Double utilisation, String adapter, Webhooks webhooks) {

        public Provider(Double quota, Integer maxConcurrent, long quotaViolations, long answers429, double throttledSeconds,
                        int peakConcurrent, Double utilisation) {
            this(quota, maxConcurrent, quotaViolations, answers429, throttledSeconds, peakConcurrent, utilisation, null, null);
        }
    }

    /**
     * What the harness delivered to the webhook receiver after the Adyen night ended, and what ingestion did with it.
     *
     * @param rounds delivery rounds run (each after moving the run's clock past the delay)
     * @param notifications genuine notifications posted (a retried one counts each time)
     * @param duplicates extra copies of genuine notifications posted (Adyen's at-least-once delivery)
     * @param forged forged copies posted (outcome turned under the genuine signature): the receiver must refuse each
     * @param refusedByReceiver posts the receiver did not answer 200 (the forged ones included)
     * @param outstanding notifications still not answered 200 after the last round (more than zero: the run failed)
     * @param outcomeEvents provider.outcome messages IngestEvents consumed (duplicates included)
     * @param dynamodbWrites DynamoDB write requests (UpdateItem, PutItem, TransactWriteItems) ingestion made for them
     * @param acknowledgedLeft commands still ACKNOWLEDGED after ingestion drained (more than zero: the run failed)
     * @param rejected commands Adyen's notification ended REJECTED
     */
    public record Webhooks(int rounds, int notifications, int duplicates, int forged, int refusedByReceiver, int outstanding,
                           long outcomeEvents, long dynamodbWrites, long acknowledgedLeft, long rejected) {

        /** The webhook path's DynamoDB writes per provider.outcome event; 0 with none. */
        public double writesPerEvent() {
            return outcomeEvents == 0 ? 0 : dynamodbWrites / (double) outcomeEvents;
        }
    }

    /**
     * The card platform's events, fed through the local ingestion queue and IngestEvents before the night.
     *
     * @param published messages sent to the queue, duplicates included
     * @param accepted distinct events applied, counted from the event ids stored on the items
     * @param duplicates deliveries of an event already applied (deleted without a write of their own)
     * @param rejected messages IngestEvents refused: sent to the refused-events queue by the function itself, or reported on
     *                 every receive and never deleted
     * @param deadLettered messages the queue's redrive policy moved to its dead-letter queue
     * @param receives messages received by the mapping, redeliveries included
     * @param invocations IngestEvents invocations, one per received batch
     */
    public record Ingestion(long published, long accepted, long duplicates, long rejected, long deadLettered, long receives,
                            long invocations) {
    }

    public record Cost(long stateTransitions, long lambdaInvocations, long dynamodbRequests, long providerCalls) {
    }

    public boolean invariantsHold() {
        return !invariants.isEmpty() && invariants.values().stream().allMatch(Boolean::booleanValue);
    }
}
