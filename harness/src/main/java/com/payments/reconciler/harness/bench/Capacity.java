package com.payments.reconciler.harness.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.audit.InvariantAudit;
import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.cli.operator.ExecutionFollower;
import com.payments.reconciler.harness.local.InvocationHook;
import com.payments.reconciler.harness.local.LocalPipeline;
import com.payments.reconciler.harness.local.LocalRun;
import com.payments.reconciler.harness.local.ShiftableClock;
import com.payments.reconciler.harness.local.SyntheticData;
import com.payments.reconciler.local.provider.PerformedRelease;
import com.payments.reconciler.local.provider.ProviderFaults;
import com.payments.reconciler.local.provider.RequestQuota;
import com.payments.reconciler.store.Attr;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.window.NightWindow;
import com.payments.reconciler.window.StartResult;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.window.WindowStarter;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.ProviderQuota;
import com.payments.reconciler.workflow.Timing;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Capacity in the bench, on its own local engines (in-process handlers, the simulated provider enforcing the quota, the
 * night configured with it): a night at the quota, measured as the provider saw it (releases per second between its
 * first and last release, 429 answers among its requests, requests that came over its concurrency limit); and backlog
 * recovery, a window {@code backlogFactor} times larger than what fits in a shortened delivery budget, run, then rerun
 * as an operator would until nothing is left, with I1–I5 audited after every run.
 */
public final class Capacity {

    /** Reruns allowed beyond the factor: the plan floors each shard's share, so the last run may deliver a handful. */
    private static final int SPARE_RERUNS = 2;

    /**
     * @param quota the provider's quota the night is configured with and the simulated provider enforces
     * @param nightLength how long the measured night delivers at the quota (its size follows)
     * @param backlogBudget the shortened delivery budget of each backlog run
     * @param backlogFactor the backlog as a multiple of what fits in the budget
     */
    public record Settings(ProviderQuota quota, Duration nightLength, Duration backlogBudget, int backlogFactor,
                           double settledFraction, long seed, Path workDir) {
    }

    /**
     * @param engineDeliveryPerSecond what the bench's largest unconstrained window delivered per second on these engines
     *                                (null when it delivered nothing): the measurement the quota is chosen against
     * @param utilisation releases per second at the provider over the quota
     * @param share429 429 answers over the provider's requests
     * @param overConcurrency requests the provider refused for arriving over its concurrency limit
     */
    public record Result(double quota, int maxConcurrentRequests, Double engineDeliveryPerSecond, double utilisation,
                         double share429, long overConcurrency, Night night, BacklogRecovery backlog) {
    }

    /**
     * @param seconds from the provider's first release of the night to its last
     * @param deliveredPerSecond releases after the first, over {@code seconds}
     */
    public record Night(int candidates, String status, long releaseRequested, long delivered, long backlogLeft, double seconds,
                        double deliveredPerSecond, long providerRequests, long answers429, long quotaViolations,
                        long overConcurrency, int peakConcurrent, double throttledSeconds, Map<String, Boolean> invariants) {
    }

    /**
     * @param fitsPerRun what the first run delivered: its shards' plans, their shares × the budget left when each planned
     * @param recovered every run SUCCEEDED with I1–I5, the first left a backlog, and the last left nothing PENDING
     */
    public record BacklogRecovery(int candidates, long releasable, double budgetSeconds, long fitsPerRun, double backlogRatio,
                                  List<Run> runs, boolean recovered) {
    }

    /** One run of the backlog window: what it delivered, what it declared left, and what the tables hold PENDING. */
    public record Run(String execution, String status, long delivered, long backlogLeft, long pendingInTables,
                      Map<String, Boolean> invariants) {
    }

    private final Settings settings;
    private final Consumer<String> console;
    private final Clock wall;

    public Capacity(Settings settings, Consumer<String> console, Clock wall) {
        this.settings = settings;
        this.console = console;
        this.wall = wall;
    }

    public Result run(Double engineDeliveryPerSecond) throws InterruptedException {
        ProviderQuota quota = settings.quota();
        ShiftableClock clock = new ShiftableClock(wall);
        WindowConfig config = WindowConfig.defaults();
        LocalPipeline.Options options = new LocalPipeline.Options(settings.workDir(), clock, false, List.of(), ProviderFaults.NONE,
                config.toEnvironment()).withProviderQuota(Optional.of(quota));
        try (LocalPipeline pipeline = LocalPipeline.start(options)) {
            Night night = night(pipeline, config);
            pipeline.reset();
            enforced(pipeline).reset();
            BacklogRecovery backlog = backlog(pipeline, config, clock);
            long providerRequests = night.providerRequests();
            return new Result(quota.requestsPerSecond(), quota.maxConcurrentRequests(), engineDeliveryPerSecond,
                    night.deliveredPerSecond() / quota.requestsPerSecond(),
                    providerRequests == 0 ? 0 : (double) night.answers429() / providerRequests, night.overConcurrency(), night, backlog);
        }
    }

    private Night night(LocalPipeline pipeline, WindowConfig config) throws InterruptedException {
        double rps = settings.quota().requestsPerSecond();
        int candidates = candidatesFor(Math.round(rps * settings.nightLength().toMillis() / 1000.0));
        WindowId window = config.latestStartedWindow(wall.instant());
        NightWindow input = config.nightFor(window);
        console.accept(String.format(Locale.ROOT, "capacity: a night of %,d candidates at a quota of %s requests/s, %d at once",
                candidates, rps, settings.quota().maxConcurrentRequests()));
        new SyntheticData(candidates, settings.settledFraction(), 0.0, settings.seed()).load(pipeline.dynamo(), pipeline.tables(),
                input.cutoff(), input.shards());
        pipeline.settlementFeedComplete();
        pipeline.writeLog().clear();
        StartResult first = LocalRun.deliverScheduleEvent(pipeline, input.windowStart().toString());
        ExecutionFollower.Followed followed = pipeline.follow(first.executionArn(), e -> { });
        JsonNode delivery = summary(followed).path("delivery");
        Map<String, Boolean> invariants = audit(pipeline, input, followed, delivery.path("backlogLeft").asLong());

        List<Long> times = pipeline.provider().releases().stream().map(PerformedRelease::performedAt).sorted().toList();
        double seconds = times.size() < 2 ? 0 : (times.getLast() - times.getFirst()) / 1000.0;
        double perSecond = seconds == 0 ? 0 : (times.size() - 1) / seconds;
        RequestQuota enforced = enforced(pipeline);
        Night night = new Night(candidates, followed.status().toString(), summary(followed).path("reconcile").path("releaseRequested").asLong(),
                delivery.path("delivered").asLong(), delivery.path("backlogLeft").asLong(), seconds, perSecond,
                enforced.admitted() + enforced.violations(), delivery.path("throttledAnswers").asLong(), enforced.violations(),
                enforced.overConcurrency(), enforced.peakInFlight(), delivery.path("throttledMillis").asLong() / 1000.0, invariants);
        console.accept(String.format(Locale.ROOT, "  %s: %,d delivered in %.1f s, %.1f releases/s (%.3f of the quota); %d of %d "
                        + "provider requests answered 429, %d over the concurrency limit (peak %d at once); I1-I5 %s",
                night.status(), night.delivered(), seconds, perSecond, perSecond / rps, night.answers429(), night.providerRequests(),
                night.overConcurrency(), night.peakConcurrent(), holds(invariants) ? "true" : invariants));
        return night;
    }

    private BacklogRecovery backlog(LocalPipeline pipeline, WindowConfig config, ShiftableClock clock) throws InterruptedException {
        ProviderQuota quota = settings.quota();
        if (config.shards() > Timing.DELIVERY_MAP_CONCURRENCY) {
            throw new IllegalStateException("backlog recovery counts what fits with every shard delivering at once (at most "
                    + Timing.DELIVERY_MAP_CONCURRENCY + " shards), the window has " + config.shards());
        }
        // Each shard plans its share of the quota × its budget (ShardPlan); the backlog is the factor times their sum. No
        // settlements here: every candidate is a release, so the backlog is exactly that many.
        long budgeted = Math.round(quota.requestsPerSecond() * settings.backlogBudget().toMillis() / 1000.0);
        int candidates = (int) (settings.backlogFactor() * budgeted);
        WindowId window = config.latestStartedWindow(wall.instant());
        NightWindow input = config.nightFor(window);
        SyntheticData.Expected expected = new SyntheticData(candidates, 0.0, 0.0, settings.seed() + 1)
                .load(pipeline.dynamo(), pipeline.tables(), input.cutoff(), input.shards());
        pipeline.settlementFeedComplete();
        console.accept(String.format(Locale.ROOT, "capacity: backlog recovery, %,d releases, %d× the %,d a delivery budget of %.0f s "
                + "holds at the quota", expected.releasable(), settings.backlogFactor(), budgeted, settings.backlogBudget().toMillis() / 1000.0));
        pipeline.writeLog().clear();
        pipeline.hook(new BudgetShift(clock, settings.backlogBudget(), pipeline::settlementFeedComplete));
        List<Run> runs = new ArrayList<>();
        try {
            WindowStarter starter = new WindowStarter(pipeline.sfn(), pipeline.stateMachineArn(), new EmfMetrics(clock, "bench", line -> { }));
            StartResult first = LocalRun.deliverScheduleEvent(pipeline, input.windowStart().toString());
            runs.add(run(pipeline, input, first));
            int limit = settings.backlogFactor() + SPARE_RERUNS;
            while (runs.getLast().backlogLeft() > 0 && "SUCCEEDED".equals(runs.getLast().status()) && runs.size() < limit) {
                runs.add(run(pipeline, input, starter.startRerun(window, input.executionInput(), false)));
            }
        } finally {
            pipeline.hook(InvocationHook.NONE);
        }
        Run last = runs.getLast();
        boolean recovered = runs.stream().allMatch(r -> "SUCCEEDED".equals(r.status()) && holds(r.invariants()))
                && runs.getFirst().backlogLeft() > 0 && last.backlogLeft() == 0 && last.pendingInTables() == 0;
        // What fits is what the first run's plans allotted, measured: each shard plans a moment after its budget starts, floored.
        long fits = runs.getFirst().delivered();
        console.accept("  " + (recovered ? "recovered" : "NOT RECOVERED") + " in " + runs.size() + " runs; the first delivered "
                + fits + ", its plans' fit");
        return new BacklogRecovery(candidates, expected.releasable(), settings.backlogBudget().toMillis() / 1000.0, fits,
                fits == 0 ? 0 : (double) expected.releasable() / fits, runs, recovered);
    }

    private Run run(LocalPipeline pipeline, NightWindow input, StartResult started) throws InterruptedException {
        ExecutionFollower.Followed followed = pipeline.follow(started.executionArn(), e -> { });
        JsonNode delivery = summary(followed).path("delivery");
        long declared = delivery.path("backlogLeft").asLong();
        Map<String, Boolean> invariants = audit(pipeline, input, followed, declared);
        long pending = StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables()).of(ReleaseCommands.SCHEMA)
                .stream().filter(c -> ReleaseCommands.STATUS_PENDING.equals(Attr.stringOr(c, ReleaseCommands.STATUS, ""))).count();
        Run run = new Run(started.executionName(), followed.status().toString(), delivery.path("delivered").asLong(), declared, pending, invariants);
        console.accept(String.format(Locale.ROOT, "  %s %s: %,d delivered, %,d declared left, %,d PENDING in the table; I1-I5 %s",
                run.execution(), run.status(), run.delivered(), run.backlogLeft(), run.pendingInTables(),
                holds(invariants) ? "true" : invariants));
        return run;
    }

    /** The invariants after a run, with the backlog it declared allowed to be PENDING (I4 checks it against the tables). */
    private static Map<String, Boolean> audit(LocalPipeline pipeline, NightWindow input, ExecutionFollower.Followed followed, long declared) {
        StoreSnapshot snapshot = StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables());
        InvariantAudit.Report report = new InvariantAudit(pipeline.tables()).audit(snapshot, pipeline.appliedWrites(),
                pipeline.providerReleases(), followed.succeeded() ? new InvariantAudit.Completion(input.cutoff(), true, declared) : null);
        return new TreeMap<>(report.invariants());
    }

    private int candidatesFor(long releases) {
        return (int) Math.max(1, Math.ceil(releases / (1 - settings.settledFraction())));
    }

    private static RequestQuota enforced(LocalPipeline pipeline) {
        return pipeline.provider().quota().orElseThrow(() -> new IllegalStateException("the capacity pipeline's provider enforces the quota"));
    }

    private static boolean holds(Map<String, Boolean> invariants) {
        return !invariants.isEmpty() && invariants.values().stream().allMatch(Boolean::booleanValue);
    }

    private static JsonNode summary(ExecutionFollower.Followed followed) {
        try {
            return followed.output().isPresent() ? Json.mapper().readTree(followed.output().get()) : Json.mapper().createObjectNode();
        } catch (IOException e) {
            throw new IllegalStateException("the execution's output is not JSON: " + followed.output().get(), e);
        }
    }
}
