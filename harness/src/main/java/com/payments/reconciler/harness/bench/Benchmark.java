package com.payments.reconciler.harness.bench;

import com.payments.reconciler.delivery.ProviderAdapters;
import com.payments.reconciler.workflow.EnvVars;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.cli.operator.ExecutionFollower;
import com.payments.reconciler.harness.local.LocalPipeline;
import com.payments.reconciler.harness.local.LocalRun;
import com.payments.reconciler.harness.local.SyntheticData;
import com.payments.reconciler.local.provider.ProviderFaults;
import com.payments.reconciler.window.NightWindow;
import com.payments.reconciler.window.StartResult;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.ProviderQuota;
import com.payments.reconciler.workflow.WorkflowDefinition;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@code bin/reconciler bench}: every figure of the benchmark table measured in one run, on one set of
 * local engines (one moto process, one local Lambda endpoint, one simulated provider):
 * the fence's overhead on the real transaction, the workflow's counts per candidate from real windows at
 * each size, the scaling of wall time, the page handler's heap, and the lease-contention simulation.
 */
public final class Benchmark {

    /** How long one window may take before the benchmark gives up on it. */
    private static final Duration WINDOW_LIMIT = Duration.ofHours(6);

    /**
     * @param sizes due candidates per window, in increasing order
     * @param settledFraction fraction of candidates with a settlement (decided, never released)
     * @param ingestEvents about how many events the ingestion section publishes
     */
    public record Settings(List<Integer> sizes, double settledFraction, int ingestEvents, FenceOverhead.Settings fence,
                           LeaseContention.Settings contention, Capacity.Settings capacity, long seed, Path workDir,
                           ProviderAdapters.Adapter adapter) {
        public Settings {
            sizes = List.copyOf(sizes);
        }

        /** With the default adapter (generic-http). */
        public Settings(List<Integer> sizes, double settledFraction, int ingestEvents, FenceOverhead.Settings fence,
                        LeaseContention.Settings contention, Capacity.Settings capacity, long seed, Path workDir) {
            this(sizes, settledFraction, ingestEvents, fence, contention, capacity, seed, workDir, ProviderAdapters.DEFAULT);
        }
    }

    private final Settings settings;
    private final Consumer<String> console;
    private final Clock wall;
    /** The handlers' clock: the wall's, moved only by an Adyen window's webhook rounds (after the window is timed). */
    private final com.payments.reconciler.harness.local.ShiftableClock clock;
    /** The in-process handlers' DynamoDB requests by operation: an Adyen window's webhook path is costed from it. */
    private final com.payments.reconciler.harness.local.RequestCounter writes = new com.payments.reconciler.harness.local.RequestCounter();

    public Benchmark(Settings settings, Consumer<String> console, Clock wall) {
        this.settings = settings;
        this.console = console;
        this.wall = wall;
        this.clock = new com.payments.reconciler.harness.local.ShiftableClock(wall);
    }

    /**
     * The bench's Adyen webhook rounds: no delay (the window is already timed, and nothing is gained by moving the clock),
     * 20 % duplicated, one forged copy, at most 5 rounds.
     */
    static final com.payments.reconciler.harness.local.AdyenWebhooks.Plan WEBHOOKS =
            new com.payments.reconciler.harness.local.AdyenWebhooks.Plan(5, java.time.Duration.ZERO, 0.2, true);

    /** A quota no local window reaches (moto delivers ≈ 100 commands/s), so delivery runs at the engines' pace. */
    static final ProviderQuota UNCONSTRAINING_QUOTA = new ProviderQuota(10_000, 1_000);

    public BenchReport run() throws InterruptedException {
        RequestLedger ledger = new RequestLedger(LocalPipeline.TABLES);
        IngestionLedger ingestionLedger = new IngestionLedger();
        WindowConfig config = WindowConfig.defaults();
        // The windows measure the job on the local engines, not a provider's quota: configured far above what moto sustains.
        LocalPipeline.Options options = new LocalPipeline.Options(settings.workDir(), clock, false, List.of(ledger, ingestionLedger, writes),
                ProviderFaults.NONE, config.toEnvironment()).withEnv(UNCONSTRAINING_QUOTA.environment())
                .withEnv(Map.of(EnvVars.PROVIDER_ADAPTER, settings.adapter().contextValue()));
        Measured measured;
        try (LocalPipeline pipeline = LocalPipeline.start(options)) {
            console.accept("fence overhead: " + settings.fence().repetitions() + " interleaved repetitions of "
                    + settings.fence().releasesPerRepetition() + " releases per variant");
            try (DynamoDbClient bench = BenchClients.dynamo(pipeline.moto().endpoint(), List.of())) {
                measured = run(pipeline, ledger, ingestionLedger, config, bench);
            }
        }
        // The quota is measured against what these engines deliver unconstrained: the largest window that completed.
        Double engineRate = measured.runs().stream().filter(ScaleRun::complete).reduce((a, b) -> b)
                .map(ScaleRun::deliveredPerSecond).filter(rate -> rate > 0).orElse(null);
        Capacity.Result capacity = new Capacity(settings.capacity(), console, wall).run(engineRate);
        return BenchReport.of(measured.fence(), measured.runs(), NaiveDesign.of(WorkflowDefinition.shipped()), measured.contention(),
                settings.contention(), Prices.US_EAST_1, capacity, measured.ingestion());
    }

    /** What the bench measured on its unconstrained engines, before the capacity section's own. */
    private record Measured(FenceOverhead.Result fence, List<ScaleRun> runs, List<LeaseContention.Row> contention,
                            IngestionRun.Result ingestion) {
    }

    private Measured run(LocalPipeline pipeline, RequestLedger ledger, IngestionLedger ingestionLedger, WindowConfig config, DynamoDbClient bench)
            throws InterruptedException {
        FenceOverhead.Result fence = new FenceOverhead(bench).measure(settings.fence());
        console.accept(String.format("  fenced %.1f/s, unfenced %.1f/s, median ratio %.3f", fence.fencedPerSecond(),
                fence.unfencedPerSecond(), fence.medianRatio()));

        console.accept("lease contention: " + settings.contention().workers() + " shard writers, fence replicas "
                + settings.contention().replicas());
        List<LeaseContention.Row> contention = new LeaseContention(bench, pipeline.moto().endpoint())
                .simulate(settings.contention());
        contention.forEach(row -> console.accept(String.format(Locale.ROOT,
                "  K=%d: p(conflict) %.2f, %.1f tx/s, %.2f attempts per commit, %d committed, %d gave up", row.replicas(),
                row.conflictProbability(), row.transactionsPerSecond(), row.attemptsPerCommit(), row.committed(), row.gaveUp())));

        pipeline.reset();
        IngestionRun.Result ingestion = ingestion(pipeline, ingestionLedger, config);

        List<ScaleRun> runs = new ArrayList<>();
        for (int size : settings.sizes()) {
            pipeline.reset();
            runs.add(window(pipeline, ledger, config, size));
        }

        return new Measured(fence, runs, contention, ingestion);
    }

    private IngestionRun.Result ingestion(LocalPipeline pipeline, IngestionLedger ledger, WindowConfig config) {
        console.accept(String.format("ingestion: about %,d events through the local queue and IngestEvents", settings.ingestEvents()));
        java.time.Instant cutoff = config.nightFor(config.latestStartedWindow(wall.instant())).cutoff();
        IngestionRun.Result r = new IngestionRun(wall).run(pipeline, ledger, settings.ingestEvents(), settings.settledFraction(),
                settings.seed(), cutoff);
        IngestionLedger.Snapshot q = r.requests();
        console.accept(String.format(Locale.ROOT, "  %,d events (%,d distinct, %,d published twice, %,d ends) in %.1f s, %.1f events/s: "
                        + "%,d accepted, %,d duplicates, %,d rejected, %,d invocations; DynamoDB %,d writes (%,d refused by their "
                        + "condition), %,d reads; SQS %,d send, %,d receive, %,d delete requests", r.published(), r.distinct(),
                r.duplicatesPublished(), r.ends(), r.wallSeconds(), r.published() / r.wallSeconds(), r.tally().accepted(),
                r.tally().duplicates(), r.tally().rejected(), r.tally().invocations(), q.dynamoWrites(), q.conditionalFailures(),
                q.dynamoReads(), q.sqsSends(), q.sqsReceives(), q.sqsDeletes()));
        return r;
    }

    private ScaleRun window(LocalPipeline pipeline, RequestLedger ledger, WindowConfig config, int size) {
        WindowId window = config.latestStartedWindow(wall.instant());
        NightWindow input = config.nightFor(window);
        SyntheticData data = new SyntheticData(size, settings.settledFraction(), 0.0, settings.seed());
        console.accept(String.format("window of %,d candidates: loading", size));
        SyntheticData.Expected expected;
        try (DynamoDbClient loader = BenchClients.dynamo(pipeline.moto().endpoint(), List.of())) {
            expected = data.load(loader, pipeline.tables(), input.cutoff(), input.shards(), LocalRun.providerReferences(settings.adapter()));
        }
        pipeline.settlementFeedComplete();
        data.settledIds(input.cutoff()).forEach(pipeline::capture);
        pipeline.writeLog().clear();
        InvocationProbe probe = new InvocationProbe(() -> pipeline.writeLog().clear());
        pipeline.hook(probe);
        ledger.reset();

        double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        long started = System.nanoTime();
        String scheduledTime = input.windowStart().toString();
        StartResult first = LocalRun.deliverScheduleEvent(pipeline, scheduledTime);
        LocalRun.deliverScheduleEvent(pipeline, scheduledTime);
        ExecutionFollower.Followed followed = new ExecutionFollower(pipeline.sfn()).follow(first.executionArn(), event -> { }, WINDOW_LIMIT);
        double seconds = (System.nanoTime() - started) / 1e9;
        double loadAfter = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        pipeline.hook(null);

        JsonNode summary = followed.output().map(Benchmark::readTree).orElse(Json.mapper().createObjectNode());
        long decided = summary.path("reconcile").path("candidates").asLong();
        long released = summary.path("reconcile").path("releaseRequested").asLong();
        long settled = summary.path("reconcile").path("skippedSettled").asLong();
        long delivered = summary.path("delivery").path("delivered").asLong();
        RequestLedger.Snapshot requests = ledger.snapshot();
        com.payments.reconciler.harness.report.RunReport.Webhooks webhooks = null;
        if (pipeline.adyen().isPresent()) {
            // Acknowledged by the night, DELIVERED by their CANCELLATION notifications: delivered is counted in the table after them.
            try (com.payments.reconciler.harness.ingest.LocalIngestQueue queue = com.payments.reconciler.harness.ingest.LocalIngestQueue.create(
                    pipeline.engineEndpoint(), "local-", LocalRun.localMapping(LocalPipeline.Hosting.IN_PROCESS))) {
                webhooks = new com.payments.reconciler.harness.local.AdyenWebhooks(pipeline, clock, wall, WEBHOOKS, console)
                        .run(queue, writes::byOperation).webhooks();
            }
            delivered = com.payments.reconciler.harness.local.OutboxTally.of(com.payments.reconciler.audit.StoreSnapshot.scan(pipeline.dynamo(),
                    pipeline.tables()), window.toString()).delivered();
        }
        boolean complete = followed.succeeded() && decided == expected.due() && released == expected.releasable() && delivered == released;
        Map<LambdaFunction, Integer> invocations = pipeline.invocationCounts();
        long workflowInvocations = invocations.entrySet().stream().filter(e -> e.getKey().invokedByWorkflow())
                .mapToLong(Map.Entry::getValue).sum();
        long providerCalls = pipeline.providerRequests();
        List<Long> releasedAt = pipeline.providerReleases().stream().map(com.payments.reconciler.audit.ProviderRelease::performedAt).sorted().toList();
        double deliveredPerSecond = releasedAt.size() < 2 || releasedAt.getLast().equals(releasedAt.getFirst()) ? 0
                : (releasedAt.size() - 1) * 1000.0 / (releasedAt.getLast() - releasedAt.getFirst());
        String error = followed.succeeded() ? "" : followed.error().orElse("") + ": " + followed.cause().orElse("")
                + lastTaskFailure(followed);
        ScaleRun run = new ScaleRun(size, followed.status().toString(), complete, error, decided, released, settled, delivered, providerCalls,
                deliveredPerSecond, seconds, followed.stateTransitions(), workflowInvocations, invocations, probe.handlerSeconds(), requests,
                probe.pageHeap(), loadBefore, loadAfter,
                BenchReport.ProviderFigures.of(settings.adapter().contextValue(), providerCalls, released, webhooks));
        console.accept(String.format("  %s in %.1f s: %,d decided, %,d released, %,d delivered; %d state transitions, %d workflow "
                        + "invocations, %,d DynamoDB requests%s", run.status(), seconds, decided, released, delivered,
                run.stateTransitions(), workflowInvocations, run.requests().total(), complete ? "" : " — INCOMPLETE: " + error));
        for (Purpose purpose : Purpose.values()) {
            console.accept(String.format(Locale.ROOT, "    %-28s %,9d requests, %.3f per released hold", purpose.label(),
                    run.requests().of(purpose), run.requestsPerRelease(purpose)));
        }
        console.accept(String.format(Locale.ROOT, "    provider (%s adapter): %,d requests, %.3f per released hold",
                settings.adapter().contextValue(), providerCalls, providerCalls / (double) Math.max(1, released)));
        if (webhooks != null) {
            console.accept(String.format(Locale.ROOT, "    webhook path: %,d notifications (+%,d duplicates, %d forged) in %d rounds, %,d provider.outcome "
                            + "events ingested, %,d DynamoDB writes, %.3f per event; %,d left ACKNOWLEDGED", webhooks.notifications(),
                    webhooks.duplicates(), webhooks.forged(), webhooks.rounds(), webhooks.outcomeEvents(), webhooks.dynamodbWrites(),
                    webhooks.writesPerEvent(), webhooks.acknowledgedLeft()));
        }
        console.accept(String.format(Locale.ROOT, "    %.3f requests, %.2f WRU and %.3f RRU per released hold; page heap peak %.0f MB, "
                        + "live %.0f MB; system load average %.1f → %.1f", run.requestsPerRelease(),
                (double) run.requests().writeRequestUnits() / Math.max(1, released), run.requests().readRequestUnits() / Math.max(1, released),
                run.pageHeap().peakInUseMb(), run.pageHeap().liveAfterCallMb(), loadBefore, loadAfter));
        return run;
    }

    /** The last task failure in the history (the execution's own cause may only name the state). */
    private static String lastTaskFailure(ExecutionFollower.Followed followed) {
        return followed.events().reversed().stream()
                .filter(e -> e.lambdaFunctionFailedEventDetails() != null || e.taskFailedEventDetails() != null)
                .findFirst()
                .map(e -> e.lambdaFunctionFailedEventDetails() != null
                        ? " (last task failure: " + e.lambdaFunctionFailedEventDetails().error() + ": " + e.lambdaFunctionFailedEventDetails().cause() + ")"
                        : " (last task failure: " + e.taskFailedEventDetails().error() + ": " + e.taskFailedEventDetails().cause() + ")")
                .orElse("");
    }

    private static JsonNode readTree(String json) {
        try {
            return Json.mapper().readTree(json);
        } catch (IOException e) {
            throw new IllegalStateException("the execution's output is not JSON: " + json, e);
        }
    }
}
