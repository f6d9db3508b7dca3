package com.payments.reconciler.harness.nights;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.audit.InvariantAudit;
import com.payments.reconciler.audit.ProviderEffect;
import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.cli.operator.ExecutionFollower;
import com.payments.reconciler.harness.bench.RequestLedger;
import com.payments.reconciler.harness.ingest.LocalIngestQueue;
import com.payments.reconciler.harness.ingest.PlatformFeed;
import com.payments.reconciler.harness.local.LocalPipeline;
import com.payments.reconciler.harness.local.LocalRun;
import com.payments.reconciler.harness.local.OutboxTally;
import com.payments.reconciler.harness.local.PipelineEvidence;
import com.payments.reconciler.harness.local.RequestCounter;
import com.payments.reconciler.harness.local.FailedRunLease;
import com.payments.reconciler.harness.local.ShiftableClock;
import com.payments.reconciler.harness.report.ExecutionCounts;
import com.payments.reconciler.harness.report.FencedRefusals;
import com.payments.reconciler.harness.report.RunReport;
import com.payments.reconciler.local.moto.WriteLog;
import com.payments.reconciler.harness.report.StateDump;
import com.payments.reconciler.ingest.EventDecoder;
import com.payments.reconciler.local.provider.ProviderFaults;
import com.payments.reconciler.store.Attr;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.window.ExecutionInput;
import com.payments.reconciler.window.NightWindow;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.surge.NightRecords;
import com.payments.reconciler.window.ExecutionName;
import com.payments.reconciler.window.StartResult;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.window.WindowStarter;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.ErrorNames;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.ProviderKeyRetention;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.function.Consumer;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * {@code bin/reconciler local --nights N}: N consecutive windows on the same tables, engines and provider, on one
 * clock the harness moves a day at a time (the platform's publications, the handlers and the provider all read it).
 * Before each night the platform publishes everything it did since the last batch (duplicates and shuffling as a
 * standard queue delivers); the night runs as the scheduled one does (the schedule event delivered twice); on one
 * night chosen by the seed an operator reruns the window. After each night the invariants are checked with that
 * night's cutoff and declared backlog; across the nights, I2 (one provider release per authorisation ever) and I3
 * against what the platform had published before each provider call.
 *
 * <p>The functions run in-process: the Lambda sandboxes are JVMs of their own that read the machine's clock, which the
 * harness cannot move a day (docs/emulator-differences.md, "Several nights").
 */
public final class MultiNightRun {

    /** Of the platform's messages, the fraction published twice (at-least-once publishing), as a single night's feed. */
    static final double DUPLICATE_FRACTION = 0.02;
    /** How long before a night's window start the platform's batch is published (no event is timed in between). */
    static final Duration PUBLISH_BEFORE_NIGHT = Duration.ofHours(2);
    public static final String PLATFORM_EVENTS = "platform-events.jsonl";
    /** {@link NightScenario#SETTLEMENT_FEED_OUTAGE}: how long before the first night's batch the settlement publisher stopped. */
    static final Duration FEED_OUTAGE = Duration.ofDays(1);
    private static final ObjectMapper JSON = Json.mapper();

    /**
     * @param firstWindow the first night's window
     * @param perDay the platform's new authorisations a day
     */
    /**
     * @param lostResponses        {@code --scenario provider-lost-response}: answers lost on night 1 that outlive it ({@link LostResponses})
     * @param providerKeeps        how long the one simulated provider of the series keeps idempotency keys, on the run's clock
     * @param nightsTrust          the retention the nights are configured with (DeliverCommands' environment): the same as
     *                             {@code providerKeeps} but in a test that shows what trusting the provider longer than it keeps keys does
     */
    public record Options(WindowId firstWindow, int nights, WindowConfig config, int perDay, long seed, Optional<Path> dumpState,
                          Path workDir, List<ExecutionInterceptor> dynamoFaults, ProviderFaults providerFaults, boolean lostResponses,
                          ProviderKeyRetention providerKeeps, ProviderKeyRetention nightsTrust, NightScenario scenario) {
        public Options {
            if (nights < 1) {
                throw new IllegalArgumentException("--nights must be at least 1, was " + nights);
            }
            if (scenario == NightScenario.SETTLEMENT_FEED_PARTIAL_LOSS && nights < PARTIAL_LOSS_MIN_NIGHTS) {
                throw new IllegalArgumentException("--nights: --scenario settlement-feed-partial-loss needs at least " + PARTIAL_LOSS_MIN_NIGHTS
                        + " nights (3 completed nights of history before the last), was " + nights);
            }
            dynamoFaults = List.copyOf(dynamoFaults);
        }

        /** A series with faults ({@code chaos --nights}), the stack's key retention. */
        public Options(WindowId firstWindow, int nights, WindowConfig config, int perDay, long seed, Optional<Path> dumpState,
                       Path workDir, List<ExecutionInterceptor> dynamoFaults, ProviderFaults providerFaults) {
            this(firstWindow, nights, config, perDay, seed, dumpState, workDir, dynamoFaults, providerFaults, false,
                    ProviderKeyRetention.DEFAULT, ProviderKeyRetention.DEFAULT, NightScenario.NONE);
        }

        /** {@code local --nights N [--scenario provider-lost-response] [--provider-key-retention D]}. */
        public Options(WindowId firstWindow, int nights, WindowConfig config, int perDay, long seed, Optional<Path> dumpState,
                       Path workDir, boolean lostResponses, ProviderKeyRetention keyRetention) {
            this(firstWindow, nights, config, perDay, seed, dumpState, workDir, List.of(), ProviderFaults.NONE, lostResponses,
                    keyRetention, keyRetention, NightScenario.NONE);
        }

        /** {@code local --nights N --scenario S}. */
        public Options withScenario(NightScenario chosen) {
            return new Options(firstWindow, nights, config, perDay, seed, dumpState, workDir, dynamoFaults, providerFaults, lostResponses,
                    providerKeeps, nightsTrust, chosen);
        }

        /** A series without faults ({@code local --nights}, {@code bench --nights}). */
        public Options(WindowId firstWindow, int nights, WindowConfig config, int perDay, long seed, Optional<Path> dumpState, Path workDir) {
            this(firstWindow, nights, config, perDay, seed, dumpState, workDir, List.of(), ProviderFaults.NONE);
        }

        /** DynamoDB faults retry without the SDK's backoff pauses, as chaos schedules do. */
        boolean faulty() {
            return !dynamoFaults.isEmpty();
        }
    }

    /** What happens to the series besides the usual feed. */
    public enum NightScenario {
        NONE,
        /**
         * The feed of a business whose authorisations are nearly all captured ({@link NightFeed#MOSTLY_CAPTURED}); half of the
         * settlements of the authorisations due on the last night are never published (the publisher dropped them
         * silently, everything else as usual). The last night is a release surge: held until the harness's operator approves
         * it, then a rerun delivers.
         */
        SETTLEMENT_FEED_PARTIAL_LOSS,
        /**
         * The platform's settlement publisher stops {@link #FEED_OUTAGE} before the first night's batch: the settlements
         * timed in that day and the batch's watermark are not published, its last watermark is a day old, and the first
         * night must end FeedNotComplete having released nothing. The publisher resumes before the second night (the held
         * settlements first, then its usual batch and a fresh watermark): that night releases what is due, and no release
         * follows the publication of its authorisation's settlement.
         */
        SETTLEMENT_FEED_OUTAGE
    }

    /** The guard needs 3 completed nights of history before the night it judges. */
    public static final int PARTIAL_LOSS_MIN_NIGHTS = 4;
    /** Who approves the held night in the local harness (a deployed {@code approve} records the caller's ARN). */
    public static final String LOCAL_OPERATOR = "local-operator (harness)";

    /**
     * The held night of {@code settlement-feed-partial-loss}, from the provider's own record: the window's commands, the
     * releases the provider performed for them before the approval (0 when the guard held) and after the approval's rerun.
     */
    public record SurgeHold(String window, List<String> heldBy, long releases, long candidatesRead, long commands,
                            long performedBeforeApproval, String approval, String approvedBy, long performedAfterApproval,
                            long settlementsDropped) {
    }

    /** The series' report: each night exactly as a single night's, the totals, and the invariants over all nights. */
    public record Report(List<RunReport> nights, Totals totals, Map<String, Boolean> invariants, History history, String engine,
                         Integer operatorRerunNight, ProviderKeys providerKeys, LostResponses.Outcome lostResponses, SurgeHold surgeHold,
                         List<String> firstNightErrors) {
        /**
         * {@link NightScenario#SETTLEMENT_FEED_OUTAGE}: the first night failed FeedNotComplete (every run of it), every later
         * night succeeded, and every invariant holds on every night and across them (I3 against what was published).
         */
        public boolean feedOutageRecovered() {
            return !firstNightErrors.isEmpty() && firstNightErrors.stream().allMatch(ErrorNames.FEED_NOT_COMPLETE::equals)
                    && nights.stream().skip(1).allMatch(n -> "SUCCEEDED".equals(n.execution().status()))
                    && nights.stream().allMatch(RunReport::invariantsHold)
                    && invariants.values().stream().allMatch(Boolean::booleanValue);
        }

        public boolean succeeded() {
            return nights.stream().allMatch(n -> "SUCCEEDED".equals(n.execution().status()) && n.invariantsHold())
                    && invariants.values().stream().allMatch(Boolean::booleanValue)
                    && (lostResponses == null || lostResponses.eachReleasedOnce());
        }

        /**
         * With faults ({@code chaos --nights}): a night may fail, and is judged by the next one, which decides and
         * delivers what it left; the last night must succeed, and every invariant hold on every night and across them.
         */
        public boolean recovered() {
            return "SUCCEEDED".equals(nights.getLast().execution().status())
                    && nights.stream().allMatch(RunReport::invariantsHold)
                    && invariants.values().stream().allMatch(Boolean::booleanValue);
        }
    }

    /** Sums over the nights, and what the final tables show released. */
    public record Totals(long published, long candidatesRead, long releaseRequested, long delivered, long dynamodbRequests,
                         long releasedInTables, long backlogLeftByLastNight) {
    }

    /**
     * How a night grows with the history behind it, per night: the pending-index items read, the scheduled run's
     * DynamoDB requests, the request units on-demand would bill for them (RequestLedger's rules) and wall time (an operator's rerun is in that night's report, not here), and the last night's
     * requests (and reads) over the second's: the first night has no history behind it.
     */
    public record History(List<Long> candidatesRead, List<Long> dynamodbRequests, List<Long> writeRequestUnits,
                          List<Double> readRequestUnits, List<Double> wallSeconds, Double lastToSecondNight,
                          Double candidatesLastToSecondNight) {
    }

    /**
     * The one simulated provider's memory of keys over the series (it is never reset between nights): per night, the
     * status lookups it answered and the keys it had forgotten when a request came under them (a new request), and totals.
     */
    public record ProviderKeys(String retention, List<Long> lookups, List<Long> forgottenKeys, long lookupsTotal, long forgottenKeysTotal) {
    }

    /** One line of {@link #PLATFORM_EVENTS}. */
    record Published(long publishedAt, boolean delivered, JsonNode event) {
    }

    private final Options options;
    private final Consumer<String> console;
    private final Clock wall;
    /** The provider's requests over the nights before this one (its record keeps every night's). */
    private long providerCallsBefore;

    public MultiNightRun(Options options, Consumer<String> console, Clock wall) {
        this.options = options;
        this.console = console;
        this.wall = wall;
    }

    public Report run() {
        ShiftableClock clock = new ShiftableClock(wall);
        RequestCounter requests = new RequestCounter();
        RequestLedger units = new RequestLedger(LocalPipeline.TABLES);
        List<ExecutionInterceptor> interceptors = new ArrayList<>(options.dynamoFaults());
        interceptors.add(requests);
        interceptors.add(units);
        LocalPipeline.Options pipelineOptions = new LocalPipeline.Options(options.workDir(), clock, options.faulty(), interceptors,
                options.providerFaults(), options.config().toEnvironment()).withHosting(LocalPipeline.Hosting.IN_PROCESS)
                .withEnv(options.nightsTrust().environment());
        NightWindow first = options.config().nightFor(options.firstWindow());
        // The feed starts early enough that the first night has one day of due authorisations, as every later one does.
        int leadDays = (int) Math.ceil(first.gracePeriod().toHours() / 24.0) + 1;
        Instant feedStart = first.windowStart().minus(NightFeed.DAY.multipliedBy(leadDays));
        boolean partialLoss = options.scenario() == NightScenario.SETTLEMENT_FEED_PARTIAL_LOSS;
        boolean outage = options.scenario() == NightScenario.SETTLEMENT_FEED_OUTAGE;
        List<NightFeed.Event> heldBack = new ArrayList<>();
        List<String> firstNightErrors = new ArrayList<>();
        List<NightFeed.Event> all = new NightFeed(feedStart, leadDays + options.nights(), options.perDay(), options.seed(),
                partialLoss ? NightFeed.MOSTLY_CAPTURED : NightFeed.USUAL).events();
        Set<String> dropped = partialLoss ? halfTheSettlementsDueOnTheLastNight(all) : Set.of();
        if (partialLoss) {
            all = all.stream().filter(e -> !("settlement.posted".equals(e.type()) && dropped.contains(e.authorisationId()))).toList();
            console.accept("scenario settlement-feed-partial-loss: the publisher silently drops " + dropped.size()
                    + " settlements, half of those of the authorisations due on the last night");
        }
        SplittableRandom publisher = new SplittableRandom(options.seed() ^ 0x5EED_F00DL);
        // The scenario's operator reruns the held night before approving it: the rerun must stay held.
        int rerunNight = partialLoss ? options.nights() - 1 : new SplittableRandom(options.seed() ^ 0x0BE2A7E5L).nextInt(options.nights());
        SurgeHold surgeHold = null;
        List<Published> published = new ArrayList<>();
        List<RunReport> reports = new ArrayList<>();
        List<Long> reads = new ArrayList<>();
        List<Long> dynamo = new ArrayList<>();
        List<Double> seconds = new ArrayList<>();
        List<Long> writeUnits = new ArrayList<>();
        List<Double> readUnits = new ArrayList<>();
        boolean i2 = true;
        boolean i3Published = true;
        long totalPublished = 0;
        List<Long> lookups = new ArrayList<>();
        List<Long> forgotten = new ArrayList<>();
        LostResponses lost = new LostResponses();
        try (LocalPipeline pipeline = LocalPipeline.start(pipelineOptions);
             LocalIngestQueue queue = LocalIngestQueue.create(pipeline.engineEndpoint(), "local-", LocalRun.localMapping(LocalPipeline.Hosting.IN_PROCESS))) {
            PlatformFeed feed = new PlatformFeed(queue, pipeline.lambdaEndpoint(), clock);
            // One provider for the whole series, never reset: what it keeps and forgets carries from night to night.
            pipeline.provider().keyRetention(options.providerKeeps().retention());
            int next = 0;
            for (int night = 0; night < options.nights(); night++) {
                WindowId window = new WindowId(options.firstWindow().date().plusDays(night));
                NightWindow input = options.config().nightFor(window);
                // The platform's batch: everything timed before it, published at its time on the run's clock.
                Instant publishAt = input.windowStart().minus(PUBLISH_BEFORE_NIGHT);
                moveTo(clock, publishAt);
                List<NightFeed.Event> batch = new ArrayList<>();
                if (outage && night == 1) {
                    // The publisher resumed: what it held back goes first.
                    batch.addAll(heldBack);
                    console.accept("scenario settlement-feed-outage: the publisher resumed, " + heldBack.size() + " held-back settlements published");
                }
                Instant stoppedAt = publishAt.minus(FEED_OUTAGE);
                while (next < all.size() && all.get(next).at().isBefore(publishAt)) {
                    NightFeed.Event event = all.get(next++);
                    if (outage && night == 0 && "settlement.posted".equals(event.type()) && !event.at().isBefore(stoppedAt)) {
                        heldBack.add(event);
                    } else {
                        batch.add(event);
                    }
                }
                if (outage && night == 0) {
                    console.accept("scenario settlement-feed-outage: the settlement publisher stopped at " + stoppedAt + ", "
                            + heldBack.size() + " settlements not published, its last watermark " + stoppedAt);
                }
                List<String> bodies = new ArrayList<>();
                batch.forEach(e -> bodies.add(e.body()));
                int distinct = bodies.size();
                for (int i = 0; i < distinct; i++) {
                    if (publisher.nextDouble() < DUPLICATE_FRACTION) {
                        bodies.add(bodies.get(i));
                    }
                }
                for (int i = bodies.size() - 1; i > 0; i--) {
                    int j = publisher.nextInt(i + 1);
                    String swap = bodies.get(i);
                    bodies.set(i, bodies.get(j));
                    bodies.set(j, swap);
                }
                // A platform sends an increment or a partial reversal hours after its create; only this harness's backlog
                // (the first batch holds several days) would shuffle one ahead of it. Such an event waits for its create
                // through SQS redeliveries (docs/integration.md), which the local queue's short visibility timeout would
                // use up while the create is still far back in the backlog: the changes go last, shuffled among themselves.
                List<String> changes = new ArrayList<>();
                for (java.util.Iterator<String> it = bodies.iterator(); it.hasNext(); ) {
                    String body = it.next();
                    if (isLifecycleChange(body)) {
                        changes.add(body);
                        it.remove();
                    }
                }
                bodies.addAll(changes);
                // Then its settlement watermark: everything timed before the batch was published with it.
                Instant watermark = outage && night == 0 ? stoppedAt : publishAt;
                bodies.add(com.payments.reconciler.harness.local.SyntheticEvents.watermark("watermark:" + watermark, watermark));
                long appliedBefore = PlatformFeed.appliedEvents(StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables()));
                long publishedAt = clock.instant().toEpochMilli();
                PlatformFeed.Recorded recorded = feed.feedRecorded(bodies, appliedBefore, () -> StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables()));
                for (int i = 0; i < bodies.size(); i++) {
                    published.add(new Published(publishedAt, !recorded.refused().contains(recorded.messageIds().get(i)), readTree(bodies.get(i))));
                }
                totalPublished += bodies.size();
                console.accept("night " + (night + 1) + " (" + window + "): the platform published " + bodies.size() + " events ("
                        + recorded.tally().accepted() + " applied, " + recorded.tally().duplicates() + " duplicates, "
                        + recorded.tally().rejected() + " refused)");

                if (options.lostResponses()) {
                    if (night == 0) {
                        lost.arm(pipeline, input.cutoff(), console);
                    } else {
                        lost.requeueOnceForgotten(pipeline, night + 1, input.windowStart(), options.providerKeeps().retention(),
                                clock.instant(), console);
                    }
                }
                long lookupsBefore = pipeline.provider().lookups();
                long forgottenBefore = pipeline.provider().forgottenKeys();

                // The night, at its window start.
                moveTo(clock, input.windowStart());
                pipeline.writeLog().clear();
                requests.reset();
                units.reset();
                Map<LambdaFunction, Integer> invocationsBefore = new EnumMap<>(LambdaFunction.class);
                invocationsBefore.putAll(pipeline.invocationCounts());
                long started = System.nanoTime();
                String scheduledTime = input.windowStart().toString();
                StartResult scheduled = LocalRun.deliverScheduleEvent(pipeline, scheduledTime);
                StartResult again = LocalRun.deliverScheduleEvent(pipeline, scheduledTime);
                List<ExecutionFollower.Followed> followed = new ArrayList<>();
                followed.add(follow(pipeline, scheduled.executionArn()));
                // The scheduled run's own requests and time: what a night costs, without the operator's rerun.
                long scheduledRequests = requests.total();
                RequestLedger.Snapshot scheduledUnits = units.snapshot();
                double wallSeconds = (System.nanoTime() - started) / 1e9;
                if (night == rerunNight) {
                    waitOutFailedLease(pipeline, clock, followed.getLast());
                    StartResult rerun = new WindowStarter(pipeline.sfn(), pipeline.stateMachineArn(), new EmfMetrics(clock, "cli", line -> { }))
                            .startRerun(window, input.executionInput(), false);
                    console.accept("operator reruns " + window + " as " + rerun.executionName());
                    followed.add(follow(pipeline, rerun.executionArn()));
                }
                if (partialLoss && night == options.nights() - 1 && !followed.getLast().succeeded()) {
                    surgeHold = approveAndRerun(pipeline, clock, window, input.executionInput(), followed, dropped.size());
                }
                if (night == 0) {
                    followed.forEach(run -> firstNightErrors.add(run.error().orElse(run.status().toString())));
                }
                ExecutionFollower.Followed scheduledRun = followed.getFirst();
                ExecutionFollower.Followed last = followed.getLast();
                PipelineEvidence evidence = PipelineEvidence.of(pipeline);
                long backlog = summary(last).path("delivery").path("backlogLeft").asLong();
                InvariantAudit.Report audit = evidence.audit(last.succeeded()
                        ? new InvariantAudit.Completion(input.cutoff(), true, backlog, pipeline.deadLettersHoldTheNight()) : null);
                audit.violations().forEach(v -> console.accept("night " + window + " VIOLATION " + v.invariant() + ": " + v.detail()));
                // A held run fails before its summary: the night's decisions are on its night record.
                long[] held = surgeHold != null && surgeHold.window().equals(window.toString())
                        ? new long[] {surgeHold.releases(), surgeHold.candidatesRead()} : new long[] {0, 0};
                RunReport report = report(window, scheduledRun, followed, countSuppressed(scheduled, again), pipeline, requests,
                        evidence, audit, invocationsBefore, recorded.tally(), held);
                reports.add(report);
                lookups.add(pipeline.provider().lookups() - lookupsBefore);
                forgotten.add(pipeline.provider().forgottenKeys() - forgottenBefore);
                reads.add(report.counts().candidatesRead());
                dynamo.add(scheduledRequests);
                writeUnits.add(scheduledUnits.writeRequestUnits());
                readUnits.add(scheduledUnits.readRequestUnits());
                seconds.add(wallSeconds);
                console.accept("night " + (night + 1) + " (" + window + "): " + report.execution().status() + ", " + report.counts().candidatesRead()
                        + " candidates read, " + report.counts().releaseRequested() + " releases requested, " + report.counts().delivered()
                        + " delivered, " + report.cost().dynamodbRequests() + " DynamoDB requests, " + lookups.getLast()
                        + " status lookups, " + forgotten.getLast() + " forgotten keys met, invariants " + report.invariants());
            }
            PipelineEvidence end = PipelineEvidence.of(pipeline);
            i2 = oneReleasePerAuthorisationEver(end.effects());
            i3Published = noReleaseAfterAPublishedSettlement(end.effects(), published);
            long releasedInTables = end.snapshot().of(Authorisations.SCHEMA).stream()
                    .filter(item -> Authorisations.STATE_RELEASE_REQUESTED.equals(Attr.stringOr(item, Authorisations.STATE, ""))).count();
            options.dumpState().ifPresent(dir -> {
                StateDump.write(dir, end.snapshot(), end.effects());
                writePlatformEvents(dir, published);
                console.accept("state dumped to " + dir.resolve(StateDump.TABLES) + ", " + dir.resolve(StateDump.PROVIDER_EFFECTS)
                        + " and " + dir.resolve(PLATFORM_EVENTS));
            });
            Map<String, Boolean> invariants = new LinkedHashMap<>();
            for (String name : List.of("I1", "I2", "I3", "I4", "I5")) {
                invariants.put(name, reports.stream().allMatch(r -> Boolean.TRUE.equals(r.invariants().get(name))));
            }
            invariants.put("I2", invariants.get("I2") && i2);
            invariants.put("I3", invariants.get("I3") && i3Published);
            Totals totals = new Totals(totalPublished, reports.stream().mapToLong(r -> r.counts().candidatesRead()).sum(),
                    reports.stream().mapToLong(r -> r.counts().releaseRequested()).sum(),
                    reports.stream().mapToLong(r -> r.counts().delivered()).sum(),
                    reports.stream().mapToLong(r -> r.cost().dynamodbRequests()).sum(), releasedInTables,
                    reports.getLast().counts().backlogLeft());
            History history = new History(List.copyOf(reads), List.copyOf(dynamo), List.copyOf(writeUnits), List.copyOf(readUnits), List.copyOf(seconds),
                    ratio(dynamo), ratio(reads));
            ProviderKeys keys = new ProviderKeys(options.providerKeeps().retention().toString(), List.copyOf(lookups), List.copyOf(forgotten),
                    lookups.stream().mapToLong(Long::longValue).sum(), forgotten.stream().mapToLong(Long::longValue).sum());
            return new Report(List.copyOf(reports), totals, invariants, history, pipeline.hostingLabel(), rerunNight + 1, keys,
                    lost.outcome(pipeline).orElse(null), surgeHold, List.copyOf(firstNightErrors));
        }
    }

    /**
     * The authorisations due on the last night (authorised between the previous night's cutoff and its own) whose
     * settlement the platform posts: every second one of them, in the feed's order, loses its settlement.
     */
    private Set<String> halfTheSettlementsDueOnTheLastNight(List<NightFeed.Event> all) {
        WindowId last = new WindowId(options.firstWindow().date().plusDays(options.nights() - 1));
        Instant from = options.config().nightFor(new WindowId(last.date().minusDays(1))).cutoff();
        Instant to = options.config().nightFor(last).cutoff();
        Set<String> due = all.stream().filter(e -> "authorisation.created".equals(e.type()) && !e.at().isBefore(from) && e.at().isBefore(to))
                .map(NightFeed.Event::authorisationId).collect(Collectors.toSet());
        List<String> settled = all.stream().filter(e -> "settlement.posted".equals(e.type()) && due.contains(e.authorisationId()))
                .map(NightFeed.Event::authorisationId).toList();
        Set<String> dropped = new java.util.HashSet<>();
        for (int i = 0; i < settled.size(); i += 2) {
            dropped.add(settled.get(i));
        }
        return dropped;
    }

    /**
     * The operator's side of a held night, as {@code reconciler approve} does it against AWS: the approval recorded on the
     * night's record (who, when, why), then a rerun of the window, which sees the approval and delivers. The provider's
     * record is read before and after: nothing of the window was performed before the approval.
     */
    private SurgeHold approveAndRerun(LocalPipeline pipeline, ShiftableClock clock, WindowId window, ExecutionInput input,
                                      List<ExecutionFollower.Followed> followed, int dropped) {
        List<String> heldBy = followed.stream().map(f -> ExecutionName.lastSegmentOf(f.executionArn()) + " " + f.status()
                + f.error().map(e -> " " + e).orElse("")).toList();
        PipelineEvidence held = PipelineEvidence.of(pipeline);
        Set<String> commanded = held.snapshot().of(ReleaseCommands.SCHEMA).stream()
                .filter(item -> window.toString().equals(Attr.stringOr(item, ReleaseCommands.WINDOW_ID, "")))
                .map(item -> Attr.stringOr(item, ReleaseCommands.AUTHORISATION_ID, "")).collect(Collectors.toSet());
        long before = performedFor(held.effects(), commanded);
        NightRecords records = new NightRecords(pipeline.dynamo(), pipeline.tables().leases());
        NightRecords.Night night = records.read(window).orElseThrow(() -> new IllegalStateException("the held night " + window + " has no record"));
        NightRecords.Approval approval = records.approve(window, LOCAL_OPERATOR, "scenario settlement-feed-partial-loss: the operator checked the feed",
                clock.instant());
        console.accept("operator approves " + window + ": " + approval + " (commands of the window " + commanded.size()
                + ", performed by the provider so far " + before + ")");
        waitOutFailedLease(pipeline, clock, followed.getLast());
        StartResult rerun = new WindowStarter(pipeline.sfn(), pipeline.stateMachineArn(), new EmfMetrics(clock, "cli", line -> { }))
                .startRerun(window, input, false);
        console.accept("operator reruns " + window + " after the approval as " + rerun.executionName());
        followed.add(follow(pipeline, rerun.executionArn()));
        long after = performedFor(PipelineEvidence.of(pipeline).effects(), commanded);
        return new SurgeHold(window.toString(), heldBy, night.releases(), night.candidatesRead(), commanded.size(), before, approval.name(),
                LOCAL_OPERATOR, after, dropped);
    }

    private static long performedFor(List<ProviderEffect> effects, Set<String> authorisationIds) {
        return effects.stream().filter(e -> authorisationIds.contains(e.authorisationId())).mapToLong(ProviderEffect::performed).sum();
    }

    /** The last night's figure over the second's (the first night has no history behind it); null with fewer than 2 nights. */
    static Double ratio(List<Long> perNight) {
        if (perNight.size() < 2 || perNight.get(1) == 0) {
            return null;
        }
        return Math.round(1000.0 * perNight.getLast() / perNight.get(1)) / 1000.0;
    }

    /** Contract version 2's increments and partial reversals: they change an authorisation that must exist. */
    static boolean isLifecycleChange(String body) {
        String type = readTree(body).path("type").asText();
        return EventDecoder.TYPE_INCREMENTED.equals(type) || EventDecoder.TYPE_REVERSED.equals(type);
    }

    /** I2 across all nights, from the provider's own record: at most one performed release per authorisation. */
    static boolean oneReleasePerAuthorisationEver(List<ProviderEffect> effects) {
        Map<String, Integer> performed = new HashMap<>();
        effects.forEach(e -> performed.merge(e.authorisationId(), e.performed(), Integer::sum));
        return performed.values().stream().allMatch(n -> n <= 1);
    }

    /**
     * I3 against what the platform knew: no release performed after the platform had published a settlement of that
     * authorisation (a settlement published later, a late capture, is the platform's to reconcile, not a violation).
     */
    static boolean noReleaseAfterAPublishedSettlement(List<ProviderEffect> effects, List<Published> published) {
        Map<String, Long> firstPublished = new HashMap<>();
        for (Published p : published) {
            if ("settlement.posted".equals(p.event().path("type").asText())) {
                firstPublished.merge(p.event().path("authorisationId").asText(), p.publishedAt(), Math::min);
            }
        }
        for (ProviderEffect effect : effects) {
            Long settlement = firstPublished.get(effect.authorisationId());
            if (settlement != null && effect.performedAt().stream().anyMatch(at -> at > settlement)) {
                return false;
            }
        }
        return true;
    }

    private RunReport report(WindowId window, ExecutionFollower.Followed scheduled, List<ExecutionFollower.Followed> followed, int suppressed,
                             LocalPipeline pipeline, RequestCounter requests, PipelineEvidence evidence, InvariantAudit.Report audit,
                             Map<LambdaFunction, Integer> invocationsBefore, PlatformFeed.Tally ingestion, long[] held) {
        // The scheduled run decides the night; a rerun's totals (nothing left to decide) are added to it.
        long[] sums = new long[8];
        for (ExecutionFollower.Followed f : followed) {
            JsonNode reconcile = summary(f).path("reconcile");
            sums[0] += reconcile.path("candidates").asLong();
            sums[1] += reconcile.path("releaseRequested").asLong();
            sums[2] += reconcile.path("skippedSettled").asLong();
            sums[3] += reconcile.path("skippedStale").asLong();
            sums[4] += reconcile.path("candidatesRead").asLong();
            sums[5] += reconcile.path("heldForFeed").asLong();
        }
        sums[0] += held[1];
        sums[1] += held[0];
        sums[4] += held[1];
        JsonNode delivery = summary(followed.getLast()).path("delivery");
        OutboxTally outbox = OutboxTally.of(evidence.snapshot(), window.toString());
        // The write log was cleared as the night started; each refusal names its execution besides.
        List<WriteLog.Refusal> refusals = pipeline.writeLog().refusals();
        String leases = pipeline.tables().leases();
        List<ExecutionCounts> executions = followed.stream()
                .map(f -> ExecutionCounts.of(f, FencedRefusals.countFor(refusals, leases, ExecutionName.lastSegmentOf(f.executionArn()))))
                .toList();
        long fenced = executions.stream().mapToLong(ExecutionCounts::fencedRefusals).sum();
        long lambda = pipeline.invocationCounts().entrySet().stream().filter(e -> e.getKey() != LambdaFunction.INGEST_EVENTS)
                .mapToLong(e -> e.getValue() - invocationsBefore.getOrDefault(e.getKey(), 0)).sum();
        long transitions = followed.stream().mapToLong(ExecutionFollower.Followed::stateTransitions).sum();
        long providerCallsEver = evidence.effects().stream().mapToLong(ProviderEffect::requests).sum();
        long providerCalls = providerCallsEver - providerCallsBefore;
        providerCallsBefore = providerCallsEver;
        long authorisations = evidence.snapshot().of(Authorisations.SCHEMA).size();
        return new RunReport(window.toString(),
                new RunReport.Execution(ExecutionName.lastSegmentOf(scheduled.executionArn()), followed.stream()
                        .allMatch(ExecutionFollower.Followed::succeeded) ? "SUCCEEDED" : followed.getLast().status().toString(), suppressed),
                new RunReport.Counts(authorisations, sums[0], sums[1], sums[2], sums[3], fenced,
                        outbox.delivered(), outbox.attempts(), outbox.cancelledSettled(), outbox.cancelledEnded(), outbox.quarantined(),
                        outbox.escalated(), delivery.path("backlogLeft").asLong(), 0, sums[4], sums[5]),
                new RunReport.Cost(transitions, lambda, requests.total(), providerCalls),
                audit.invariants(), pipeline.hostingLabel(),
                new RunReport.Provider(null, null, 0, delivery.path("throttledAnswers").asLong(), delivery.path("throttledMillis").asLong() / 1000.0, 0, null),
                new RunReport.Ingestion(ingestion.published(), ingestion.accepted(), ingestion.duplicates(), ingestion.rejected(),
                        ingestion.deadLettered(), ingestion.receives(), ingestion.invocations()),
                executions);
    }

    private ExecutionFollower.Followed follow(LocalPipeline pipeline, String executionArn) {
        ExecutionFollower.Followed result = pipeline.follow(executionArn, event -> { });
        console.accept("  " + ExecutionName.lastSegmentOf(executionArn) + " " + result.status()
                + result.error().map(e -> " (" + e + ")").orElse(""));
        return result;
    }

    /** As the runbook says: a rerun of a failed night starts once the failed run's lease has expired. */
    private void waitOutFailedLease(LocalPipeline pipeline, ShiftableClock clock, ExecutionFollower.Followed last) {
        if (!last.succeeded()) {
            Duration waited = FailedRunLease.waitOut(pipeline, clock);
            if (!waited.isZero()) {
                console.accept("operator waits " + waited.toSeconds() + " s (on the run's clock) for the failed run's lease to expire");
            }
        }
    }

    /** Moves the run's clock to {@code at}: the harness's time, read by the platform, the handlers and the provider. */
    static void moveTo(ShiftableClock clock, Instant at) {
        clock.advance(Duration.between(clock.instant(), at));
    }

    private static int countSuppressed(StartResult... results) {
        int n = 0;
        for (StartResult r : results) {
            n += r.duplicateSuppressed() ? 1 : 0;
        }
        return n;
    }

    private static JsonNode summary(ExecutionFollower.Followed followed) {
        return followed.output().map(MultiNightRun::readTree).orElse(JSON.createObjectNode());
    }

    private static JsonNode readTree(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }

    private static void writePlatformEvents(Path dir, List<Published> published) {
        try (BufferedWriter out = Files.newBufferedWriter(dir.resolve(PLATFORM_EVENTS), StandardCharsets.UTF_8)) {
            for (Published p : published) {
                out.write(JSON.writeValueAsString(p));
                out.newLine();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + dir.resolve(PLATFORM_EVENTS), e);
        }
    }
}
