package com.payments.reconciler.cli.chaos;

import com.payments.reconciler.audit.AppliedWrite;
import com.payments.reconciler.audit.InvariantAudit;
import com.payments.reconciler.audit.ProviderEffect;
import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.cli.local.ExecutionFollower;
import com.payments.reconciler.cli.local.InvocationHook;
import com.payments.reconciler.cli.local.LocalPipeline;
import com.payments.reconciler.cli.local.LocalRun;
import com.payments.reconciler.cli.local.ShiftableClock;
import com.payments.reconciler.cli.local.SyntheticData;
import com.payments.reconciler.cli.local.WritePause;
import com.payments.reconciler.local.provider.Fault;
import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.reconcile.FencedWriter;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.window.ExecutionInput;
import com.payments.reconciler.window.ExecutionName;
import com.payments.reconciler.window.StartResult;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.window.WindowStarter;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.ErrorNames;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.Timing;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;

/**
 * {@code bin/reconciler chaos}: randomized fault schedules through the full local pipeline (the real
 * ASL in moto behind the Step Functions API, the real handlers, DynamoDB behind the fault layer, the
 * simulated provider). After each schedule the invariants are checked from the stored tables and the
 * provider's effect log; then the window is completed by reruns as an operator would, and I4 (nothing
 * lost) is checked. {@code fenced=false} is the negative control: decisions without the lease check,
 * which the campaign must catch.
 */
public final class ChaosCampaign {

    private static final WindowConfig CONFIG = WindowConfig.defaults();
    private static final int MAX_OPERATOR_RERUNS = 3;

    private final Path workDir;
    private final boolean fenced;
    private final ExecutionInterceptor dynamoFaults;
    private final Consumer<String> console;

    /**
     * @param dynamoFaults the DynamoDB fault layer switched on for schedules that want it (built from {@code --faults})
     */
    public ChaosCampaign(Path workDir, boolean fenced, ExecutionInterceptor dynamoFaults, Consumer<String> console) {
        this.workDir = workDir;
        this.fenced = fenced;
        this.dynamoFaults = dynamoFaults;
        this.console = console;
    }

    public ChaosReport run(int schedules, long seed) throws InterruptedException {
        ShiftableClock clock = new ShiftableClock(Clock.systemUTC());
        InterceptorSlot faultSlot = new InterceptorSlot();
        InterceptorSlot pauseSlot = new InterceptorSlot();
        WindowId window = new WindowId(clock.instant().atZone(CONFIG.zone()).toLocalDate());
        LocalPipeline.Options options = LocalPipeline.Options.defaults(workDir, clock).withFastRetries()
                .withDynamoInterceptors(List.of(faultSlot, pauseSlot))
                .withEnv(LocalRun.windowEnvironment(CONFIG))
                .withDecisionFence(fenced ? FencedWriter.Fence.LEASE_CHECKED : FencedWriter.Fence.UNFENCED_NEGATIVE_CONTROL);
        Map<String, Long> faults = new LinkedHashMap<>();
        Map<String, Long> violations = new LinkedHashMap<>();
        List.of("I1", "I2", "I3", "I4", "I5").forEach(i -> violations.put(i, 0L));
        List<ChaosReport.Failure> failures = new ArrayList<>();
        long superseded = 0;
        long reruns = 0;
        try (LocalPipeline pipeline = LocalPipeline.start(options)) {
            for (int i = 0; i < schedules; i++) {
                ChaosSchedule schedule = ChaosSchedule.generate(new SplittableRandom(seed + i).nextLong());
                Outcome outcome = runOne(pipeline, clock, faultSlot, pauseSlot, window, schedule);
                outcome.faults().forEach((k, v) -> faults.merge(k, v, Long::sum));
                superseded += outcome.superseded();
                reruns += outcome.reruns();
                if (!outcome.violations().isEmpty()) {
                    outcome.violations().forEach(v -> violations.merge(v.invariant(), 1L, Long::sum));
                    failures.add(new ChaosReport.Failure(schedule.seed(), schedule.describe(),
                            outcome.violations().stream().map(v -> v.invariant() + ": " + v.detail()).toList(), outcome.trace()));
                }
                console.accept(String.format("schedule %d/%d %s — %s", i + 1, schedules, outcome.violations().isEmpty() ? "ok" : "VIOLATIONS",
                        schedule.describe()));
            }
            FaultCounts.of(dynamoFaults).forEach((k, v) -> faults.merge(k, v, Long::sum));
        }
        return new ChaosReport(schedules, fenced, seed, faults, superseded, reruns, violations, failures);
    }

    private record Outcome(Map<String, Long> faults, long superseded, long reruns, List<InvariantAudit.Violation> violations, List<String> trace) {
    }

    private Outcome runOne(LocalPipeline pipeline, ShiftableClock clock, InterceptorSlot faultSlot, InterceptorSlot pauseSlot,
                           WindowId window, ChaosSchedule s) throws InterruptedException {
        pipeline.reset();
        ExecutionInput input = CONFIG.inputFor(window);
        SyntheticData.Expected expected = new SyntheticData(s.authorisations(), s.settledFraction(), 0.1, s.seed())
                .load(pipeline.dynamo(), pipeline.tables(), input.cutoff(), input.shards());
        pipeline.writeLog().clear();
        SplittableRandom random = new SplittableRandom(s.seed() ^ 0x5DEECE66DL);
        Map<String, Long> faults = new LinkedHashMap<>();
        List<String> trace = new ArrayList<>();
        String scheduledName = ExecutionName.scheduled(window).toString();

        WritePause pause = s.gcPause() ? new WritePause(scheduledName) : null;
        pauseSlot.set(pause);
        faultSlot.set(s.dynamoFaults() ? dynamoFaults : null);
        for (int k = 0; k < s.providerFaults(); k++) {
            String op = Candidate.operationIdFor(String.format("auth-%08d", random.nextInt(Math.max(1, s.authorisations()))));
            Fault fault = Fault.values()[random.nextInt(Fault.values().length)];
            pipeline.provider().forceNext(op, fault);
            faults.merge("provider-" + fault.name().toLowerCase().replace('_', '-'), 1L, Long::sum);
        }
        AtomicInteger commitThenFail = new AtomicInteger();
        LambdaFunction failing = s.commitThenFailFunction() == 1 ? LambdaFunction.RECONCILE_PAGE
                : s.commitThenFailFunction() == 2 ? LambdaFunction.DELIVER_COMMANDS : null;
        pipeline.hook(new InvocationHook() {
            @Override
            public InjectedFailure before(LambdaFunction function, int invocation, byte[] payload) {
                if (function == LambdaFunction.RECONCILE_PAGE && invocation == 1 && s.settlementsDuringRun() > 0) {
                    for (int k = 0; k < s.settlementsDuringRun(); k++) {
                        String id = String.format("auth-%08d", random.nextInt(Math.max(1, s.authorisations())));
                        pipeline.dynamo().putItem(b -> b.tableName(pipeline.tables().settlements()).item(Map.of(
                                Settlements.AUTHORISATION_ID, AttributeValue.fromS(id),
                                Settlements.SETTLED_AT, AttributeValue.fromN(Long.toString(clock.millis())))));
                        trace.add("settlement arrives for " + id);
                        faults.merge("settlement-during-run", 1L, Long::sum);
                    }
                }
                if (pause != null && s.resumeDuringTakeover() && function == LambdaFunction.RECONCILE_PAGE
                        && new String(payload, StandardCharsets.UTF_8).contains("-rerun-") && !pause.armed()) {
                    pause.resume();
                    try {
                        pause.awaitWritten(2, TimeUnit.MINUTES);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    trace.add("the paused worker's write was answered after the rerun took over");
                }
                return null;
            }

            @Override
            public InjectedFailure afterSuccess(LambdaFunction function, int invocation, byte[] payload, byte[] result) {
                if (function == failing && commitThenFail.getAndIncrement() == 0) {
                    faults.merge("lambda-commit-then-timeout", 1L, Long::sum);
                    trace.add(function.logicalName() + " invocation " + invocation + " committed, then timed out");
                    return InjectedFailure.timedOut(function);
                }
                return null;
            }
        });

        List<ExecutionFollower.Followed> followed = new ArrayList<>();
        StartResult first = LocalRun.deliverScheduleEvent(pipeline, input.windowStart().toString());
        trace.add("scheduler delivers the occurrence: " + first.executionName());
        for (int k = 0; k < s.duplicateDeliveries(); k++) {
            StartResult dup = LocalRun.deliverScheduleEvent(pipeline, input.windowStart().toString());
            faults.merge("scheduler-duplicate", 1L, Long::sum);
            trace.add("scheduler delivers it again: " + (dup.duplicateSuppressed() ? "suppressed" : "STARTED " + dup.executionName()));
        }
        WindowStarter starter = new WindowStarter(pipeline.sfn(), pipeline.stateMachineArn(), new EmfMetrics(clock, "chaos", line -> { }));
        boolean paused = pause != null && awaitPausedOrClosed(pipeline, pause, first.executionArn());
        if (paused) {
            faults.merge("gc-pause-past-lease", 1L, Long::sum);
            clock.advance(Timing.LEASE_DURATION.plusMinutes(1));
            trace.add(first.executionName() + " frozen before its first write; clock advanced past the lease");
            StartResult rerun = starter.startRerun(window, input, true);
            trace.add("operator reruns the window: " + rerun.executionName());
            ExecutionFollower.Followed b = pipeline.follow(rerun.executionArn(), e -> { });
            pause.resume();
            followed.add(pipeline.follow(first.executionArn(), e -> { }));
            followed.add(b);
        } else {
            if (pause != null) {
                pause.resume();
            }
            followed.add(pipeline.follow(first.executionArn(), e -> { }));
        }
        followed.forEach(f -> trace.add(name(f) + " " + f.status() + f.error().map(e -> " " + e).orElse("") + " " + taskFailures(f.events())));

        List<InvariantAudit.Violation> found = new ArrayList<>(audit(pipeline, input, false).violations());

        // The operator completes the window: faults over, reruns until nothing is left.
        faultSlot.clear();
        pauseSlot.clear();
        pipeline.hook(InvocationHook.NONE);
        long reruns = 0;
        InvariantAudit.Report complete = audit(pipeline, input, true);
        while (!complete.allHold() && reruns < MAX_OPERATOR_RERUNS && !hasOnlyStaleViolations(found)) {
            StartResult again = starter.startRerun(window, input, false);
            ExecutionFollower.Followed f = pipeline.follow(again.executionArn(), e -> { });
            followed.add(f);
            trace.add("operator completes the window: " + again.executionName() + " " + f.status());
            reruns++;
            complete = audit(pipeline, input, true);
        }
        Set<String> seen = new LinkedHashSet<>();
        found.forEach(v -> seen.add(v.invariant() + v.detail()));
        complete.violations().stream().filter(v -> seen.add(v.invariant() + v.detail())).forEach(found::add);
        long superseded = followed.stream().filter(f -> f.error().filter(ErrorNames.FAIL_SUPERSEDED::equals).isPresent()).count();
        return new Outcome(faults, superseded, reruns, found, trace);
    }

    /** A stale commit already happened (the negative control): further reruns cannot undo it. */
    private static boolean hasOnlyStaleViolations(List<InvariantAudit.Violation> found) {
        return !found.isEmpty();
    }

    private static boolean awaitPausedOrClosed(LocalPipeline pipeline, WritePause pause, String executionArn) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (System.nanoTime() < deadline) {
            if (pause.awaitPaused(200, TimeUnit.MILLISECONDS)) {
                return true;
            }
            if (pipeline.sfn().describeExecution(b -> b.executionArn(executionArn)).status() != ExecutionStatus.RUNNING) {
                return false;
            }
        }
        throw new IllegalStateException("the first execution neither wrote nor closed in 3 minutes");
    }

    private static InvariantAudit.Report audit(LocalPipeline pipeline, ExecutionInput input, boolean complete) {
        StoreSnapshot snapshot = StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables());
        List<AppliedWrite> writes = pipeline.writeLog().entries().stream()
                .map(e -> new AppliedWrite(e.seq(), e.operation(), e.request(), e.response())).toList();
        List<ProviderEffect> effects = pipeline.provider().effects().stream()
                .map(e -> new ProviderEffect(e.operationId(), e.authorisationId(), e.performed(), e.requests())).toList();
        return new InvariantAudit(pipeline.tables()).audit(snapshot, writes, effects,
                complete ? new InvariantAudit.Completion(input.cutoff(), true) : null);
    }

    private static String name(ExecutionFollower.Followed f) {
        return f.executionArn().substring(f.executionArn().lastIndexOf(':') + 1);
    }

    private static List<String> taskFailures(List<HistoryEvent> events) {
        return events.stream().filter(e -> e.taskFailedEventDetails() != null)
                .map(e -> e.taskFailedEventDetails().error().replace("com.payments.reconciler.workflow.", "")).toList();
    }
}
