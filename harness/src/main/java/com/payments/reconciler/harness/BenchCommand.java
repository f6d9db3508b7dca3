package com.payments.reconciler.harness;

import com.payments.reconciler.cli.ExitCodes;

import com.payments.reconciler.harness.bench.BenchReport;
import com.payments.reconciler.harness.bench.BenchTable;
import com.payments.reconciler.harness.bench.Benchmark;
import com.payments.reconciler.harness.bench.Capacity;
import com.payments.reconciler.harness.bench.FenceOverhead;
import com.payments.reconciler.harness.bench.LeaseContention;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.ProviderQuota;
import com.payments.reconciler.workflow.Timing;
import java.time.Duration;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code bin/reconciler bench}: performance and cost figures of the local engines, measured in one run. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Measure, in one run on the local engines: the fence's overhead, DynamoDB requests per released hold, "
                + "state transitions and Lambda invocations per 1,000 candidates (vs one Map iteration per authorisation), "
                + "wall time at 10,000 and 100,000 candidates (1,000,000 with --large), the page handler's heap, and the "
                + "lease item's contention with K fence replicas, and capacity: a night at the provider's quota "
                + "(utilisation, 429 share, requests over the concurrency limit) and the recovery of a backlog "
                + BenchCommand.BACKLOG_FACTOR + "× its budget; ingestion: events per second through the local queue and "
                + "IngestEvents, DynamoDB and SQS requests per event. Prints one table (or --json).",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every measured run completed as expected", "1:a measured run did not complete (failed, or decided or delivered fewer than expected)",
                "2:bad usage or input: a flag's value (nothing was started)"})
final class BenchCommand implements Callable<Integer> {

    static final int MIN_SIZE = 100;
    static final int MAX_SIZE = 1_000_000;
    static final int LARGE = 1_000_000;
    static final int MIN_INGEST = 10;
    static final int MAX_INGEST = 1_000_000;
    /** The backlog recovery's window holds this many times what fits in its budget. */
    static final int BACKLOG_FACTOR = 3;

    @Spec
    CommandSpec spec;

    @Option(names = "--sizes", paramLabel = "N[,N...]", split = ",", defaultValue = "10000,100000",
            description = "Due candidates per measured window, each " + MIN_SIZE + " to " + MAX_SIZE + " (default: ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Option(names = "--large", description = "Also run a window of 1,000,000 candidates (hours on the local engines).")
    boolean large;

    @Option(names = "--settled-fraction", paramLabel = "F", defaultValue = "0.1",
            description = "Fraction of candidates that have a settlement, 0 to 0.9 (default: ${DEFAULT-VALUE}).")
    double settledFraction;

    @Option(names = "--fence-repetitions", paramLabel = "R", defaultValue = "8",
            description = "Interleaved fenced/unfenced repetitions, 2 to 100 (default: ${DEFAULT-VALUE}).")
    int fenceRepetitions;

    @Option(names = "--fence-releases", paramLabel = "N", defaultValue = "250",
            description = "Releases per variant per repetition, 10 to 5000 (default: ${DEFAULT-VALUE}).")
    int fenceReleases;

    @Option(names = "--writers", paramLabel = "W", defaultValue = "8",
            description = "Concurrent shard writers in the lease-contention simulation, 1 to 64 (default: ${DEFAULT-VALUE}).")
    int writers;

    @Option(names = "--replicas", paramLabel = "K[,K...]", split = ",", defaultValue = "1,2,4,8",
            description = "Fence replica counts to simulate, each 1 to 64 (default: ${DEFAULT-VALUE}).")
    List<Integer> replicas;

    @Option(names = "--writer-transactions", paramLabel = "N", defaultValue = "60",
            description = "Fenced releases per writer per replica count, 10 to 10000 (default: ${DEFAULT-VALUE}).")
    int writerTransactions;

    @Option(names = "--hold-fraction", paramLabel = "H", defaultValue = "0.1",
            description = "Conflict model: fraction of a writer's time its transaction holds the fence item, 0 to 0.9 (default: ${DEFAULT-VALUE}).")
    double holdFraction;

    @Option(names = "--provider-quota", paramLabel = "N", defaultValue = "40",
            description = "Capacity: the provider's requests per second, which the simulated provider enforces and the night is "
                    + "configured with, 4 to 1000 (default: ${DEFAULT-VALUE}, the stack's default quota; docs/scale.md compares it with what these engines deliver unconstrained).")
    double providerQuota;

    @Option(names = "--provider-concurrency", paramLabel = "M", defaultValue = "32",
            description = "Capacity: the provider's concurrent requests, 4 to 1000 (default: ${DEFAULT-VALUE}).")
    int providerConcurrency;

    @Option(names = "--capacity-seconds", paramLabel = "S", defaultValue = "60",
            description = "Capacity: how long the measured night delivers at the quota (its size follows), 2 to 3600 (default: ${DEFAULT-VALUE}).")
    int capacitySeconds;

    @Option(names = "--backlog-budget", paramLabel = "S", defaultValue = "20",
            description = "Capacity: each backlog run's delivery budget in seconds (the deployed one is hours), 2 to 600; "
                    + "the backlog is " + BACKLOG_FACTOR + "× what fits in it (default: ${DEFAULT-VALUE}).")
    int backlogBudget;

    @Option(names = "--ingest-events", paramLabel = "N", defaultValue = "5000",
            description = "Ingestion: about how many events (authorisations, ends, settlements, some published twice) go through "
                    + "the local queue and IngestEvents, " + MIN_INGEST + " to " + MAX_INGEST + " (default: ${DEFAULT-VALUE}).")
    int ingestEvents;

    @Mixin
    BuildOutput buildOutput;

    @Option(names = "--provider", paramLabel = "ADAPTER", description = "The provider adapter the measured windows talk through: "
            + "generic-http (the default) or stripe; each window reports the provider requests per released hold.")
    String provider;

    @Option(names = "--seed", paramLabel = "SEED", defaultValue = "42", description = "Seed of the data and the conflict model (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--nights", paramLabel = "N", arity = "0..1", fallbackValue = "10", description = "History instead of the "
            + "one-window figures: N consecutive nights (2 to 60; 10 when given without a value) on the same tables at a constant "
            + "daily volume (--nights-authorisations a day), each night's DynamoDB requests, request units and wall time, and "
            + "history.lastToSecondNight: the last night's requests over the second's (goal <= 1.05).")
    Integer nights;

    @Option(names = "--nights-authorisations", paramLabel = "N", defaultValue = "300", description = "With --nights: the platform's "
            + "new authorisations a day, 10 to 100000 (default: ${DEFAULT-VALUE}).")
    int nightsAuthorisations;

    @Option(names = "--json", description = "Print exactly the report object on stdout; progress goes to stderr.")
    boolean json;

    @Option(names = "--work-dir", paramLabel = "DIR", defaultValue = "target/bench", description = "Engine logs (default: ${DEFAULT-VALUE}).")
    Path workDir;

    @Override
    public Integer call() throws Exception {
        return HostedOutput.divert(workDir, buildOutput.verbose, this::runCommand);
    }

    private Integer runCommand() throws Exception {
        if (nights != null) {
            return history();
        }
        Benchmark.Settings settings = settings();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter console = json ? spec.commandLine().getErr() : out;
        BenchReport report = new Benchmark(settings, line -> {
            console.println(line);
            console.flush();
        }, Clock.systemUTC()).run();
        if (json) {
            out.println(Json.mapper().writeValueAsString(report));
        } else {
            new BenchTable(out).print(report);
        }
        out.flush();
        // Targets missed are findings, not failures; a window whose execution did not complete is a failed run.
        return report.scaling().runs().stream().allMatch(BenchReport.Run::complete)
                && "SUCCEEDED".equals(report.capacity().night().status())
                && report.ingestion().rejected() == 0 && report.ingestion().deadLettered() == 0 ? ExitCodes.OK : ExitCodes.RUN_FAILED;
    }

    /** {@code bench --nights N}: the multi-night series at a constant daily volume, and how its last night compares with its second. */
    private int history() throws Exception {
        requireRange("--nights", nights, 2, 60, "a whole number");
        requireRange("--nights-authorisations", nightsAuthorisations, 10, 100_000, "a whole number");
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter console = json ? spec.commandLine().getErr() : out;
        com.payments.reconciler.window.WindowConfig config = com.payments.reconciler.window.WindowConfig.defaults();
        java.time.Instant now = Clock.systemUTC().instant();
        com.payments.reconciler.window.WindowId last = config.latestStartedWindow(now);
        var report = new com.payments.reconciler.harness.nights.MultiNightRun(new com.payments.reconciler.harness.nights.MultiNightRun.Options(
                new com.payments.reconciler.window.WindowId(last.date().minusDays(nights - 1)), nights, config, nightsAuthorisations, seed,
                java.util.Optional.empty(), workDir.resolve("nights")), line -> {
            console.println(line);
            console.flush();
        }, Clock.systemUTC()).run();
        if (json) {
            out.println(Json.mapper().writeValueAsString(report));
        } else {
            var h = report.history();
            out.println();
            out.printf("%d nights, %,d new authorisations a day, engine %s (the scheduled run of each night; night %d also had an operator's rerun)%n",
                    nights, nightsAuthorisations, report.engine(), report.operatorRerunNight());
            out.println("| night | window | candidates read | DynamoDB requests | WRU | RRU | wall s |");
            out.println("|---:|---|---:|---:|---:|---:|---:|");
            for (int i = 0; i < report.nights().size(); i++) {
                out.printf("| %d | %s | %,d | %,d | %,d | %,.1f | %.1f |%n", i + 1, report.nights().get(i).window(), h.candidatesRead().get(i),
                        h.dynamodbRequests().get(i), h.writeRequestUnits().get(i), h.readRequestUnits().get(i), h.wallSeconds().get(i));
            }
            out.println("history.lastToSecondNight (DynamoDB requests): " + h.lastToSecondNight() + " (goal <= 1.05); candidates read: "
                    + h.candidatesLastToSecondNight());
            out.println("invariants across the nights: " + report.invariants());
        }
        out.flush();
        return report.succeeded() ? ExitCodes.OK : ExitCodes.RUN_FAILED;
    }

    /** Every flag checked before anything starts: a bad value is exit 2 naming the flag and its accepted form. */
    Benchmark.Settings settings() {
        TreeSet<Integer> windows = new TreeSet<>();
        for (Integer size : sizes) {
            requireRange("--sizes", size, MIN_SIZE, MAX_SIZE, "a list of whole numbers");
            windows.add(size);
        }
        if (large) {
            windows.add(LARGE);
        }
        requireRange("--ingest-events", ingestEvents, MIN_INGEST, MAX_INGEST, "a whole number");
        requireRange("--fence-repetitions", fenceRepetitions, 2, 100, "a whole number");
        requireRange("--fence-releases", fenceReleases, 10, 5000, "a whole number");
        requireRange("--writers", writers, 1, 64, "a whole number");
        requireRange("--writer-transactions", writerTransactions, 10, 10_000, "a whole number");
        if (replicas.isEmpty()) {
            throw new IllegalArgumentException("--replicas must list at least one count from 1 to 64");
        }
        for (Integer k : replicas) {
            requireRange("--replicas", k, 1, 64, "a list of whole numbers");
        }
        requireFraction("--settled-fraction", settledFraction, 0.9);
        requireFraction("--hold-fraction", holdFraction, 0.9);
        if (!(providerQuota >= Timing.DELIVERY_MAP_CONCURRENCY && providerQuota <= 1000)) {
            throw new IllegalArgumentException("--provider-quota must be a number of requests per second from "
                    + Timing.DELIVERY_MAP_CONCURRENCY + " to 1000, was " + providerQuota);
        }
        requireRange("--provider-concurrency", providerConcurrency, Timing.DELIVERY_MAP_CONCURRENCY, 1000, "a whole number");
        requireRange("--capacity-seconds", capacitySeconds, 2, 3600, "a whole number of seconds");
        requireRange("--backlog-budget", backlogBudget, 2, 600, "a whole number of seconds");
        Capacity.Settings capacity = new Capacity.Settings(new ProviderQuota(providerQuota, providerConcurrency),
                Duration.ofSeconds(capacitySeconds), Duration.ofSeconds(backlogBudget), BACKLOG_FACTOR, settledFraction, seed,
                workDir.resolve("capacity"));
        return new Benchmark.Settings(new ArrayList<>(windows), settledFraction, ingestEvents,
                new FenceOverhead.Settings(fenceRepetitions, fenceReleases, seed),
                new LeaseContention.Settings(writers, List.copyOf(new TreeSet<>(replicas)), writerTransactions, holdFraction, seed),
                capacity, seed, workDir, LocalCommand.adapter(provider, java.util.Optional.empty()));
    }

    private static void requireRange(String flag, Integer value, int min, int max, String form) {
        if (value == null || value < min || value > max) {
            throw new IllegalArgumentException(flag + " must be " + form + " from " + min + " to " + max + ", was " + value);
        }
    }

    private static void requireFraction(String flag, double value, double max) {
        if (!(value >= 0 && value <= max)) {
            throw new IllegalArgumentException(flag + " must be a number from 0 to " + max + ", was " + value);
        }
    }
}
