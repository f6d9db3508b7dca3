package com.payments.reconciler.harness.bench;

import com.payments.reconciler.workflow.LambdaFunction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything {@code bin/reconciler bench} measured, with the targets set for it (docs/scale.md) beside the figures; what
 * {@code --json} prints. {@code kind} says whether a figure is an engine-independent count (what AWS
 * would count and bill for the same run) or a ratio/time on the local engines.
 */
public record BenchReport(String engine, Fence fenceOverhead, PerHold requestsPerReleasedHold, Workflow workflow,
                          Scaling scaling, Contention leaseContention, List<NightCost> costPerNight, CapacityFigures capacity,
                          Ingestion ingestion) {

    static final String COUNT = "engine-independent count";
    static final String LOCAL = "local-engine ratio";
    static final String LOCAL_TIME = "local-engine time";
    static final String ENGINE = "moto 5.2.1 served one request at a time with the item-level rollback patch (DynamoDB and Step Functions "
            + "executing the shipped ASL), the real handlers behind a local Lambda Invoke endpoint, the simulated provider on loopback";

    public record Fence(double fencedPerSecond, double unfencedPerSecond, double ratio, double minRatio, double maxRatio,
                        int repetitions, int releasesPerRepetition, double target, boolean met, String kind) {
    }

    public record PerHold(int candidates, long releasedHolds, Map<String, Long> requests, Map<String, Double> byOperation, double total,
                          double excludingIdempotency, double target, boolean met, long writeRequestUnits, double readRequestUnits,
                          long largestItemBytes, String kind) {
    }

    public record Workflow(int candidates, double stateTransitionsPer1000, double lambdaInvocationsPer1000,
                           double naiveStateTransitionsPer1000, double naiveLambdaInvocationsPer1000,
                           double transitionRatioToNaive, double invocationRatioToNaive, double transitionTarget,
                           double invocationTarget, boolean met, List<String> naivePerAuthorisation, List<String> naivePerWindow,
                           String kind) {
    }

    public record Run(int candidates, String status, boolean complete, String error, long decided, long releaseRequested, long delivered,
                      double deliveredPerSecond, double wallSeconds, double candidatesPerSecond, long stateTransitions, long workflowInvocations,
                      long dynamodbRequests, Map<String, Integer> invocations, Map<String, Double> handlerSeconds,
                      InvocationProbe.PageHeap pageHeap, double loadAverageBefore, double loadAverageAfter, ProviderFigures provider) {
    }

    /**
     * One window's provider side: the adapter the night talked through, the requests the provider answered (the simulated
     * provider's or the Adyen fake's own count) per released hold, and with Adyen the webhook path after the night.
     */
    public record ProviderFigures(String adapter, long requests, double requestsPerReleasedHold, WebhookPath webhooks) {
        static ProviderFigures of(String adapter, long requests, long releasedHolds,
                                  com.payments.reconciler.harness.report.RunReport.Webhooks webhooks) {
            return new ProviderFigures(adapter, requests, releasedHolds == 0 ? 0 : requests / (double) releasedHolds,
                    webhooks == null ? null : new WebhookPath(webhooks.rounds(), webhooks.notifications(), webhooks.duplicates(),
                            webhooks.forged(), webhooks.outcomeEvents(), webhooks.dynamodbWrites(), webhooks.writesPerEvent(),
                            webhooks.acknowledgedLeft()));
        }
    }

    /**
     * The Adyen webhook path of one window: CANCELLATION notifications posted to the receiver (duplicates and the forged copy
     * apart), the provider.outcome events IngestEvents consumed, and the handlers' DynamoDB writes over the rounds per event.
     */
    public record WebhookPath(int rounds, int notifications, int duplicates, int forged, long outcomeEvents, long dynamodbWrites,
                              double writesPerEvent, long acknowledgedLeft) {
    }

    public record Ratio(int from, int to, double sizeRatio, double timeRatio, double limit, boolean met) {
    }

    public record Scaling(List<Run> runs, List<Ratio> ratios, boolean heapFits, String kind) {
    }

    public record Contention(int workers, double holdFraction, int transactionsPerWorker, List<LeaseContention.Row> rows, String kind) {
    }

    /** One night's bill at a size, per design, from the counts per candidate of the largest measured window. */
    public record NightCost(int candidates, String design, double stateTransitions, double lambdaRequests, double gigabyteSeconds,
                            double writeRequestUnits, double readRequestUnits, Prices.Night dollars) {
    }

    /**
     * A night at the provider's quota and the recovery of a backlog larger than its budget.
     *
     * @param quotaOfEngine the quota over what the bench's largest unconstrained window delivered per second on these
     *                      engines (the measurement the quota is chosen against; null without one)
     * @param utilisation releases per second at the provider over the quota
     * @param share429 429 answers over the provider's requests
     * @param overConcurrency requests that arrived over the provider's concurrency limit
     */
    public record CapacityFigures(double quota, int maxConcurrentRequests, Double engineDeliveryPerSecond, Double quotaOfEngine,
                                  double utilisation, double utilisationTarget, double share429, double share429Target,
                                  long overConcurrency, boolean met, Capacity.Night night, Capacity.BacklogRecovery backlog, String kind) {

        static CapacityFigures of(Capacity.Result r) {
            boolean met = r.utilisation() >= UTILISATION_TARGET && r.share429() <= SHARE_429_TARGET && r.overConcurrency() == 0
                    && "SUCCEEDED".equals(r.night().status()) && r.night().invariants().values().stream().allMatch(Boolean::booleanValue)
                    && r.backlog().recovered();
            return new CapacityFigures(r.quota(), r.maxConcurrentRequests(), r.engineDeliveryPerSecond(),
                    r.engineDeliveryPerSecond() == null ? null : r.quota() / r.engineDeliveryPerSecond(), r.utilisation(),
                    UTILISATION_TARGET, r.share429(), SHARE_429_TARGET, r.overConcurrency(), met, r.night(), r.backlog(), LOCAL);
        }
    }

    /**
     * The ingestion section: events through the local queue, the harness's event source mapping and the real
     * IngestEvents. Per-event figures are over the events published (duplicates included: each is a message to
     * consume). Writes are DynamoDB write requests, refused conditional writes included (billed all the same).
     *
     * @param gigabyteSecondsPerEvent IngestEvents' handler time on the local engines times its deployed memory: moto
     *                                answers slower than DynamoDB, so an upper bound of what Lambda would bill
     * @param costPerMillionEvents at {@link Prices}, the counts as measured (DynamoDB, SQS send/receive/delete, Lambda)
     */
    public record Ingestion(long events, long distinctEvents, long duplicatesPublished, long endEvents, long settlementDeliveries, long accepted, long duplicates,
                            long rejected, long deadLettered, long invocations, double wallSeconds, double eventsPerSecond,
                            String eventsPerSecondKind, long writeRequests, double writeRequestsPerEvent, double writeRequestsTarget,
                            boolean met, long conditionalFailures, long readRequests, double readRequestsPerEvent,
                            double writeRequestUnitsPerEvent, long largestItemBytes, long sqsSendRequests, long sqsReceiveRequests,
                            long sqsDeleteRequests, double sqsRequestsPerEvent, long harnessQueueDepthPolls, double lambdaInvocationsPerEvent,
                            int memoryMb, double gigabyteSecondsPerEvent, Prices.Ingestion costPerMillionEvents, String kind) {

        static Ingestion of(IngestionRun.Result r, Prices prices) {
            IngestionLedger.Snapshot q = r.requests();
            double events = Math.max(1, r.published());
            double writesPerEvent = q.dynamoWrites() / events;
            int memoryMb = LambdaFunction.INGEST_EVENTS.memoryMb();
            double gbSecondsPerEvent = r.handlerSeconds() * memoryMb / 1024.0 / events;
            double million = 1_000_000;
            Prices.Ingestion cost = prices.ingestion(q.writeRequestUnits() / events * million, 0.5 * q.dynamoReads() / events * million,
                    q.sqsBilled() / events * million, r.tally().invocations() / events * million, gbSecondsPerEvent * million);
            return new Ingestion(r.published(), r.distinct(), r.duplicatesPublished(), r.ends(), r.settlementDeliveries(), r.tally().accepted(), r.tally().duplicates(),
                    r.tally().rejected(), r.tally().deadLettered(), r.tally().invocations(), r.wallSeconds(), r.published() / r.wallSeconds(),
                    LOCAL_TIME + " (moto-bound: one engine process serving one request at a time)", q.dynamoWrites(), writesPerEvent,
                    INGEST_WRITES_TARGET, writesPerEvent <= INGEST_WRITES_TARGET, q.conditionalFailures(), q.dynamoReads(),
                    q.dynamoReads() / events, q.writeRequestUnits() / events, q.largestItemBytes(), q.sqsSends(), q.sqsReceives(),
                    q.sqsDeletes(), q.sqsBilled() / events, q.sqsOther(), r.tally().invocations() / events, memoryMb, gbSecondsPerEvent,
                    cost, COUNT);
        }
    }

    public static final double INGEST_WRITES_TARGET = 1.2;
    public static final double UTILISATION_TARGET = 0.9;
    public static final double SHARE_429_TARGET = 0.01;
    public static final double FENCE_TARGET = 0.85;
    public static final double PER_HOLD_TARGET = 3;
    public static final double TRANSITIONS_TARGET = 15;
    public static final double INVOCATIONS_TARGET = 25;
    /** Linear scaling: ten times the candidates in at most eleven times the time. */
    public static final double SCALING_SLACK = 1.1;
    public static final List<Integer> NIGHT_SIZES = List.of(10_000, 100_000, 1_000_000);

    static BenchReport of(FenceOverhead.Result fence, List<ScaleRun> runs, NaiveDesign naive, List<LeaseContention.Row> contention,
                          LeaseContention.Settings contentionSettings, Prices prices, Capacity.Result capacity,
                          IngestionRun.Result ingestion) {
        Fence f = new Fence(fence.fencedPerSecond(), fence.unfencedPerSecond(), fence.medianRatio(), fence.minRatio(), fence.maxRatio(),
                fence.repetitions(), fence.releasesPerRepetition(), FENCE_TARGET, fence.medianRatio() >= FENCE_TARGET, LOCAL);
        // Counts come from the largest window that completed: an incomplete one decided only part of its candidates.
        ScaleRun largest = runs.stream().filter(ScaleRun::complete).reduce((a, b) -> b).orElse(runs.getLast());

        Map<String, Long> requests = new LinkedHashMap<>();
        Map<String, Double> byOperation = new LinkedHashMap<>();
        for (Purpose purpose : Purpose.values()) {
            requests.put(purpose.label(), largest.requests().of(purpose));
            byOperation.put(purpose.label(), largest.requestsPerRelease(purpose));
        }
        double perHold = largest.requestsPerRelease();
        PerHold holds = new PerHold(largest.candidates(), largest.releaseRequested(), requests, byOperation, perHold,
                perHold - largest.requestsPerRelease(Purpose.IDEMPOTENCY_RECORDS), PER_HOLD_TARGET, perHold <= PER_HOLD_TARGET,
                largest.requests().writeRequestUnits(), largest.requests().readRequestUnits(), largest.requests().largestItemBytes(), COUNT);

        double naiveTransitions = naive.transitions(largest.candidates()) * 1000.0 / largest.candidates();
        double naiveInvocations = naive.invocations(largest.candidates()) * 1000.0 / largest.candidates();
        Workflow workflow = new Workflow(largest.candidates(), largest.transitionsPerThousand(), largest.invocationsPerThousand(),
                naiveTransitions, naiveInvocations, largest.transitionsPerThousand() / naiveTransitions,
                largest.invocationsPerThousand() / naiveInvocations, TRANSITIONS_TARGET, INVOCATIONS_TARGET,
                largest.transitionsPerThousand() <= TRANSITIONS_TARGET && largest.invocationsPerThousand() <= INVOCATIONS_TARGET,
                naive.perAuthorisationStates(), naive.perWindowStates(), COUNT);

        List<Run> rows = runs.stream().map(BenchReport::row).toList();
        List<Ratio> ratios = new ArrayList<>();
        for (int i = 1; i < runs.size(); i++) {
            ScaleRun a = runs.get(i - 1);
            ScaleRun b = runs.get(i);
            double sizeRatio = (double) b.candidates() / a.candidates();
            double timeRatio = b.wallSeconds() / a.wallSeconds();
            // A window that did not complete has no wall time to compare: the ratio is reported, never met.
            ratios.add(new Ratio(a.candidates(), b.candidates(), sizeRatio, timeRatio, sizeRatio * SCALING_SLACK,
                    a.complete() && b.complete() && timeRatio <= sizeRatio * SCALING_SLACK));
        }
        boolean heapFits = runs.stream().allMatch(r -> r.pageHeap().fits());
        Scaling scaling = new Scaling(rows, ratios, heapFits, LOCAL_TIME);

        Contention lease = new Contention(contentionSettings.workers(), contentionSettings.holdFraction(),
                contentionSettings.transactionsPerWorker(), contention, LOCAL);
        return new BenchReport(ENGINE, f, holds, workflow, scaling, lease, nights(largest, naive, prices), CapacityFigures.of(capacity),
                Ingestion.of(ingestion, prices));
    }

    private static Run row(ScaleRun run) {
        Map<String, Integer> invocations = new LinkedHashMap<>();
        run.invocations().entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> invocations.put(e.getKey().logicalName(), e.getValue()));
        Map<String, Double> seconds = new LinkedHashMap<>();
        run.handlerSeconds().entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> seconds.put(e.getKey().logicalName(), e.getValue()));
        return new Run(run.candidates(), run.status(), run.complete(), run.error(), run.decided(), run.releaseRequested(), run.delivered(),
                run.deliveredPerSecond(), run.wallSeconds(), run.candidates() / run.wallSeconds(), run.stateTransitions(), run.workflowInvocations(),
                run.requests().total(), invocations, seconds, run.pageHeap(), run.loadAverageBefore(), run.loadAverageAfter(), run.provider());
    }

    private static List<NightCost> nights(ScaleRun measured, NaiveDesign naive, Prices prices) {
        List<NightCost> nights = new ArrayList<>();
        double perCandidate = 1.0 / measured.candidates();
        long scheduleInvocations = measured.invocations().getOrDefault(LambdaFunction.START_WINDOW, 0);
        for (int size : NIGHT_SIZES) {
            double scale = size * perCandidate;
            double gbSeconds = measured.gigabyteSeconds() * scale;
            double wru = measured.requests().writeRequestUnits() * scale;
            double rru = measured.requests().readRequestUnits() * scale;
            double transitions = measured.stateTransitions() * scale;
            double requests = measured.workflowInvocations() * scale + scheduleInvocations;
            nights.add(new NightCost(size, "this design", transitions, requests, gbSeconds, wru, rru,
                    prices.night(transitions, requests, gbSeconds, wru, rru)));
            double naiveTransitions = naive.transitions(size);
            double naiveRequests = naive.invocations(size) + scheduleInvocations;
            nights.add(new NightCost(size, "naive: one Map iteration per authorisation", naiveTransitions, naiveRequests, gbSeconds,
                    wru, rru, prices.night(naiveTransitions, naiveRequests, gbSeconds, wru, rru)));
        }
        return nights;
    }

    public boolean allTargetsMet() {
        return fenceOverhead.met() && requestsPerReleasedHold.met() && workflow.met()
                && scaling.ratios().stream().allMatch(Ratio::met) && scaling.heapFits() && capacity.met() && ingestion.met();
    }
}
