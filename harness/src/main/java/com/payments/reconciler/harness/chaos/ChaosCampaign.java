package com.payments.reconciler.harness.chaos;

import com.payments.reconciler.delivery.ProviderAdapters;

import com.payments.reconciler.audit.InvariantAudit;
import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.cli.operator.ExecutionFollower;
import com.payments.reconciler.harness.local.FailedRunLease;
import com.payments.reconciler.harness.local.InvocationHook;
import com.payments.reconciler.harness.local.LocalPipeline;
import com.payments.reconciler.harness.local.LocalRun;
import com.payments.reconciler.harness.local.PipelineEvidence;
import com.payments.reconciler.harness.local.ShiftableClock;
import com.payments.reconciler.harness.local.SyntheticData;
import com.payments.reconciler.harness.ingest.PlatformFeed;
import com.payments.reconciler.harness.ingest.SettlementFeed;
import com.payments.reconciler.harness.local.WritePause;
import com.payments.reconciler.local.faults.DynamoFaults;
import com.payments.reconciler.local.faults.FaultSpec;
import com.payments.reconciler.local.provider.AdyenFake;
import com.payments.reconciler.local.provider.Fault;
import com.payments.reconciler.workflow.ProviderOutcomeTimeout;
import com.payments.reconciler.local.provider.RequestQuota;
import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.harness.report.StateDump;
import com.payments.reconciler.store.Attr;
import com.payments.reconciler.store.Tables;
import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.window.NightWindow;
import com.payments.reconciler.window.ExecutionName;
import com.payments.reconciler.window.StartResult;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.window.WindowStarter;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.ErrorNames;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.ProviderQuota;
import com.payments.reconciler.workflow.Timing;
import java.nio.charset.StandardCharsets;
import com.payments.reconciler.workflow.ProviderKeyRetention;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import java.util.Optional;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.SfnException;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;

/**
 * {@code bin/reconciler chaos}: randomized fault schedules through the full local pipeline (the real
 * ASL in moto behind the Step Functions API, the real handlers, DynamoDB behind the fault layer, the
 * simulated provider). After each schedule the invariants are checked from the stored tables, moto's
 * write log and the provider's effect log — never from the workers' own reports; then the window is
 * completed by reruns as an operator would, and I4 (nothing lost) is checked. A {@link Mutant} runs the
 * workers with a deliberate defect (the unfenced control is one of them), which the campaign must catch.
 *
 * <p>Every schedule starts from empty tables, a fresh DynamoDB fault layer seeded with the schedule's
 * seed and the wall clock (earlier schedules' lease expiries do not carry over), so a schedule depends
 * on its seed only and {@link #replay} reproduces it.
 */
public final class ChaosCampaign {

    /** Keeps the settlement events' order apart from the schedule's other draws. */
    private static final long SETTLEMENT_ORDER = 0x5E77_1ED0L;

    private static final WindowConfig CONFIG = WindowConfig.defaults();
    /** Enough for any window the faults leave incomplete: faults are off while the operator completes it. */
    private static final int MAX_OPERATOR_RERUNS = 3;
    /** In every task payload of a rerun (its owner id starts with the execution name), never in the scheduled run's. */
    private static final String RERUN_MARKER = "-rerun-";
    /**
     * Each Lambda invocation is given this long (not the deployed 120 s): Powertools' in-progress window is
     * the invocation's remaining time, and the fast retries (1 s) cannot outlast 120 s as the deployed
     * 30/60/120 s retries do; a record left INPROGRESS by a lost answer is then waited out by the operator
     * in seconds. The handlers still get {@link Timing#DEADLINE_MARGIN} plus 10 s of work per call.
     */
    private static final Duration INVOCATION_TIME = Timing.DEADLINE_MARGIN.plusSeconds(10);
    /** Powertools' record attributes (its DynamoDB store's defaults). */
    private static final String IDEMPOTENCY_STATUS = "status";
    private static final String IDEMPOTENCY_IN_PROGRESS = "INPROGRESS";
    private static final String IDEMPOTENCY_IN_PROGRESS_EXPIRY = "in_progress_expiration";
    /** A pipeline that fails this many schedules in a row is broken; the campaign stops rather than report noise. */
    private static final int MAX_CONSECUTIVE_ERRORS = 5;
    private static final List<String> INVARIANTS = List.of("I1", "I2", "I3", "I4", "I5");
    private static final Pattern OWNER_EXECUTION = Pattern.compile("\"ownerId\"\\s*:\\s*\"([^\"/]+)/");
    private static final Pattern SHARD = Pattern.compile("\"shard\"\\s*:\\s*(\\d+)");
    /** The key attribute of every table: what names a Put's item in the fault layer's streams. */
    private static final Set<String> KEY_ATTRIBUTES = Set.of(Leases.LEASE_NAME, Tables.Authorisations.AUTHORISATION_ID,
            Tables.ReleaseCommands.OPERATION_ID, Tables.Idempotency.ID); // Settlements' key is authorisationId too
    /**
     * The invocation a handler thread is serving (execution, function, shard), set by the schedule's hook on the
     * thread that runs the handler and inherited by the virtual threads it starts: the fault layer's stream context.
     */
    private static final InheritableThreadLocal<String> CALLER = new InheritableThreadLocal<>();

    private final Path workDir;
    private final Mutant mutant;
    private final FaultSpec dynamoFaultRates;
    private final Path dumpDir;
    private final Consumer<String> console;
    /** How long the simulated provider keeps idempotency keys, on the campaign's clock; DeliverCommands is told the same. */
    private final ProviderKeyRetention keyRetention;
    /** The adapter DeliverCommands talks through; the simulated provider speaks every adapter's format. */
    private final ProviderAdapters.Adapter adapter;

    /** {@code fenced=false} is the unfenced control: the {@link Mutant#NO_LEASE_CHECK} row of the mutant table. */
    public ChaosCampaign(Path workDir, boolean fenced, FaultSpec dynamoFaultRates, Consumer<String> console) {
        this(workDir, fenced ? null : Mutant.NO_LEASE_CHECK, dynamoFaultRates, null, console);
    }

    /**
     * @param mutant the deliberate defect to run the workers with (harness-side only), or null for the correct workers
     * @param dynamoFaultRates the DynamoDB fault rates for schedules that have DynamoDB faults on (from {@code --faults})
     * @param dumpDir where each schedule's final tables and provider effects go ({@code schedule-<n>-<seed>/}), or null
     */
    public ChaosCampaign(Path workDir, Mutant mutant, FaultSpec dynamoFaultRates, Path dumpDir, Consumer<String> console) {
        this(workDir, mutant, dynamoFaultRates, dumpDir, console, ProviderKeyRetention.DEFAULT);
    }

    /** @param keyRetention how long the simulated provider keeps idempotency keys (the stack's default unless {@code --provider-key-retention}) */
    public ChaosCampaign(Path workDir, Mutant mutant, FaultSpec dynamoFaultRates, Path dumpDir, Consumer<String> console,
                         ProviderKeyRetention keyRetention) {
        this(workDir, mutant, dynamoFaultRates, dumpDir, console, keyRetention, ProviderAdapters.DEFAULT);
    }

    /** @param adapter the provider adapter the nights are configured with ({@code --provider}) */
    public ChaosCampaign(Path workDir, Mutant mutant, FaultSpec dynamoFaultRates, Path dumpDir, Consumer<String> console,
                         ProviderKeyRetention keyRetention, ProviderAdapters.Adapter adapter) {
        this.keyRetention = keyRetention;
        this.adapter = adapter;
        this.workDir = workDir;
        this.mutant = mutant;
        this.dynamoFaultRates = dynamoFaultRates;
        this.dumpDir = dumpDir;
        this.console = console;
    }

    /** The folder {@code --dump-state} writes schedule {@code number} (from 1) into. */
    public static String dumpFolder(int number, long scheduleSeed) {
        return "schedule-" + number + "-" + scheduleSeed;
    }

    /**
     * The seeds of a campaign's schedules: one stream per campaign seed, so campaigns with nearby seeds
     * (7 and 8) share no schedules, as they would if schedule i were derived from {@code seed + i}.
     */
    public static List<Long> scheduleSeeds(long campaignSeed, int schedules) {
        SplittableRandom stream = new SplittableRandom(campaignSeed);
        List<Long> seeds = new ArrayList<>(schedules);
        for (int i = 0; i < schedules; i++) {
            seeds.add(stream.nextLong());
        }
        return seeds;
    }

    public ChaosReport run(int schedules, long seed) throws InterruptedException {
        return campaign(scheduleSeeds(seed, schedules), seed, false);
    }

    /** Runs exactly these schedules (by their own seeds), as a campaign: tests pick the schedules a defect needs. */
    public ChaosReport runSchedules(List<Long> scheduleSeeds) throws InterruptedException {
        return campaign(List.copyOf(scheduleSeeds), scheduleSeeds.getFirst(), false);
    }

    /** Runs the one schedule a failure reported: the same schedule, the same faults. */
    public ChaosReport replay(long scheduleSeed) throws InterruptedException {
        return campaign(List.of(scheduleSeed), scheduleSeed, true);
    }

    /**
     * Runs the same schedules once per entry of {@code mutants} (null: the correct workers), one engine start for all:
     * the mutant table, with its control on the same schedules, without the capacity faults (their schedules were chosen
     * for the fault each defect needs). Dumps go to {@code <dump>/<mutant name>/schedule-…}
     * ({@link #CORRECT_WORKERS} for null).
     */
    public List<ChaosReport> runEach(List<Mutant> mutants, List<Long> scheduleSeeds) throws InterruptedException {
        List<ChaosReport> reports = new ArrayList<>();
        try (Engines engines = Engines.start(workDir, keyRetention, adapter)) {
            for (Mutant m : mutants) {
                Path dump = dumpDir == null ? null : dumpDir.resolve(m == null ? CORRECT_WORKERS : m.cliName());
                reports.add(campaignOn(engines, m, List.copyOf(scheduleSeeds), scheduleSeeds.getFirst(), false, dump, false));
            }
        }
        return reports;
    }

    /** {@link #runEach}'s dump folder for the correct workers. */
    public static final String CORRECT_WORKERS = "correct-workers";

    /** The engines a campaign runs on; the slots' and the proxy's occupants change per schedule. */
    private record Engines(ShiftableClock clock, InterceptorSlot faultSlot, InterceptorSlot pauseSlot, InterceptorSlot mutantSlot,
                           LocalPipeline pipeline, ProviderProxy proxy) implements AutoCloseable {
        static Engines start(Path workDir, ProviderKeyRetention keyRetention, ProviderAdapters.Adapter adapter) {
            ShiftableClock clock = new ShiftableClock(Clock.systemUTC());
            InterceptorSlot faultSlot = new InterceptorSlot();
            InterceptorSlot pauseSlot = new InterceptorSlot();
            // Last in the chain: the fault layer and the pause see the request a defective worker would have sent.
            InterceptorSlot mutantSlot = new InterceptorSlot();
            LocalPipeline.Options options = LocalPipeline.Options.defaults(workDir, clock).withFastRetries()
                    .withDynamoInterceptors(List.of(faultSlot, pauseSlot, mutantSlot))
                    .withEnv(CONFIG.toEnvironment())
                    .withEnv(keyRetention.environment())
                    .withEnv(Map.of(EnvVars.PROVIDER_ADAPTER, adapter.contextValue()));
            LocalPipeline pipeline = LocalPipeline.start(options);
            try {
                pipeline.limitInvocationTime(INVOCATION_TIME);
                return new Engines(clock, faultSlot, pauseSlot, mutantSlot, pipeline, new ProviderProxy(pipeline.provider().baseUrl()));
            } catch (RuntimeException e) {
                pipeline.close();
                throw e;
            }
        }

        @Override
        public void close() {
            try {
                proxy.close();
            } finally {
                pipeline.close();
            }
        }
    }

    private ChaosReport campaign(List<Long> seeds, long seed, boolean replay) throws InterruptedException {
        try (Engines engines = Engines.start(workDir, keyRetention, adapter)) {
            return campaignOn(engines, mutant, seeds, seed, replay, dumpDir, true);
        }
    }

    /** @param capacityFaults whether the capacity faults are drawn (off for the mutant table: {@link ChaosSchedule#withoutCapacityFaults}) */
    private ChaosReport campaignOn(Engines engines, Mutant mutant, List<Long> seeds, long seed, boolean replay, Path dumpDir,
                                   boolean capacityFaults) throws InterruptedException {
        long started = System.nanoTime();
        ShiftableClock clock = engines.clock();
        LocalPipeline pipeline = engines.pipeline();
        ProviderProxy proxy = engines.proxy();
        Map<String, Long> faults = new LinkedHashMap<>();
        Map<String, Long> violations = new LinkedHashMap<>();
        INVARIANTS.forEach(i -> violations.put(i, 0L));
        List<ChaosReport.Failure> failures = new ArrayList<>();
        List<Long> durations = new ArrayList<>();
        long superseded = 0;
        long reruns = 0;
        long failedSchedules = 0;
        long mutantEffects = 0;
        List<ChaosReport.Failure> errors = new ArrayList<>();
        SortedMap<String, List<String>> lastSequence = new TreeMap<>();
        int consecutiveErrors = 0;
        pipeline.routeProviderThrough(mutant != null && mutant.providerSide() ? proxy.baseUrl() : null);
        pipeline.provider().idempotent(mutant == null || !mutant.needsProviderWithoutIdempotency());
        for (int i = 0; i < seeds.size(); i++) {
            long scheduleStarted = System.nanoTime();
            ChaosSchedule drawn = ChaosSchedule.generate(seeds.get(i));
            ChaosSchedule schedule = capacityFaults ? drawn : drawn.withoutCapacityFaults();
            // Hooks run on the Lambda endpoint's threads: the trace is shared with them.
            List<String> trace = Collections.synchronizedList(new ArrayList<>());
            Outcome outcome;
            try {
                outcome = runOne(engines, mutant, schedule, trace,
                        dumpDir == null ? null : dumpDir.resolve(dumpFolder(i + 1, schedule.seed())));
                consecutiveErrors = 0;
            } catch (RuntimeException e) {
                // An engine or harness error is not a verdict on the protocol: reported with its seed, never counted as a pass.
                List<String> lines = new ArrayList<>(trace);
                lines.add("ERROR " + e);
                for (StackTraceElement frame : e.getStackTrace()) {
                    if (frame.getClassName().startsWith("com.payments")) {
                        lines.add("  at " + frame);
                    }
                }
                errors.add(new ChaosReport.Failure(schedule.seed(), schedule.describe(), List.of("error: " + e), lines));
                console.accept(String.format("schedule %d/%d ERROR %s — %s", i + 1, seeds.size(), e, schedule.describe()));
                if (++consecutiveErrors >= MAX_CONSECUTIVE_ERRORS) {
                    throw new IllegalStateException(consecutiveErrors + " schedules in a row failed to run; the last: " + e, e);
                }
                continue;
            }
            durations.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - scheduleStarted));
            lastSequence = outcome.faultSequence();
            outcome.faults().forEach((k, v) -> faults.merge(k, v, Long::sum));
            superseded += outcome.superseded();
            reruns += outcome.reruns();
            mutantEffects += outcome.mutantEffects();
            if (!outcome.violations().isEmpty()) {
                failedSchedules++;
                outcome.violations().forEach(v -> violations.merge(v.invariant(), 1L, Long::sum));
                failures.add(new ChaosReport.Failure(schedule.seed(), schedule.describe(),
                        outcome.violations().stream().map(v -> v.invariant() + ": " + v.detail()).toList(),
                        List.copyOf(outcome.trace())));
            }
            if (replay) {
                outcome.trace().forEach(line -> console.accept("  | " + line));
            }
            // One line per schedule with its own figures: a campaign stopped early can still be added up.
            console.accept(String.format("schedule %d/%d %s in %d ms — %s; faults %s, superseded %d, reruns %d", i + 1, seeds.size(),
                    outcome.violations().isEmpty() ? "ok" : "VIOLATIONS " + outcome.violations().stream().map(InvariantAudit.Violation::invariant).distinct().toList(),
                    durations.getLast(), schedule.describe(), outcome.faults(), outcome.superseded(), outcome.reruns()));
        }
        long wall = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        List<Long> sorted = durations.stream().sorted().toList();
        boolean fenced = mutant == null || !mutant.removesLeaseCheck();
        return new ChaosReport(seeds.size(), fenced, mutant == null ? null : mutant.cliName(), mutantEffects, seed, wall, sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2), faults, superseded, reruns,
                failedSchedules, violations, failures, errors, replay ? lastSequence : Map.of());
    }

    private record Outcome(Map<String, Long> faults, long superseded, long reruns, List<InvariantAudit.Violation> violations, List<String> trace,
                           SortedMap<String, List<String>> faultSequence, long mutantEffects) {
    }

    private Outcome runOne(Engines engines, Mutant mutant, ChaosSchedule s, List<String> trace, Path dump) throws InterruptedException {
        LocalPipeline pipeline = engines.pipeline();
        ShiftableClock clock = engines.clock();
        InterceptorSlot faultSlot = engines.faultSlot();
        InterceptorSlot pauseSlot = engines.pauseSlot();
        InterceptorSlot mutantSlot = engines.mutantSlot();
        ProviderProxy proxy = engines.proxy();
        clock.reset();
        pipeline.reset();
        // The defect is the workers' own code: on for the whole schedule, the operator's completing reruns included.
        MutantInterceptor defect = mutant == null || mutant.providerSide() || mutant.webhookSide() ? null
                : new MutantInterceptor(mutant, pipeline.tables(), pipeline.dynamo(), clock, trace::add);
        mutantSlot.set(defect);
        proxy.configure(mutant, trace::add);
        // The newest window already started: today's before its window start would be refused (and is not a chaos fault).
        WindowId window = CONFIG.latestStartedWindow(clock.instant());
        NightWindow input = CONFIG.nightFor(window);
        SyntheticData data = dataOf(s);
        Optional<AdyenFake> adyen = pipeline.adyen();
        if (adyen.isPresent()) {
            // The Adyen adapter cancels the payment the authorisation names: the fake's pspReference for it.
            data.load(pipeline.dynamo(), pipeline.tables(), input.cutoff(), input.shards(), AdyenFake::pspReferenceFor);
        } else {
            data.load(pipeline.dynamo(), pipeline.tables(), input.cutoff(), input.shards());
        }
        pipeline.settlementFeedComplete();
        // Captured at the provider the night talks to (the simulated provider, or the Adyen fake too).
        data.settledIds(input.cutoff()).forEach(pipeline::capture);
        pipeline.writeLog().clear();
        SplittableRandom random = scheduleRandom(s.seed());
        // Hooks run on the Lambda endpoint's threads: the counts are shared with them.
        Map<String, Long> faults = Collections.synchronizedMap(new LinkedHashMap<>());
        String scheduledName = ExecutionName.scheduled(window).toString();

        DynamoFaults dynamoFaults = s.dynamoFaults()
                ? DynamoFaults.builderFrom(dynamoFaultRates, s.seed()).clock(InstantSource.system())
                        .streamContext(() -> Objects.requireNonNullElse(CALLER.get(), "campaign")).keyAttributes(KEY_ATTRIBUTES).build()
                : null;
        WritePause pause = s.gcPause() ? new WritePause(scheduledName, s.pausedDecision()) : null;
        faultSlot.set(dynamoFaults);
        pauseSlot.set(pause);
        // The provider enforces the night's quota (the stack's, as the handlers are configured) to lower it mid-night.
        // The Adyen fake enforces no quota: an Adyen schedule's lowered quota is not applied (its 429 burst is).
        RequestQuota quota = s.quotaLowered() && adyen.isEmpty()
                ? new RequestQuota(ProviderQuota.DEFAULT.requestsPerSecond(), ProviderQuota.DEFAULT.maxConcurrentRequests()) : null;
        pipeline.provider().enforce(quota);
        for (ForcedFault forced : forcedFaults(s, random)) {
            String op = Candidate.operationIdFor(forced.authorisationId());
            Fault fault = forced.fault();
            adyen.ifPresentOrElse(fake -> fake.forceNext(op, fault), () -> pipeline.provider().forceNext(op, fault));
            trace.add("provider will answer " + op + " with " + fault + " (if a request for it comes)");
        }
        // The Adyen webhook path's faults: drawn apart from the schedule's stream, so its other faults are unchanged.
        WebhookFaults webhookFaults = adyen.isPresent() ? WebhookFaults.generate(s.seed()) : null;
        String lostAuthorisation = null;
        if (webhookFaults != null) {
            trace.add("adyen: " + webhookFaults.describe());
            List<String> releasable = data.releasableIds(input.cutoff());
            if (webhookFaults.loseOne() && !releasable.isEmpty()) {
                // One the night commands (due, not settled), unless a settlement arrives for it during the run.
                lostAuthorisation = releasable.get(webhookFaults.lostPick() % releasable.size());
                adyen.get().loseNotificationOf(Candidate.operationIdFor(lostAuthorisation));
                trace.add("adyen will lose the CANCELLATION notification of " + Candidate.operationIdFor(lostAuthorisation)
                        + " for good (if it is cancelled)");
            }
        }
        // Settlements arrive as the platform's events, through the ingestion queue and IngestEvents.
        SettlementFeed settlements = SettlementFeed.open(pipeline, clock, s.seed() ^ SETTLEMENT_ORDER);
        pipeline.hook(new ScheduleHook(pipeline, settlements, s, random, pause, quota, faults, trace));
        try {
            List<ExecutionFollower.Followed> followed = new ArrayList<>();
            WindowStarter starter = new WindowStarter(pipeline.sfn(), pipeline.stateMachineArn(), new EmfMetrics(clock, "chaos", line -> { }));
            StartResult first = LocalRun.deliverScheduleEvent(pipeline, input.windowStart().toString());
            trace.add("scheduler delivers the occurrence: " + first.executionName());
            for (int k = 0; k < s.duplicateDeliveries(); k++) {
                StartResult dup = LocalRun.deliverScheduleEvent(pipeline, input.windowStart().toString());
                faults.merge("scheduler-duplicate", 1L, Long::sum);
                trace.add("scheduler delivers it again: " + (dup.duplicateSuppressed() ? "duplicate start suppressed" : "STARTED " + dup.executionName()));
            }
            if (s.racingRerun()) {
                StartResult rerun = starter.startRerun(window, input.executionInput(), true);
                trace.add("operator forces a rerun while " + first.executionName() + " runs: " + rerun.executionName());
                followed.add(follow(pipeline, first.executionArn(), trace));
                followed.add(follow(pipeline, rerun.executionArn(), trace));
                countIfRacing(pipeline, first.executionArn(), rerun.executionArn(), faults, trace);
            } else if (pause != null && awaitPausedOrClosed(pipeline, pause, first.executionArn())) {
                faults.merge("gc-pause-past-lease", 1L, Long::sum);
                clock.advance(Timing.LEASE_DURATION.plusMinutes(1));
                trace.add(first.executionName() + " frozen before its release decision for " + pause.heldAuthorisationId()
                        + "; clock advanced past its lease");
                if (s.settleWhileFrozen()) {
                    settle(settlements, List.of(pause.heldAuthorisationId()), trace);
                    faults.merge("settlement-during-run", 1L, Long::sum);
                    trace.add("settlement arrives for " + pause.heldAuthorisationId() + " while its decision is frozen");
                }
                StartResult rerun = starter.startRerun(window, input.executionInput(), true);
                trace.add("operator forces a rerun, which takes over the expired lease: " + rerun.executionName());
                ExecutionFollower.Followed takeover = follow(pipeline, rerun.executionArn(), trace);
                if (pause.resume()) {
                    trace.add("the frozen worker resumes after the rerun ended");
                }
                followed.add(follow(pipeline, first.executionArn(), trace));
                followed.add(takeover);
                countIfRacing(pipeline, first.executionArn(), rerun.executionArn(), faults, trace);
            } else {
                followed.add(follow(pipeline, first.executionArn(), trace));
            }
            followed.forEach(f -> trace.add(name(f) + " " + f.status() + f.error().map(e -> " " + e).orElse("") + " " + taskFailures(f.events())));
            if (dynamoFaults != null) {
                FaultCounts.of(dynamoFaults).forEach((k, v) -> faults.merge(k, v, Long::sum));
                trace.add("DynamoDB faults injected: " + FaultCounts.of(dynamoFaults)
                        + (dynamoFaults.tokenMismatches() > 0 ? ", IdempotentParameterMismatch answers: " + dynamoFaults.tokenMismatches() : ""));
            }

            List<InvariantAudit.Violation> found = new ArrayList<>();
            java.util.concurrent.atomic.AtomicLong webhookMutantEffects = new java.util.concurrent.atomic.AtomicLong();
            if (adyen.isPresent()) {
                found.addAll(webhookRounds(pipeline, adyen.get(), clock, webhookFaults, settlements, mutant, webhookMutantEffects, faults, trace));
            }
            found.addAll(audit(pipeline, input, false).violations());

            // The operator completes the window: faults over, reruns until nothing is left.
            faultSlot.clear();
            pauseSlot.clear();
            throttleNext(pipeline, 0, Duration.ZERO);
            pipeline.provider().enforce(null);
            pipeline.hook(InvocationHook.NONE);
            long reruns = 0;
            // A command whose notification was lost for good waits ACKNOWLEDGED: the night's promise does not cover it (the
            // deployed night never waits for an outcome); the providerOutcomeTimeout escalation in the operator's rerun does.
            String lostHold = lostAuthorisation != null && adyen.get().lostNotifications().contains(Candidate.operationIdFor(lostAuthorisation))
                    ? lostAuthorisation : null;
            if (lostHold != null) {
                faults.merge("webhook-lost", 1L, Long::sum);
            }
            InvariantAudit.Report complete = audit(pipeline, input, true);
            // I4 as a night's promise: a run that ended SUCCEEDED has left nothing eligible behind, before any rerun, beyond
            // the backlog it reported; and no night runs into its timeout instead of reporting its backlog.
            Optional<ExecutionFollower.Followed> succeeded = followed.stream().filter(ExecutionFollower.Followed::succeeded).findFirst();
            if (succeeded.isPresent()) {
                long declared = declaredBacklog(succeeded.get());
                InvariantAudit.Report promised = declared == 0 ? complete : audit(pipeline, input, true, declared);
                promised.violations().stream().filter(v -> v.invariant().equals("I4"))
                        .filter(v -> lostHold == null || !v.detail().startsWith(lostHold + " ")).findFirst().ifPresent(v -> found.add(
                        new InvariantAudit.Violation("I4", "a run ended SUCCEEDED and left the window incomplete: " + v.detail())));
                if (declared > 0) {
                    trace.add(name(succeeded.get()) + " reported " + declared + " commands left for the next run");
                }
            }
            found.addAll(timedOutNights(followed));
            while (!complete.invariants().get("I4") && reruns < MAX_OPERATOR_RERUNS) {
                long waited = awaitInProgressWindows(pipeline);
                if (waited > 0) {
                    trace.add("operator waits " + waited + " ms for the in-progress window of a delivery left INPROGRESS");
                }
                if (adyen.isPresent() && !acknowledged(pipeline).isEmpty()) {
                    // An outcome that never came: the next run's delivery escalates the command once providerOutcomeTimeout has
                    // passed since its acknowledgement. The feed keeps coming meanwhile (a watermark at the new now).
                    clock.advance(ProviderOutcomeTimeout.DEFAULT.timeout().plusMinutes(1));
                    pipeline.settlementFeedComplete();
                    trace.add("operator's next run comes after providerOutcomeTimeout (clock advanced " + ProviderOutcomeTimeout.DEFAULT.timeout()
                            + " + 1 min) for " + acknowledged(pipeline) + " still ACKNOWLEDGED");
                }
                Duration leaseWait = FailedRunLease.waitOut(pipeline, clock);
                if (!leaseWait.isZero()) {
                    trace.add("operator waits " + leaseWait.toSeconds() + " s (clock advanced) for the failed run's lease to expire");
                }
                StartResult again = starter.startRerun(window, input.executionInput(), false);
                ExecutionFollower.Followed f = follow(pipeline, again.executionArn(), trace);
                followed.add(f);
                trace.add("operator completes the window: " + again.executionName() + " " + f.status() + f.error().map(e -> " " + e).orElse(""));
                reruns++;
                complete = audit(pipeline, input, true);
            }
            if (lostHold != null && withStatus(pipeline, List.of(Tables.ReleaseCommands.STATUS_ESCALATED)).contains(Candidate.operationIdFor(lostHold))) {
                // What the operator's run after providerOutcomeTimeout did for the notification that never came.
                faults.merge("webhook-lost-escalated", 1L, Long::sum);
            }
            Set<String> seen = new LinkedHashSet<>();
            found.forEach(v -> seen.add(v.invariant() + v.detail()));
            complete.violations().stream().filter(v -> seen.add(v.invariant() + v.detail())).forEach(found::add);
            long superseded = followed.stream().filter(f -> f.error().filter(ErrorNames.FAIL_SUPERSEDED::equals).isPresent()).count();
            // Counted at the end: a forced provider fault counts once a request met it, the operator's reruns included.
            SortedMap<String, List<Fault>> answered = adyen.isPresent() ? adyen.get().faultsAnswered() : pipeline.provider().faultsAnswered();
            answered.values().forEach(list -> list.forEach(fault -> faults.merge("provider-" + fault.name().toLowerCase().replace('_', '-'), 1L, Long::sum)));
            // Quota pressure counts where it took effect: 429s the burst sent, requests the lowered quota refused.
            long burst = adyen.isPresent() ? adyen.get().burstAnswered() : pipeline.provider().burstAnswered();
            if (burst > 0) {
                faults.merge("provider-429-burst", burst, Long::sum);
            }
            if (quota != null && quota.violations() > 0) {
                faults.merge("provider-quota-lowered", quota.violations(), Long::sum);
            }
            trace.add("provider 429s: " + burst + " from the burst, "
                    + (quota == null ? 0 : quota.violations()) + " from the lowered quota");
            trace.add("provider answered with faults: " + answered);
            SortedMap<String, List<String>> sequence = new TreeMap<>();
            if (dynamoFaults != null) {
                dynamoFaults.effectsByStream().forEach((stream, effects) -> sequence.put("ddb " + stream, effects));
            }
            answered.forEach((op, list) -> sequence.put("provider " + op, list.stream().map(Fault::name).toList()));
            long mutantEffects = 0;
            if (mutant != null) {
                mutantEffects = (defect == null ? 0 : defect.effects()) + proxy.effects() + webhookMutantEffects.get();
                trace.add("mutant " + mutant.cliName() + " took effect " + mutantEffects + " times");
            }
            if (dump != null) {
                StateDump.write(dump, StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables()), pipeline.providerEffects());
            }
            return new Outcome(new LinkedHashMap<>(faults), superseded, reruns, found, List.copyOf(trace), sequence, mutantEffects);
        } finally {
            settlements.close();
            mutantSlot.clear();
            proxy.configure(null, line -> { });
            if (pause != null) {
                pause.resume();
            }
            faultSlot.clear();
            pauseSlot.clear();
            throttleNext(pipeline, 0, Duration.ZERO);
            pipeline.provider().enforce(null);
            pipeline.hook(InvocationHook.NONE);
        }
    }

    /** The schedule's synthetic authorisations (10 % of them too young for the night). */
    static SyntheticData dataOf(ChaosSchedule s) {
        return new SyntheticData(s.authorisations(), s.settledFraction(), 0.1, s.seed());
    }

    /** The stream of a schedule's run-time draws: its forced provider faults first, then the hook's settlements. */
    static SplittableRandom scheduleRandom(long scheduleSeed) {
        return new SplittableRandom(scheduleSeed ^ 0x5DEECE66DL);
    }

    /** One forced provider fault: the authorisation whose command meets it, if that command is sent. */
    record ForcedFault(String authorisationId, Fault fault) {
    }

    /** The schedule's forced provider faults, drawn first from {@code random} (a fresh {@link #scheduleRandom}). */
    static List<ForcedFault> forcedFaults(ChaosSchedule s, SplittableRandom random) {
        List<ForcedFault> forced = new ArrayList<>();
        for (int k = 0; k < s.providerFaults(); k++) {
            String authorisation = SyntheticData.authorisationId(random.nextInt(s.authorisations()));
            forced.add(new ForcedFault(authorisation, Fault.values()[random.nextInt(Fault.values().length)]));
        }
        return forced;
    }

    /** A 429 burst at the provider the night talks to: the Adyen fake with the Adyen adapter, else the simulated provider. */
    private static void throttleNext(LocalPipeline pipeline, int requests, Duration retryAfter) {
        pipeline.adyen().ifPresentOrElse(fake -> fake.throttleNext(requests, retryAfter), () -> pipeline.provider().throttleNext(requests, retryAfter));
    }

    /** The operation ids of the commands waiting ACKNOWLEDGED for their provider outcome. */
    private static List<String> acknowledged(LocalPipeline pipeline) {
        return withStatus(pipeline, Tables.ReleaseCommands.AWAITING_OUTCOME);
    }

    /** The operation ids of the commands whose status is one of {@code statuses}, in order. */
    private static List<String> withStatus(LocalPipeline pipeline, java.util.Collection<String> statuses) {
        return StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables()).of(Tables.ReleaseCommands.SCHEMA).stream()
                .filter(c -> statuses.contains(c.get(Tables.ReleaseCommands.STATUS).s()))
                .map(c -> c.get(Tables.ReleaseCommands.OPERATION_ID).s()).sorted().toList();
    }

    /**
     * The Adyen night's end: its CANCELLATION notifications delivered after the executions ended, with the schedule's webhook
     * faults, to the receiver handler (the real one, or the {@link Mutant#WEBHOOK_HMAC_SKIPPED} one), into the schedule's
     * ingestion queue and IngestEvents, the DynamoDB faults still on. Every notification not lost for good must have been
     * delivered and its command must have left ACKNOWLEDGED (I4: an outcome delivered and never applied is lost).
     */
    private static List<InvariantAudit.Violation> webhookRounds(LocalPipeline pipeline, AdyenFake adyen, ShiftableClock clock, WebhookFaults w,
                                                                SettlementFeed settlements, Mutant mutant,
                                                                java.util.concurrent.atomic.AtomicLong mutantEffects, Map<String, Long> faults,
                                                                List<String> trace) {
        java.util.function.Function<String, com.payments.reconciler.webhook.AdyenWebhookHandler> receivers =
                mutant == Mutant.WEBHOOK_HMAC_SKIPPED
                        ? queueUrl -> pipeline.adyenWebhookHandler(queueUrl, real -> item -> {
                            // The defect: the real check is made, and its refusal ignored.
                            if (real.verify(item) != com.payments.reconciler.webhook.AdyenSignature.Verdict.VALID) {
                                mutantEffects.incrementAndGet();
                                trace.add("mutant webhook-hmac-skipped accepts a notification whose signature does not verify");
                            }
                            return com.payments.reconciler.webhook.AdyenSignature.Verdict.VALID;
                        })
                        : pipeline::adyenWebhookHandler;
        com.payments.reconciler.harness.local.AdyenWebhooks.Result result = new com.payments.reconciler.harness.local.AdyenWebhooks(pipeline, clock,
                Clock.systemUTC(), w.plan(), trace::add, receivers).run(settlements.queue(), Map::of);
        var sent = result.webhooks();
        trace.add("adyen webhooks: " + sent);
        if (sent.notifications() > 0) {
            faults.merge("webhook-delayed-past-night-end", (long) sent.notifications(), Long::sum);
        }
        if (sent.duplicates() > 0) {
            faults.merge("webhook-duplicate", (long) sent.duplicates(), Long::sum);
        }
        if (sent.forged() > 0) {
            faults.merge("webhook-forged", (long) sent.forged(), Long::sum);
        }
        List<InvariantAudit.Violation> found = new ArrayList<>();
        if (adyen.outstanding() > 0) {
            found.add(new InvariantAudit.Violation("I4", adyen.outstanding() + " CANCELLATION notifications still not accepted by the receiver after "
                    + sent.rounds() + " rounds"));
        }
        List<String> lost = adyen.lostNotifications();
        result.acknowledged().stream().filter(op -> !lost.contains(op)).forEach(op -> found.add(new InvariantAudit.Violation("I4",
                op + " still ACKNOWLEDGED after its CANCELLATION notification was delivered: the outcome was never applied")));
        return found;
    }

    /**
     * The schedule's interference with Lambda invocations: settlements arriving while the first page runs,
     * the frozen worker woken at the chosen point of the rerun, and one call that commits then times out.
     */
    private static final class ScheduleHook implements InvocationHook {
        private final LocalPipeline pipeline;
        private final SettlementFeed settlements;
        private final ChaosSchedule s;
        private final SplittableRandom random;
        private final WritePause pause;
        private final RequestQuota quota;
        private final Map<String, Long> faults;
        private final List<String> trace;
        private final AtomicBoolean settlementsSent = new AtomicBoolean();
        private final AtomicBoolean deliveryStarted = new AtomicBoolean();
        private final java.util.concurrent.atomic.AtomicInteger lambdaThrottled = new java.util.concurrent.atomic.AtomicInteger();
        private final LambdaFunction throttledFunction;
        private final AtomicBoolean timedOut = new AtomicBoolean();
        private final LambdaFunction failing;
        private final LambdaFunction resumeBefore;

        ScheduleHook(LocalPipeline pipeline, SettlementFeed settlements, ChaosSchedule s, SplittableRandom random, WritePause pause,
                     RequestQuota quota, Map<String, Long> faults, List<String> trace) {
            this.pipeline = pipeline;
            this.settlements = settlements;
            this.s = s;
            this.random = random;
            this.pause = pause;
            this.quota = quota;
            this.throttledFunction = switch (s.lambdaThrottled()) {
                case NONE -> null;
                case RECONCILE_PAGE -> LambdaFunction.RECONCILE_PAGE;
                case DELIVER_COMMANDS -> LambdaFunction.DELIVER_COMMANDS;
                case RELEASE_LEASE -> LambdaFunction.RELEASE_LEASE;
            };
            this.faults = faults;
            this.trace = trace;
            this.failing = switch (s.commitThenTimeout()) {
                case NONE -> null;
                case RECONCILE_PAGE -> LambdaFunction.RECONCILE_PAGE;
                case DELIVER_COMMANDS -> LambdaFunction.DELIVER_COMMANDS;
            };
            this.resumeBefore = switch (s.resume()) {
                case BEFORE_RERUN_DECIDES -> LambdaFunction.RECONCILE_PAGE;
                case AFTER_RERUN_DECIDES -> LambdaFunction.DELIVER_COMMANDS;
                case AFTER_RERUN_ENDS -> null;
            };
        }

        @Override
        public InjectedFailure before(LambdaFunction function, int invocation, byte[] payload) {
            CALLER.set(caller(function, payload));
            // Another workload has the account's (or the function's reserved) concurrency; Lambda refuses the
            // invoke before running anything, as its Invoke API does (429 TooManyRequestsException).
            if (function == throttledFunction && lambdaThrottled.getAndUpdate(n -> n < s.lambdaThrottles() ? n + 1 : n) < s.lambdaThrottles()) {
                faults.merge("lambda-throttled", 1L, Long::sum);
                trace.add(function.logicalName() + " invocation " + invocation + " refused by Lambda: TooManyRequestsException");
                return InjectedFailure.throttled("Rate Exceeded.");
            }
            if (function == LambdaFunction.DELIVER_COMMANDS && deliveryStarted.compareAndSet(false, true)) {
                if (s.providerThrottleBurst() > 0) {
                    throttleNext(pipeline, s.providerThrottleBurst(), Duration.ofSeconds(1));
                    trace.add("the provider answers its next " + s.providerThrottleBurst() + " requests 429 with Retry-After: 1");
                }
                if (quota != null) {
                    quota.lowerTo(ChaosSchedule.LOWERED_QUOTA);
                    trace.add("the provider lowers its quota to " + ChaosSchedule.LOWERED_QUOTA + " requests/s");
                }
            }
            if (function == LambdaFunction.RECONCILE_PAGE && s.settlementsDuringRun() > 0 && settlementsSent.compareAndSet(false, true)) {
                List<String> ids = new ArrayList<>();
                for (int k = 0; k < s.settlementsDuringRun(); k++) {
                    synchronized (random) {
                        ids.add(SyntheticData.authorisationId(random.nextInt(s.authorisations())));
                    }
                    trace.add("settlement arrives for " + ids.getLast() + " as the first page starts");
                    faults.merge("settlement-during-run", 1L, Long::sum);
                }
                settle(settlements, ids, trace);
            }
            if (pause != null && function == resumeBefore && pause.holding() && isRerun(payload)) {
                if (pause.resume()) {
                    trace.add("the frozen worker resumes " + s.resume().phrase());
                }
                try {
                    // The rerun goes on only once the stale write has been answered: the race is decided, not left to timing.
                    if (!pause.awaitWritten(2, TimeUnit.MINUTES)) {
                        trace.add("the frozen worker's write was not answered within 2 minutes");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return null;
        }

        @Override
        public InjectedFailure afterSuccess(LambdaFunction function, int invocation, byte[] payload, byte[] result) {
            if (function == failing && timedOut.compareAndSet(false, true)) {
                faults.merge("lambda-commit-then-timeout", 1L, Long::sum);
                trace.add(function.logicalName() + " invocation " + invocation + " committed, then Lambda reported a timeout");
                return InjectedFailure.timedOut(function);
            }
            return null;
        }

        private static boolean isRerun(byte[] payload) {
            return new String(payload, StandardCharsets.UTF_8).contains(RERUN_MARKER);
        }
    }

    /** "reconcile-2026-12-03/ReconcilePage/2": the parts of an invocation that are the same on every run of the schedule. */
    static String caller(LambdaFunction function, byte[] payload) {
        String text = new String(payload, StandardCharsets.UTF_8);
        Matcher execution = OWNER_EXECUTION.matcher(text);
        Matcher shard = SHARD.matcher(text);
        return (execution.find() ? execution.group(1) : "-") + "/" + function.logicalName() + "/" + (shard.find() ? shard.group(1) : "-");
    }

    /** A rerun raced the scheduled execution only if their executions' time spans overlapped. */
    private static void countIfRacing(LocalPipeline pipeline, String firstArn, String rerunArn, Map<String, Long> faults, List<String> trace) {
        DescribeExecutionResponse first = pipeline.sfn().describeExecution(b -> b.executionArn(firstArn));
        DescribeExecutionResponse rerun = pipeline.sfn().describeExecution(b -> b.executionArn(rerunArn));
        boolean overlapped = overlapped(first.startDate(), first.stopDate(), rerun.startDate(), rerun.stopDate());
        if (overlapped) {
            faults.merge("rerun-racing", 1L, Long::sum);
        }
        trace.add("the rerun " + (overlapped ? "ran while" : "did not overlap") + " the scheduled execution (started "
                + first.startDate() + ", stopped " + first.stopDate() + "; rerun " + rerun.startDate() + " to " + rerun.stopDate() + ")");
    }

    /** Whether two executions' spans overlap; an execution not stopped yet runs on. */
    static boolean overlapped(Instant firstStart, Instant firstStop, Instant secondStart, Instant secondStop) {
        return (firstStop == null || secondStart.isBefore(firstStop)) && (secondStop == null || firstStart.isBefore(secondStop));
    }

    private static void settle(SettlementFeed settlements, List<String> authorisationIds, List<String> trace) {
        PlatformFeed.Tally tally = settlements.settle(authorisationIds);
        trace.add("settlement events through the queue and IngestEvents: " + tally.published() + " published (each twice, reordered), "
                + tally.accepted() + " accepted, " + tally.duplicates() + " duplicates, " + tally.deadLettered() + " dead-lettered");
    }

    /**
     * Follows an execution to its end. moto 5.2.1 sometimes fails to serialise an execution's history
     * (HTTP 500, a TypeError in its serializer); the verdict never depends on the history (the audit reads
     * the store), so the end state is then taken from DescribeExecution alone, and the trace says so.
     */
    private static ExecutionFollower.Followed follow(LocalPipeline pipeline, String executionArn, List<String> trace) throws InterruptedException {
        try {
            return pipeline.follow(executionArn, e -> { });
        } catch (SfnException e) {
            if (e.statusCode() != 500) {
                throw e;
            }
            trace.add("moto could not serialise the history of " + ExecutionName.lastSegmentOf(executionArn)
                    + " (HTTP 500); following its status only");
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
            while (System.nanoTime() < deadline) {
                DescribeExecutionResponse described = pipeline.sfn().describeExecution(b -> b.executionArn(executionArn));
                if (described.status() != ExecutionStatus.RUNNING) {
                    return new ExecutionFollower.Followed(executionArn, described.status(), Optional.ofNullable(described.output()),
                            Optional.ofNullable(described.error()), Optional.ofNullable(described.cause()), List.of(), 0, 0);
                }
                Thread.sleep(200);
            }
            throw new IllegalStateException("execution " + executionArn + " still RUNNING after 30 minutes");
        }
    }

    /** The runbook: a delivery whose record was left INPROGRESS can be retried once its in-progress window ends. */
    private static long awaitInProgressWindows(LocalPipeline pipeline) throws InterruptedException {
        long latest = 0;
        for (Map<String, AttributeValue> item : pipeline.dynamo().scanPaginator(b -> b.tableName(pipeline.tables().idempotency())).items()) {
            if (IDEMPOTENCY_IN_PROGRESS.equals(Attr.stringOr(item, IDEMPOTENCY_STATUS, ""))) {
                latest = Math.max(latest, Attr.numberOr(item, IDEMPOTENCY_IN_PROGRESS_EXPIRY, 0));
            }
        }
        long wait = latest - System.currentTimeMillis();
        if (wait > 0) {
            Thread.sleep(wait + 100);
        }
        return Math.max(0, wait);
    }


    private static boolean awaitPausedOrClosed(LocalPipeline pipeline, WritePause pause, String executionArn) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (System.nanoTime() < deadline) {
            if (pause.awaitPaused(100, TimeUnit.MILLISECONDS)) {
                return true;
            }
            if (pipeline.sfn().describeExecution(b -> b.executionArn(executionArn)).status() != ExecutionStatus.RUNNING) {
                return pause.awaitPaused(0, TimeUnit.MILLISECONDS);
            }
        }
        throw new IllegalStateException("the first execution neither reached its paused write nor closed in 3 minutes");
    }

    private static InvariantAudit.Report audit(LocalPipeline pipeline, NightWindow input, boolean complete) {
        return audit(pipeline, input, complete, 0);
    }

    private static InvariantAudit.Report audit(LocalPipeline pipeline, NightWindow input, boolean complete, long declaredBacklog) {
        return PipelineEvidence.of(pipeline).audit(complete ? new InvariantAudit.Completion(input.cutoff(), true, declaredBacklog) : null);
    }

    /** What a run's summary says it left PENDING for the next run (the audit checks it against the tables). */
    private static long declaredBacklog(ExecutionFollower.Followed followed) {
        try {
            return followed.output().isEmpty() ? 0
                    : Json.mapper().readTree(followed.output().get()).path("delivery").path("backlogLeft").asLong();
        } catch (java.io.IOException e) {
            return 0;
        }
    }

    /** A night that cannot finish ends SUCCEEDED with its backlog reported; one that runs into its timeout is I4's. */
    static List<InvariantAudit.Violation> timedOutNights(List<ExecutionFollower.Followed> followed) {
        return followed.stream().filter(f -> f.status() == ExecutionStatus.TIMED_OUT)
                .map(f -> new InvariantAudit.Violation("I4", name(f) + " ran into its timeout instead of ending with its backlog reported"))
                .toList();
    }

    private static String name(ExecutionFollower.Followed f) {
        return ExecutionName.lastSegmentOf(f.executionArn());
    }

    private static List<String> taskFailures(List<HistoryEvent> events) {
        return events.stream().filter(e -> e.taskFailedEventDetails() != null)
                .map(e -> e.taskFailedEventDetails().error().replace("com.payments.reconciler.workflow.", "")).toList();
    }
}
