package com.payments.reconciler.harness.local;

import com.payments.reconciler.delivery.ProviderAdapters;

import com.payments.reconciler.cli.operator.HistoryRenderer;
import com.payments.reconciler.cli.operator.ExecutionFollower;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.audit.InvariantAudit;
import com.payments.reconciler.audit.ProviderEffect;
import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.harness.aws.AwsCallRecorder;
import com.payments.reconciler.harness.aws.SynthesizedTemplate;
import com.payments.reconciler.harness.ingest.EventOutcomes;
import com.payments.reconciler.harness.ingest.EventsFile;
import com.payments.reconciler.harness.ingest.LocalIngestQueue;
import com.payments.reconciler.harness.ingest.MappingSpec;
import com.payments.reconciler.harness.ingest.PlatformFeed;
import com.payments.reconciler.harness.report.ExecutionCounts;
import com.payments.reconciler.harness.report.FencedRefusals;
import com.payments.reconciler.harness.report.NightPhases;
import com.payments.reconciler.harness.report.RunReport;
import com.payments.reconciler.harness.report.StateDump;
import com.payments.reconciler.harness.report.WouldRelease;
import com.payments.reconciler.local.moto.WriteLog;
import com.payments.reconciler.local.provider.Fault;
import com.payments.reconciler.local.provider.ProviderFaults;
import com.payments.reconciler.local.provider.RequestQuota;
import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.window.NightWindow;
import com.payments.reconciler.window.ExecutionName;
import com.payments.reconciler.window.StartResult;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.window.WindowStarter;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.ErrorNames;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.JsonHandler;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.ProviderKeyRetention;
import com.payments.reconciler.workflow.ProviderQuota;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;

/**
 * {@code bin/reconciler local}: one nightly window end to end on the local engines (docs/design.md §12). The
 * Scheduler event goes to StartWindow through the Lambda Invoke API (twice, as Scheduler may deliver
 * it), the execution runs the shipped ASL in moto, and the report's invariants are checked from the
 * stored tables and the provider's effect log. Scenarios replay the failure modes the design is for.
 */
public final class LocalRun {

    public enum Scenario { NONE, FAILOVER, DUPLICATE_START, PROVIDER_LOST_RESPONSE, ENDED_AFTER_DECISION, SETTLEMENT_FEED_OUTAGE, DEAD_LETTERED_SETTLEMENT }

    /**
     * @param dynamoFaults the handlers' DynamoDB fault layer (empty for none)
     * @param hosting how the functions run (sandboxes from the synthesised template, or in this JVM)
     * @param providerQuota a quota the simulated provider enforces and the night is configured with; empty: the
     *                      stack's configured quota, not enforced by the provider
     * @param events a person's own events (local --events): published instead of the synthetic data, which is then unused
     * @param providerKeyRetention how long the simulated provider keeps idempotency keys (on the run's clock), and what the
     *                             night is configured with; empty: the stack's configured retention
     * @param provider the adapter DeliverCommands talks through: the simulated provider speaks generic-http and Stripe's
     *                 format; with adyen the night talks to the Adyen fake and ends with the webhook phase ({@link AdyenWebhooks})
     * @param webhooks how the harness delivers the Adyen fake's notifications after the night (adyen only)
     */
    public record Options(WindowId window, WindowConfig config, SyntheticData data, Scenario scenario,
                          Optional<Path> dumpState, Path workDir, List<ExecutionInterceptor> dynamoFaults,
                          ProviderFaults providerFaults, boolean fastRetries, LocalPipeline.Hosting hosting,
                          Optional<ProviderQuota> providerQuota, Optional<EventsFile> events,
                          Optional<ProviderKeyRetention> providerKeyRetention, ProviderAdapters.Adapter provider,
                          AdyenWebhooks.Plan webhooks) {

        /** With the local night's webhook plan ({@link AdyenWebhooks.Plan#DEFAULT}, used by the Adyen adapter only). */
        public Options(WindowId window, WindowConfig config, SyntheticData data, Scenario scenario,
                       Optional<Path> dumpState, Path workDir, List<ExecutionInterceptor> dynamoFaults,
                       ProviderFaults providerFaults, boolean fastRetries, LocalPipeline.Hosting hosting,
                       Optional<ProviderQuota> providerQuota, Optional<EventsFile> events,
                       Optional<ProviderKeyRetention> providerKeyRetention, ProviderAdapters.Adapter provider) {
            this(window, config, data, scenario, dumpState, workDir, dynamoFaults, providerFaults, fastRetries, hosting, providerQuota,
                    events, providerKeyRetention, provider, AdyenWebhooks.Plan.DEFAULT);
        }

        /** With the default adapter (generic-http). */
        public Options(WindowId window, WindowConfig config, SyntheticData data, Scenario scenario,
                       Optional<Path> dumpState, Path workDir, List<ExecutionInterceptor> dynamoFaults,
                       ProviderFaults providerFaults, boolean fastRetries, LocalPipeline.Hosting hosting,
                       Optional<ProviderQuota> providerQuota, Optional<EventsFile> events,
                       Optional<ProviderKeyRetention> providerKeyRetention) {
            this(window, config, data, scenario, dumpState, workDir, dynamoFaults, providerFaults, fastRetries, hosting, providerQuota,
                    events, providerKeyRetention, ProviderAdapters.DEFAULT);
        }

        public Options(WindowId window, WindowConfig config, SyntheticData data, Scenario scenario, Optional<Path> dumpState, Path workDir,
                       List<ExecutionInterceptor> dynamoFaults, ProviderFaults providerFaults, boolean fastRetries,
                       LocalPipeline.Hosting hosting, Optional<ProviderQuota> providerQuota, Optional<EventsFile> events) {
            this(window, config, data, scenario, dumpState, workDir, dynamoFaults, providerFaults, fastRetries, hosting, providerQuota,
                    events, Optional.empty());
        }

        /** A night on the synthetic data. */
        public Options(WindowId window, WindowConfig config, SyntheticData data, Scenario scenario, Optional<Path> dumpState, Path workDir,
                       List<ExecutionInterceptor> dynamoFaults, ProviderFaults providerFaults, boolean fastRetries,
                       LocalPipeline.Hosting hosting, Optional<ProviderQuota> providerQuota) {
            this(window, config, data, scenario, dumpState, workDir, dynamoFaults, providerFaults, fastRetries, hosting, providerQuota,
                    Optional.empty());
        }

        public Options {
            dynamoFaults = List.copyOf(dynamoFaults);
            if (hosting instanceof LocalPipeline.Sandboxes && (scenario == Scenario.FAILOVER || !dynamoFaults.isEmpty())) {
                // Both act inside the handlers' own SDK clients, which only in-process hosting shares with the runner.
                throw new IllegalArgumentException("--engine lambda-sandboxes cannot pause a worker (--scenario failover) or inject "
                        + "DynamoDB faults (--faults ddb-*); use --engine in-process for those");
            }
        }
    }

    /**
     * The report, the followed executions, what the data implied, and what the scenario found wrong beyond the
     * invariants (e.g. an authorisation ended after the decision and released anyway).
     */
    public record Outcome(RunReport report, List<ExecutionFollower.Followed> executions, SyntheticData.Expected expected,
                          InvariantAudit.Report audit, List<String> scenarioFindings) {
        public Outcome {
            scenarioFindings = List.copyOf(scenarioFindings);
        }

        public boolean succeeded() {
            return "SUCCEEDED".equals(report.execution().status()) && report.invariantsHold() && scenarioFindings.isEmpty();
        }
    }

    private static final ObjectMapper JSON = Json.mapper();
    static final String LOCAL_QUEUE_PREFIX = com.payments.reconciler.harness.aws.LocalResources.LOCAL_QUEUE_PREFIX;
    private final Options options;
    private final Consumer<String> console;
    private final Clock wall;

    public LocalRun(Options options, Consumer<String> console, Clock wall) {
        this.options = options;
        this.console = console;
        this.wall = wall;
    }

    public Outcome run() throws InterruptedException {
        ShiftableClock clock = new ShiftableClock(wall);
        ExecutionName scheduledName = ExecutionName.scheduled(options.window());
        WritePause pause = new WritePause(scheduledName.toString());
        RequestCounter requests = new RequestCounter();
        List<ExecutionInterceptor> interceptors = new ArrayList<>(options.dynamoFaults());
        interceptors.add(requests);
        if (options.scenario() == Scenario.FAILOVER) {
            interceptors.add(pause);
        }
        LocalPipeline.Options pipelineOptions = new LocalPipeline.Options(options.workDir(), clock, options.fastRetries(),
                interceptors, options.providerFaults(), options.config().toEnvironment()).withHosting(options.hosting())
                .withProviderQuota(options.providerQuota())
                .withEnv(options.providerKeyRetention().orElse(ProviderKeyRetention.DEFAULT).environment())
                .withEnv(Map.of(EnvVars.PROVIDER_ADAPTER, options.provider().contextValue()));
        long runStarted = System.nanoTime();
        try (LocalPipeline pipeline = LocalPipeline.start(pipelineOptions)) {
            NightWindow input = options.config().nightFor(options.window());
            console.accept("window " + options.window() + ": cutoff " + input.cutoff() + " (window start " + input.windowStart()
                    + " minus grace " + input.gracePeriod() + "), " + input.shards() + " shards" + (input.dryRun() ? ", DRY RUN" : ""));
            // The card platform's side: the data as events, through the ingestion queue and the real IngestEvents.
            SyntheticData.Expected expected;
            PlatformFeed.Tally ingestion;
            List<String> platformEvents = new ArrayList<>();
            String refusedSettlementOf = null; // dead-lettered-settlement: the authorisation whose settlement was refused
            List<EventOutcomes.Entry> perEvent = List.of();
            long ingestionStarted = System.nanoTime();
            try (LocalIngestQueue queue = LocalIngestQueue.create(pipeline.engineEndpoint(), LOCAL_QUEUE_PREFIX, localMapping(options.hosting()))) {
                PlatformFeed feed = ingestionFeed(queue, pipeline);
                if (options.events().isPresent()) {
                    // A person's own events: the night decides on exactly these, no synthetic data.
                    EventsFile file = options.events().get();
                    PlatformFeed.Recorded recorded = feed.feedRecorded(file.bodies(), 0, () -> StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables()));
                    ingestion = recorded.tally();
                    StoreSnapshot ingested = StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables());
                    perEvent = EventOutcomes.of(file, recorded.messageIds(), recorded.refused(), EventOutcomes.appliedEventIds(ingested));
                    expected = expectedFrom(ingested, input.cutoff());
                    var counts = EventOutcomes.counts(perEvent);
                    console.accept("events of " + file.file() + ": " + file.lines().size() + " lines: " + counts.get(EventOutcomes.Outcome.ACCEPTED)
                            + " accepted, " + counts.get(EventOutcomes.Outcome.DUPLICATE) + " duplicate, " + counts.get(EventOutcomes.Outcome.REFUSED)
                            + " refused" + (options.dumpState().isPresent() ? " (each in " + EventOutcomes.FILE + ")" : ""));
                } else {
                    SyntheticEvents events = options.data().events(input.cutoff(), providerReferences(options.provider()));
                    expected = events.expected();
                    // The provider's side of the same data: a settled authorisation's hold was captured there (a stray
                    // release meets the provider's refusal, Stripe's payment_intent_unexpected_state).
                    options.data().settledIds(input.cutoff()).forEach(pipeline::capture);
                    // After its events, the platform's settlement watermark: every settlement was published by now. In the
                    // outage, the publisher stopped a day ago: what it held back is not published, its watermark is old.
                    List<String> bodies;
                    if (options.scenario() == Scenario.SETTLEMENT_FEED_OUTAGE) {
                        bodies = FeedOutage.published(events.bodies(), clock.instant(), console);
                    } else if (options.scenario() == Scenario.DEAD_LETTERED_SETTLEMENT) {
                        DeadLetteredSettlement.Published published = DeadLetteredSettlement.published(
                                events.bodiesWithWatermark(clock.instant()), input.cutoff(), console);
                        bodies = published.bodies();
                        refusedSettlementOf = published.authorisationId();
                    } else {
                        bodies = events.bodiesWithWatermark(clock.instant());
                    }
                    platformEvents.addAll(FeedOutage.lines(bodies, clock.instant()));
                    ingestion = feed.feed(bodies, 0, () -> StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables()));
                    console.accept("the data: " + expected.authorisations() + " authorisations: " + expected.due() + " older than the cutoff ("
                            + expected.dueAndSettled() + " of them settled), " + expected.young() + " younger (" + events.ends() + " of them voided or expired)");
                }
            }
            long ingestionEnded = System.nanoTime();
            console.accept("ingested " + ingestion.published() + " events through the queue and IngestEvents (" + ingestion.invocations()
                    + " invocations): " + ingestion.accepted() + " accepted, " + ingestion.duplicates() + " duplicates, "
                    + ingestion.rejected() + " rejected, " + ingestion.deadLettered() + " dead-lettered");
            if (options.events().isPresent()) {
                console.accept("the data: " + expected.authorisations() + " authorisations: " + expected.due() + " pending and older than the cutoff ("
                        + expected.dueAndSettled() + " of them settled), " + expected.young() + " others (younger, voided or expired)");
            }
            pipeline.writeLog().clear();
            requests.reset();
            pipeline.awsCalls().ifPresent(AwsCallRecorder::clear);
            String scheduledTime = input.windowStart().toString();

            List<ExecutionFollower.Followed> followed = new ArrayList<>();
            List<String> findings = new ArrayList<>();
            int suppressed = switch (options.scenario()) {
                case NONE, PROVIDER_LOST_RESPONSE, SETTLEMENT_FEED_OUTAGE, DEAD_LETTERED_SETTLEMENT -> {
                    if (options.scenario() == Scenario.PROVIDER_LOST_RESPONSE) {
                        dropFirstResponses(pipeline, expected);
                    }
                    // Each shard's backlog for its progress line, counted before its first delivery call runs.
                    ShardBacklog backlog = new ShardBacklog(input.shards(),
                            new com.payments.reconciler.delivery.PendingCommands(pipeline.dynamo(), pipeline.tables().releaseCommands())::count);
                    pipeline.hook(backlog);
                    StartResult first = deliverScheduleEvent(pipeline, scheduledTime);
                    StartResult second = deliverScheduleEvent(pipeline, scheduledTime);
                    followed.add(follow(pipeline, first.executionArn(), expected, backlog::counted));
                    pipeline.hook(InvocationHook.NONE);
                    yield countSuppressed(first, second);
                }
                case DUPLICATE_START -> duplicateStart(pipeline, scheduledTime, expected, followed);
                case FAILOVER -> failover(pipeline, clock, pause, scheduledTime, input, expected, followed);
                case ENDED_AFTER_DECISION -> endedAfterDecision(pipeline, clock, scheduledTime, expected, followed, findings);
            };

            ExecutionFollower.Followed last = followed.getLast();
            RunReport.Webhooks webhooks = null;
            if (options.provider() == ProviderAdapters.Adapter.ADYEN) {
                // The deployed night does not wait for Adyen's outcomes; a local one is judged at its end, so it waits here.
                try (LocalIngestQueue queue = LocalIngestQueue.create(pipeline.engineEndpoint(), LOCAL_QUEUE_PREFIX, localMapping(options.hosting()))) {
                    AdyenWebhooks.Result result = new AdyenWebhooks(pipeline, clock, wall, options.webhooks(), console).run(queue, requests::byOperation);
                    webhooks = result.webhooks();
                    findings.addAll(result.findings());
                }
            }
            PipelineEvidence evidence = PipelineEvidence.of(pipeline);
            if (options.scenario() == Scenario.SETTLEMENT_FEED_OUTAGE) {
                findings.addAll(FeedOutage.findings(last, evidence.effects(), platformEvents));
                findings.forEach(f -> console.accept("SCENARIO: " + f));
            }
            if (options.scenario() == Scenario.DEAD_LETTERED_SETTLEMENT) {
                findings.addAll(DeadLetteredSettlement.findings(refusedSettlementOf, last, evidence.effects(), platformEvents));
                findings.forEach(f -> console.accept("SCENARIO: " + f));
                console.accept("dead-lettered-settlement: heldForFeed " + DeadLetteredSettlement.heldForFeed(last));
            }
            boolean heldWhole = pipeline.deadLettersHoldTheNight();
            if (heldWhole) {
                // Why the night released nothing, in the report as well as in the functions' log lines.
                console.accept("held for feed: the ingestion dead-letter queue held messages (or could not be read), so the night "
                        + "released nothing (docs/operating.md, \"Runbook: held for feed\")");
            }
            if (pipeline.queueDepth(LocalPipeline.localRefusedQueueUrl())
                    instanceof com.payments.reconciler.reconcile.DeadLetterDepth.NotEmpty(long refusedMessages)) {
                // Where the refusals went: they hold only what their hold items name, never the night on their own.
                console.accept("refused events: about " + refusedMessages + " in the refused-events queue; a refused settlement "
                        + "holds what its hold item names (bin/reconciler holds list; docs/operating.md, \"Runbook: held for feed\")");
            }
            StoreSnapshot snapshot = evidence.snapshot();
            List<ProviderEffect> effects = evidence.effects();
            InvariantAudit.Completion completion = input.dryRun() || !last.succeeded() ? null
                    : new InvariantAudit.Completion(input.cutoff(), true, declaredBacklog(last), heldWhole);
            InvariantAudit.Report audit = evidence.audit(completion);
            audit.violations().forEach(v -> console.accept("VIOLATION " + v.invariant() + ": " + v.detail()));
            List<WouldRelease.Entry> wouldRelease = input.dryRun() ? WouldRelease.from(snapshot, input.cutoff(), heldWhole) : List.of();
            long nightsCount = last.output().map(LocalRun::readTree).orElse(JSON.createObjectNode()).path("reconcile").path("wouldRelease").asLong();
            if (input.dryRun() && nightsCount != wouldRelease.size()) {
                console.accept("DRY RUN MISMATCH: the night counted " + nightsCount + " releases it would request; the tables imply " + wouldRelease.size());
            }
            List<EventOutcomes.Entry> eventLines = perEvent;
            options.dumpState().ifPresent(dir -> {
                StateDump.write(dir, snapshot, effects);
                console.accept("state dumped to " + dir.resolve(StateDump.TABLES) + " and " + dir.resolve(StateDump.PROVIDER_EFFECTS));
                if (!platformEvents.isEmpty()) {
                    FeedOutage.write(dir, platformEvents);
                    console.accept("what the platform published in " + dir.resolve(FeedOutage.PLATFORM_EVENTS));
                }
                if (options.events().isPresent()) {
                    EventOutcomes.write(dir, eventLines);
                    console.accept("each event's outcome in " + dir.resolve(EventOutcomes.FILE));
                }
                if (input.dryRun()) {
                    WouldRelease.write(dir, wouldRelease);
                    console.accept("what the dry run would release in " + dir.resolve(WouldRelease.FILE));
                }
            });
            RunReport.Phases phases = new RunReport.Phases(seconds(runStarted, ingestionStarted), seconds(ingestionStarted, ingestionEnded),
                    NightPhases.of(last.events()));
            RunReport report = report(suppressed, expected, followed, pipeline, requests, effects, audit,
                    OutboxTally.of(snapshot, options.window().toString()), ingestion, wouldRelease.size(), pipeline.writeLog().refusals(), webhooks,
                    phases);
            return new Outcome(report, List.copyOf(followed), expected, audit, findings);
        }
    }

    /**
     * The stack's ingestion queue and mapping as the template defines them; the harness's mapping gives a reported
     * message back to the queue as soon as the invocation answered, rather than after the visibility timeout
     * (docs/emulator-differences.md, "Ingestion").
     */
    public static MappingSpec localMapping(LocalPipeline.Hosting hosting) {
        SynthesizedTemplate template = hosting instanceof LocalPipeline.Sandboxes(SynthesizedTemplate t) ? t : SynthesizedTemplate.load();
        return MappingSpec.fromTemplate(template);
    }

    /**
     * The platform's feed, printing "n of m" while it lasts longer than {@link ProgressLines#EVERY}: the synthetic data
     * with the mapping's pollers; a person's own events ({@code --events}) with one, in the file's order, so that the
     * same file always makes the same night (with several pollers, e.g. a settlement may be applied before or after its
     * authorisation's creation, and the night then counts it differently).
     */
    private PlatformFeed ingestionFeed(LocalIngestQueue queue, LocalPipeline pipeline) {
        int pollers = options.events().isPresent() ? 1 : queue.spec().pollers();
        ProgressLines lines = new ProgressLines(wall, console);
        boolean sandboxes = options.hosting() instanceof LocalPipeline.Sandboxes;
        return new PlatformFeed(queue, pipeline.lambdaEndpoint(), wall, pollers, sandboxes).withProgress((done, total) -> lines.offer(() ->
                String.format(java.util.Locale.ROOT, "  ingestion: %,d of %,d events (%d pollers)", done, total, pollers)));
    }

    /** Scheduler's delivery: the Lambda Invoke API of StartWindow with the target input the stack defines. */
    public static StartResult deliverScheduleEvent(LocalPipeline pipeline, String scheduledTime) {
        String body = JSON.createObjectNode().put("scheduledTime", scheduledTime).toString();
        URI uri = pipeline.lambdaEndpoint().resolve("/2015-03-31/functions/" + LambdaFunction.START_WINDOW.logicalName() + "/invocations");
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            if (response.headers().firstValue("X-Amz-Function-Error").isPresent()) {
                throw new IllegalStateException("StartWindow failed: " + new String(response.body()));
            }
            return JsonHandler.parse(response.body(), StartResult.class);
        } catch (IOException e) {
            throw new IllegalStateException("could not reach the local Lambda endpoint", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static int countSuppressed(StartResult... results) {
        int n = 0;
        for (StartResult r : results) {
            n += r.duplicateSuppressed() ? 1 : 0;
        }
        return n;
    }

    private ExecutionFollower.Followed follow(LocalPipeline pipeline, String executionArn, SyntheticData.Expected expected) {
        return follow(pipeline, executionArn, expected, Map::of);
    }

    /** {@code backlog}: each shard's commands when delivery started, for the progress lines' "n of m" (empty: not counted). */
    private ExecutionFollower.Followed follow(LocalPipeline pipeline, String executionArn, SyntheticData.Expected expected,
                                              java.util.function.Supplier<Map<Integer, Long>> backlog) {
        String name = ExecutionName.lastSegmentOf(executionArn);
        console.accept("following " + name);
        // Times from the execution's start, as the console shows them (it may have started before it is followed).
        HistoryRenderer renderer = new HistoryRenderer(pipeline.sfn().describeExecution(b -> b.executionArn(executionArn)).startDate());
        int shards = options.config().nightFor(options.window()).shards();
        DeliveryWatch watch = new DeliveryWatch(pipeline, shards);
        NightProgress progress = new NightProgress(wall, console, requested -> new DeliveryProgress(requested, shards,
                nightQuota(pipeline).requestsPerSecond(), Math.min(shards, com.payments.reconciler.workflow.Timing.DELIVERY_MAP_CONCURRENCY),
                wall.instant()), watch::deliveredPerShard, backlog);
        // A tick a second: the clock decides when a delivery line is due (ProgressLines), the tick only asks.
        java.util.concurrent.ScheduledExecutorService ticker = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
                Thread.ofVirtual().name("progress-tick").factory());
        ticker.scheduleAtFixedRate(progress::tick, 1, 1, TimeUnit.SECONDS);
        try {
            // The end of a successful execution is the summary's first line; a failure's error is shown here.
            return pipeline.follow(executionArn, event -> {
                if (!"ExecutionSucceeded".equals(event.typeAsString())) {
                    renderer.render(event).ifPresent(line -> console.accept("  " + name + " " + line));
                }
                progress.on(event);
            });
        } finally {
            ticker.shutdownNow();
        }
    }

    /** The scheduled run, then two more deliveries while it runs (held at its first page), then one after it closed. */
    private int duplicateStart(LocalPipeline pipeline, String scheduledTime, SyntheticData.Expected expected,
                               List<ExecutionFollower.Followed> followed) throws InterruptedException {
        CountDownLatch atFirstPage = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        pipeline.hook(new InvocationHook() {
            @Override
            public InjectedFailure before(LambdaFunction function, int invocation, byte[] payload) {
                if (function == LambdaFunction.RECONCILE_PAGE && invocation == 1) {
                    atFirstPage.countDown();
                    await(release);
                }
                return null;
            }
        });
        StartResult first = deliverScheduleEvent(pipeline, scheduledTime);
        if (!atFirstPage.await(2, TimeUnit.MINUTES)) {
            throw new IllegalStateException("the first execution never reached its first page");
        }
        StartResult second = deliverScheduleEvent(pipeline, scheduledTime);
        StartResult third = deliverScheduleEvent(pipeline, scheduledTime);
        console.accept("delivered the occurrence twice more while " + first.executionName() + " runs: "
                + (second.duplicateSuppressed() && third.duplicateSuppressed() ? "both suppressed" : "NOT suppressed"));
        release.countDown();
        followed.add(follow(pipeline, first.executionArn(), expected));
        StartResult late = deliverScheduleEvent(pipeline, scheduledTime);
        console.accept("delivered it once more after the execution closed: " + (late.duplicateSuppressed() ? "suppressed" : "NOT suppressed"));
        long executions = pipeline.sfn().listExecutions(b -> b.stateMachineArn(pipeline.stateMachineArn())).executions().size();
        console.accept("executions of the state machine: " + executions);
        return countSuppressed(second, third, late);
    }

    /**
     * The incident: execution A is paused after reading and checking an authorisation, its lease
     * expires, a rerun B takes over and completes the window; A resumes, its write is refused (Fenced)
     * and A ends Superseded.
     */
    private int failover(LocalPipeline pipeline, ShiftableClock clock, WritePause pause, String scheduledTime, NightWindow input,
                         SyntheticData.Expected expected, List<ExecutionFollower.Followed> followed) throws InterruptedException {
        StartResult a = deliverScheduleEvent(pipeline, scheduledTime);
        if (!pause.awaitPaused(2, TimeUnit.MINUTES)) {
            throw new IllegalStateException(a.executionName() + " never reached its first write");
        }
        console.accept(a.executionName() + " is paused just before its first write (a GC pause); advancing the clock past its lease");
        clock.advance(com.payments.reconciler.workflow.Timing.LEASE_DURATION.plusMinutes(1));
        WindowStarter starter = new WindowStarter(pipeline.sfn(), pipeline.stateMachineArn(),
                new EmfMetrics(clock, "cli", line -> { }));
        StartResult b = starter.startRerun(options.window(), input.executionInput(), true);
        console.accept("operator reruns the window as " + b.executionName());
        ExecutionFollower.Followed rerun = follow(pipeline, b.executionArn(), expected);
        console.accept(a.executionName() + " resumes");
        pause.resume();
        ExecutionFollower.Followed stale = follow(pipeline, a.executionArn(), expected);
        followed.add(stale);
        followed.add(rerun);
        return 0;
    }

    /**
     * Voids, expiries and captures published after the decision and applied before any delivery call: the night must
     * cancel those commands before calling the provider ({@link EndsAfterDecision}).
     */
    private int endedAfterDecision(LocalPipeline pipeline, ShiftableClock clock, String scheduledTime, SyntheticData.Expected expected,
                                   List<ExecutionFollower.Followed> followed, List<String> findings) {
        try (EndsAfterDecision ends = new EndsAfterDecision(pipeline, clock, options.window().toString(), options.data().seed(), console)) {
            pipeline.hook(ends);
            StartResult first = deliverScheduleEvent(pipeline, scheduledTime);
            StartResult second = deliverScheduleEvent(pipeline, scheduledTime);
            followed.add(follow(pipeline, first.executionArn(), expected));
            pipeline.hook(InvocationHook.NONE);
            if (ends.chosen().isEmpty()) {
                findings.add("ended-after-decision: the night never reached delivery, so nothing was ended after its decision");
            }
            List<String> released = ends.releasedAnyway(pipeline.providerEffects());
            if (!released.isEmpty()) {
                findings.add("ended-after-decision: released although voided, expired or captured before delivery: " + released);
            }
            findings.forEach(f -> console.accept("FINDING " + f));
            return countSuppressed(first, second);
        }
    }

    private static void dropFirstResponses(LocalPipeline pipeline, SyntheticData.Expected expected) {
        // The provider performs the first release of the first ten authorisations and drops its response.
        for (int i = 0; i < Math.min(10, expected.authorisations()); i++) {
            pipeline.provider().forceNext(Candidate.operationIdFor(String.format("auth-%08d", i)), Fault.PERFORM_THEN_DROP);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException("scenario latch never opened");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private RunReport report(int suppressed, SyntheticData.Expected expected, List<ExecutionFollower.Followed> followed,
                             LocalPipeline pipeline, RequestCounter requests, List<ProviderEffect> effects, InvariantAudit.Report audit,
                             OutboxTally outbox, PlatformFeed.Tally ingestion, long wouldRelease, List<WriteLog.Refusal> refusals,
                             RunReport.Webhooks webhooks, RunReport.Phases phases) {
        String leases = pipeline.tables().leases();
        List<ExecutionCounts> executions = followed.stream()
                .map(f -> ExecutionCounts.of(f, FencedRefusals.countFor(refusals, leases, ExecutionName.lastSegmentOf(f.executionArn()))))
                .toList();
        ExecutionFollower.Followed last = followed.getLast();
        ExecutionCounts decided = executions.getLast();
        JsonNode summary = last.output().map(LocalRun::readTree).orElse(JSON.createObjectNode());
        // The night's cost: the ingestion before it is reported on its own (RunReport.Ingestion).
        long lambda = pipeline.invocationCounts().entrySet().stream().filter(e -> e.getKey() != LambdaFunction.INGEST_EVENTS)
                .mapToLong(e -> e.getValue().longValue()).sum();
        long transitions = followed.stream().mapToLong(ExecutionFollower.Followed::stateTransitions).sum();
        long providerCalls = pipeline.providerRequests();
        return new RunReport(options.window().toString(),
                new RunReport.Execution(decided.name(), decided.status(), suppressed),
                new RunReport.Counts(expected.authorisations(), decided.candidates(), outbox.commands(),
                        decided.skippedSettled(), decided.skippedStale(), FencedRefusals.count(refusals, leases),
                        outbox.delivered(), outbox.attempts(), outbox.cancelledSettled(), outbox.cancelledEnded(), outbox.quarantined(), outbox.escalated(),
                        summary.path("delivery").path("backlogLeft").asLong(), wouldRelease, decided.candidatesRead(), decided.heldForFeed()),
                new RunReport.Cost(transitions, lambda, dynamoRequests(pipeline, requests), providerCalls),
                audit.invariants(), pipeline.hostingLabel(), provider(pipeline, summary.path("delivery"), options.provider(), webhooks),
                new RunReport.Ingestion(ingestion.published(), ingestion.accepted(), ingestion.duplicates(), ingestion.rejected(),
                        ingestion.deadLettered(), ingestion.receives(), ingestion.invocations()),
                executions, phases);
    }

    private static double seconds(long fromNanos, long toNanos) {
        return Math.round((toNanos - fromNanos) / 1e6) / 1000.0;
    }

    /**
     * What a person's own events imply, read from the tables once they are ingested: the authorisations, those the
     * night will find (pending and authorised before the cutoff) and how many of those have a settlement.
     */
    static SyntheticData.Expected expectedFrom(StoreSnapshot ingested, Instant cutoff) {
        Set<String> settled = new HashSet<>();
        ingested.of(Settlements.SCHEMA)
                .forEach(s -> settled.add(s.get(Settlements.AUTHORISATION_ID).s()));
        int authorisations = 0;
        int due = 0;
        int dueAndSettled = 0;
        for (var item : ingested.of(Authorisations.SCHEMA)) {
            authorisations++;
            var at = item.get(Authorisations.AUTHORISED_AT);
            boolean pending = item.containsKey(Authorisations.PENDING_SHARD);
            if (pending && at != null && at.n() != null && Long.parseLong(at.n()) < cutoff.toEpochMilli()) {
                due++;
                String id = item.get(Authorisations.AUTHORISATION_ID).s();
                dueAndSettled += settled.contains(id) ? 1 : 0;
            }
        }
        return new SyntheticData.Expected(authorisations, due, dueAndSettled, authorisations - due);
    }

    /** What the run's summary says it left PENDING for the next run (the audit checks it against the tables). */
    private static long declaredBacklog(ExecutionFollower.Followed last) {
        return last.output().map(LocalRun::readTree).orElse(JSON.createObjectNode()).path("delivery").path("backlogLeft").asLong();
    }

    /** The quota the night is configured with: the run's, else the stack's default (DeliverCommands' environment). */
    private static ProviderQuota nightQuota(LocalPipeline pipeline) {
        Map<String, String> env = pipeline.handlerEnvironment();
        return new ProviderQuota(Double.parseDouble(env.get(com.payments.reconciler.workflow.EnvVars.PROVIDER_REQUESTS_PER_SECOND)),
                Integer.parseInt(env.get(com.payments.reconciler.workflow.EnvVars.PROVIDER_MAX_CONCURRENT_REQUESTS)));
    }

    private static RunReport.Provider provider(LocalPipeline pipeline, JsonNode delivery, ProviderAdapters.Adapter adapter,
                                               RunReport.Webhooks webhooks) {
        // The Adyen fake enforces no quota: the night is configured with one, the simulated provider (unused) would enforce it.
        Optional<RequestQuota> quota = pipeline.adyen().isPresent() ? Optional.empty() : pipeline.provider().quota();
        return new RunReport.Provider(quota.map(RequestQuota::requestsPerSecond).orElse(null),
                quota.map(RequestQuota::maxConcurrent).orElse(null), quota.map(RequestQuota::violations).orElse(0L),
                delivery.path("throttledAnswers").asLong(), delivery.path("throttledMillis").asLong() / 1000.0,
                quota.map(RequestQuota::peakInFlight).orElse(0), quota.map(q -> utilisation(pipeline, q.requestsPerSecond())).orElse(null),
                adapter.contextValue(), webhooks);
    }

    /**
     * The provider's id of each synthetic authorisation, as its create carries it: the Adyen fake's payment pspReference with
     * the Adyen adapter, else the simulated provider's PaymentIntent id (which the generic contract ignores).
     */
    public static java.util.function.UnaryOperator<String> providerReferences(ProviderAdapters.Adapter adapter) {
        return adapter == ProviderAdapters.Adapter.ADYEN ? com.payments.reconciler.local.provider.AdyenFake::pspReferenceFor
                : com.payments.reconciler.local.provider.StripeWire::paymentIntentFor;
    }

    /** As the bench counts it: releases after the first, over the time from the provider's first release to its last, over the quota. */
    private static Double utilisation(LocalPipeline pipeline, double quota) {
        List<Long> times = pipeline.provider().releases().stream().map(com.payments.reconciler.local.provider.PerformedRelease::performedAt)
                .sorted().toList();
        if (times.size() < 2 || times.getLast().equals(times.getFirst())) {
            return null;
        }
        return (times.size() - 1) / ((times.getLast() - times.getFirst()) / 1000.0) / quota;
    }

    /** Sandboxes' requests are counted at the front door they all go through; in-process ones by the clients' interceptor. */
    private static long dynamoRequests(LocalPipeline pipeline, RequestCounter inProcess) {
        return pipeline.awsCalls().map(front -> front.calls().stream()
                        .filter(c -> c.operation().filter(op -> op.startsWith("dynamodb:")).isPresent()).count())
                .orElseGet(inProcess::total);
    }


    private static JsonNode readTree(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }
}
