package com.payments.reconciler.harness;

import com.payments.reconciler.delivery.ProviderAdapters;

import com.payments.reconciler.cli.ExitCodes;

import com.payments.reconciler.harness.ingest.EventOutcomes;
import com.payments.reconciler.harness.ingest.EventsFile;
import com.payments.reconciler.harness.local.LocalPipeline;
import com.payments.reconciler.harness.local.LocalRun;
import com.payments.reconciler.harness.local.SyntheticData;
import com.payments.reconciler.harness.report.NightPhases;
import com.payments.reconciler.harness.report.RunReport;
import com.payments.reconciler.harness.report.WouldRelease;
import com.payments.reconciler.local.provider.ProviderFaults;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.ProviderKeyRetention;
import com.payments.reconciler.workflow.ProviderQuota;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code bin/reconciler local}: the main job on embedded defaults (docs/design.md §12). */
@Command(name = "local", mixinStandardHelpOptions = true,
        description = "Run one nightly window end to end on the local engines (moto's DynamoDB and Step Functions, "
                + "each function of the synthesised stack in Lambda sandboxes of its own, a simulated provider).",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:the night SUCCEEDED with I1-I5 true", "1:the night failed, was superseded or broke an invariant",
                "2:bad usage or input: a flag's value, a window not yet started, an unreadable or malformed --events file, "
                        + "an unwritable --dump-state (nothing was started or written)"})
final class LocalCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--window", paramLabel = "YYYY-MM-DD", description = "The window: the date of the night to run, YYYY-MM-DD "
            + "(default: the latest whose window start has passed, in the schedule zone); with --events, the night that decides on them.")
    String window;

    @Option(names = EventsFile.FLAG, paramLabel = "FILE", description = "Your own events instead of synthetic data: JSON lines, one event "
            + "of docs/integration.md per line, published through the same queue and IngestEvents; the night decides on exactly these. "
            + "With --dump-state, DIR/" + EventOutcomes.FILE + " gives each event's outcome (accepted, duplicate, refused and why; never a refused event's body).")
    Path events;

    @Option(names = "--authorisations", paramLabel = "N", defaultValue = "10000", description = "Synthetic authorisations, 0 to 1000000 (default: ${DEFAULT-VALUE}; not with --events).")
    int authorisations;

    @Option(names = "--settled-fraction", paramLabel = "F", defaultValue = "0.1",
            description = "Fraction of due authorisations that have a settlement (default: ${DEFAULT-VALUE}).")
    double settledFraction;

    @Option(names = "--seed", paramLabel = "SEED", defaultValue = "42", description = "Seed of the synthetic data and faults (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--json", description = "Print exactly the report object on stdout; everything else goes to stderr.")
    boolean json;

    @Option(names = "--dump-state", paramLabel = "DIR", description = "Write tables.jsonl and provider-effects.jsonl into DIR (created if "
            + "missing; checked before any work); with --events also " + EventOutcomes.FILE + ", with --dry-run " + WouldRelease.FILE + ".")
    Path dumpState;

    @Option(names = "--faults", paramLabel = "SPEC", description = "Injected faults, e.g. ddb-conflict=0.05,ddb-lost-response=0.02,provider-drop=0.1,provider-5xx=0.05")
    String faults;

    @Option(names = "--dry-run", description = "Decide and change no business data; the report counts what would be released "
            + "(counts.wouldRelease) and --dump-state lists it in DIR/" + WouldRelease.FILE + " (id, authorisedAt, amount, currency).")
    boolean dryRun;

    @Option(names = "--engine", paramLabel = "ENGINE", description = "lambda-sandboxes: each function of the synthesised stack "
            + "in JVMs of its own, started as Lambda starts it (the default); in-process: the handler classes in this JVM "
            + "(the default for --scenario failover and --faults ddb-*, which act inside the handlers' clients).")
    String engine;

    @Option(names = "--scenario", paramLabel = "NAME", description = "failover, duplicate-start, provider-lost-response, ended-after-decision (voids, expiries and "
            + "captures published between the decision and delivery: none may be released) or settlement-feed-outage (the platform's "
            + "settlement publisher stopped a day before the window: the night releases nothing and fails FeedNotComplete, exit 1) or "
            + "dead-lettered-settlement (one due authorisation's settlement is refused into the refused-events queue: no release "
            + "for it, heldForFeed at least 1; the night's other due authorisations are released). "
            + "With --nights N > 1: provider-lost-response (answers lost on night 1, parked, requeued by an operator before the "
            + "first night the provider has forgotten their keys (--provider-key-retention), each of which must end DELIVERED with its "
            + "one release) or, with N at least 4, " + PARTIAL_LOSS + " (half the settlements of the last night's due authorisations "
            + "never published: the night ends ReleaseSurge, nothing is delivered until the operator approves, then a rerun delivers) "
            + "or settlement-feed-outage (night 1 ends FeedNotComplete having released nothing; the publisher resumes, and night 2 "
            + "releases what is due, none whose settlement the platform published; exit 0 when that holds).")
    String scenario;

    /**
     * The quota a local night runs at unless --provider-quota says otherwise. The simulated provider is not a real one,
     * and at the stack's default of 40 requests/s delivery alone takes minutes; this is 15 requests/s for each of the 4
     * shards' calls, below the 15.5-16.4 a call delivered in the steady part of a quiet night at 72. The calls reach about
     * 0.97 of it in quiet runs (docs/decisions.md, "The local night runs at a quota of its own"). The summary names the quota the night
     * ran at and the utilisation.
     */
    static final String LOCAL_PROVIDER_QUOTA_TEXT = "60";
    static final double LOCAL_PROVIDER_QUOTA = Double.parseDouble(LOCAL_PROVIDER_QUOTA_TEXT);

    @Option(names = "--provider-quota", paramLabel = "N", description = "The simulated provider enforces N requests per second "
            + "(429 with Retry-After beyond it) and the night is configured with that quota (default: ${DEFAULT-VALUE}, a local "
            + "quota the engines keep to; 40 is the stack's default, a production-paced night).", defaultValue = LOCAL_PROVIDER_QUOTA_TEXT)
    Double providerQuota;

    @Option(names = "--provider-concurrency", paramLabel = "M", description = "The concurrent requests the simulated "
            + "provider allows, beside its quota (default: the stack's, 32).")
    Integer providerConcurrency;

    @Option(names = "--nights", paramLabel = "N", defaultValue = "1", description = "Consecutive nights on the same tables, 1 to 366 "
            + "(default: ${DEFAULT-VALUE}). With N > 1: the platform publishes --authorisations new authorisations a day with settlements, "
            + "voids and expiries as they come, the harness moves one clock a day at a time, the functions run in-process, --window names "
            + "the first night (default: the series ends with the latest started window), the report is {nights, totals, invariants} and "
            + "--dump-state adds " + com.payments.reconciler.harness.nights.MultiNightRun.PLATFORM_EVENTS + ".")
    int nights;

    @Option(names = "--provider-key-retention", paramLabel = "DURATION", description = "How long the simulated provider keeps "
            + "idempotency keys, an ISO-8601 duration such as PT24H, on the run's clock; the night is configured with it "
            + "(default: the stack's, PT24H).")
    String providerKeyRetention;

    @Option(names = "--provider", paramLabel = "ADAPTER", description = "The provider adapter DeliverCommands talks through, "
            + "as the stack context provider sets it: generic-http (the default), stripe (the simulated provider speaks both; "
            + "Stripe's /v1/payment_intents format with its idempotency semantics) or adyen (the Adyen fake; after the night the "
            + "harness delivers its CANCELLATION webhooks to the receiver and drains ingestion before the audit; in-process only).")
    String provider;

    @Option(names = "--work-dir", paramLabel = "DIR", defaultValue = "target/local-run", description = "Engine logs (default: ${DEFAULT-VALUE}).")
    Path workDir;

    @Mixin
    BuildOutput buildOutput;

    @Mixin
    LocalDeploymentOptions windowOptions;

    @Override
    public Integer call() throws Exception {
        return HostedOutput.divert(workDir, buildOutput.verbose, this::runCommand);
    }

    private Integer runCommand() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter console = json ? err : out;
        WindowConfig config = windowOptions.config(dryRun);
        Instant now = Clock.systemUTC().instant();
        if (nights < 1 || nights > 366) {
            throw new IllegalArgumentException("--nights: must be an integer from 1 to 366, was " + nights);
        }
        if (nights > 1) {
            return nights(out, console, config, now);
        }
        WindowId windowId = window == null ? config.latestStartedWindow(now) : WindowId.parse(window, "--window");
        LocalDeploymentOptions.requireStartable(config, windowId, now);
        LocalRun.Scenario chosen = scenario(scenario);
        if (authorisations > 1_000_000) {
            throw new IllegalArgumentException("--authorisations: must be an integer from 0 to 1000000, was " + authorisations);
        }
        LocalFaults parsed = LocalFaults.parse(faults, seed);
        Optional<EventsFile> ownEvents = ownEvents();
        ProviderAdapters.Adapter adapter = adapter(provider, keyRetention(providerKeyRetention));
        if (adapter == ProviderAdapters.Adapter.ADYEN) {
            requireAdyenCompatible(chosen, parsed, engine);
        }
        // The Adyen night's receiver and merchant account are not in the default synthesised template: in-process only.
        boolean needsInProcess = chosen == LocalRun.Scenario.FAILOVER || !parsed.dynamo().isEmpty() || adapter == ProviderAdapters.Adapter.ADYEN;
        LocalPipeline.Hosting hosting = switch (engine == null ? (needsInProcess ? "in-process" : "lambda-sandboxes") : engine) {
            case "lambda-sandboxes" -> LocalPipeline.Hosting.sandboxes();
            case "in-process" -> LocalPipeline.Hosting.IN_PROCESS;
            default -> throw new IllegalArgumentException("--engine must be lambda-sandboxes or in-process, was " + engine);
        };
        LocalRun.Options options = new LocalRun.Options(windowId, config,
                new SyntheticData(authorisations, settledFraction, 0.05, seed), chosen, Optional.ofNullable(dumpState),
                workDir, parsed.dynamo(), parsed.provider(), false, hosting, quota(providerQuota, providerConcurrency), ownEvents,
                keyRetention(providerKeyRetention), adapter);
        // Last of the checks, the only one that touches the disk: nothing is created for a command line refused otherwise.
        OutputDirectory.requireWritable(dumpState, "--dump-state");
        LocalRun.Outcome outcome = new LocalRun(options, line -> {
            console.println(line);
            console.flush();
        }, Clock.systemUTC()).run();
        RunReport report = outcome.report();
        if (json) {
            out.println(Json.mapper().writeValueAsString(report));
        } else {
            printSummary(out, report, dryRun);
        }
        out.flush();
        boolean ok = outcome.succeeded();
        return ok ? ExitCodes.OK : ExitCodes.RUN_FAILED;
    }

    static final String PARTIAL_LOSS = "settlement-feed-partial-loss";
    static final String FEED_OUTAGE = "settlement-feed-outage";

    /** {@code --provider}: one of {@link ProviderAdapters#acceptedValues()}, the default when absent. */
    static ProviderAdapters.Adapter adapter(String value, Optional<ProviderKeyRetention> retention) {
        ProviderAdapters.Adapter adapter;
        try {
            adapter = value == null ? ProviderAdapters.DEFAULT : ProviderAdapters.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--provider: " + e.getMessage());
        }
        // As the stack refuses it: a retention past the provider's documented pruning would re-send blindly after it.
        adapter.documentedKeyRetention().ifPresent(documented -> retention.ifPresent(r -> {
            if (r.retention().compareTo(documented) > 0) {
                throw new IllegalArgumentException("--provider-key-retention: must be at most " + documented + " with --provider "
                        + adapter.contextValue() + " (the provider may prune idempotency keys that old), was " + r.retention());
            }
        }));
        return adapter;
    }

    /**
     * What a local Adyen night cannot take: the lost-response scenario and the provider faults act on the simulated provider,
     * which the Adyen adapter does not talk to; the sandboxes run the default template, which has no webhook receiver.
     */
    static void requireAdyenCompatible(LocalRun.Scenario scenario, LocalFaults faults, String engine) {
        if (scenario == LocalRun.Scenario.PROVIDER_LOST_RESPONSE) {
            throw new IllegalArgumentException("--scenario: provider-lost-response acts on the simulated provider; with --provider adyen "
                    + "accepted: failover, duplicate-start, ended-after-decision, settlement-feed-outage, dead-lettered-settlement");
        }
        ProviderFaults f = faults.provider();
        if (f.performThenDrop() > 0 || f.error5xx() > 0 || f.slow() > 0 || f.malformed() > 0) {
            throw new IllegalArgumentException("--faults: provider-* faults act on the simulated provider; with --provider adyen only ddb-* are accepted");
        }
        if ("lambda-sandboxes".equals(engine)) {
            throw new IllegalArgumentException("--engine: lambda-sandboxes cannot run --provider adyen (the synthesised template is the "
                    + "default stack's, without the webhook receiver); use in-process (the default with --provider adyen)");
        }
    }

    /** {@code --nights N} with N > 1: the series on one moved clock (MultiNightRun). */
    private int nights(PrintWriter out, PrintWriter console, WindowConfig config, Instant now) throws Exception {
        boolean lostResponses = false;
        var nightScenario = com.payments.reconciler.harness.nights.MultiNightRun.NightScenario.NONE;
        if (PARTIAL_LOSS.equals(scenario)) {
            nightScenario = com.payments.reconciler.harness.nights.MultiNightRun.NightScenario.SETTLEMENT_FEED_PARTIAL_LOSS;
        } else if (FEED_OUTAGE.equals(scenario)) {
            nightScenario = com.payments.reconciler.harness.nights.MultiNightRun.NightScenario.SETTLEMENT_FEED_OUTAGE;
        } else if (scenario != null) {
            lostResponses = scenario(scenario) == LocalRun.Scenario.PROVIDER_LOST_RESPONSE;
            if (!lostResponses) {
                throw new IllegalArgumentException("--scenario: with --nights N > 1 only provider-lost-response, " + PARTIAL_LOSS
                        + " or " + FEED_OUTAGE + " is accepted, was '" + scenario + "'; give --nights 1 for the others");
            }
        }
        for (String single : List.of(EventsFile.FLAG, "--provider", "--faults", "--dry-run", "--provider-quota", "--provider-concurrency",
                "--settled-fraction")) {
            if (spec.commandLine().getParseResult().hasMatchedOption(single)) {
                throw new IllegalArgumentException(single + ": one night only; with --nights N > 1 the platform's feed decides "
                        + "(give --nights 1 or leave " + single + " out)");
            }
        }
        if (engine != null && !"in-process".equals(engine)) {
            throw new IllegalArgumentException("--engine: with --nights N > 1 the functions run in-process (the sandboxes read the "
                    + "machine's clock, which the harness cannot move a day); give --engine in-process or leave it out");
        }
        if (authorisations > 1_000_000) {
            throw new IllegalArgumentException("--authorisations: must be an integer from 0 to 1000000, was " + authorisations);
        }
        WindowId last = config.latestStartedWindow(now);
        WindowId first = window == null ? new WindowId(last.date().minusDays(nights - 1)) : WindowId.parse(window, "--window");
        LocalDeploymentOptions.requireStartable(config, new WindowId(first.date().plusDays(nights - 1)), now);
        OutputDirectory.requireWritable(dumpState, "--dump-state");
        ProviderKeyRetention retention = keyRetention(providerKeyRetention).orElse(ProviderKeyRetention.DEFAULT);
        int perDay = spec.commandLine().getParseResult().hasMatchedOption("--authorisations") ? authorisations : 2_000;
        var report = new com.payments.reconciler.harness.nights.MultiNightRun(new com.payments.reconciler.harness.nights.MultiNightRun.Options(
                first, nights, config, perDay, seed, Optional.ofNullable(dumpState), workDir, lostResponses, retention)
                .withScenario(nightScenario), line -> {
            console.println(line);
            console.flush();
        }, Clock.systemUTC()).run();
        if (json) {
            out.println(Json.mapper().writeValueAsString(report));
        } else {
            out.println();
            out.printf("%d nights from %s, engine %s, operator rerun on night %d%n", nights, first, report.engine(), report.operatorRerunNight());
            out.println("night       status      read  released  delivered  DynamoDB requests  lookups  forgotten keys  invariants");
            for (int i = 0; i < report.nights().size(); i++) {
                RunReport night = report.nights().get(i);
                out.printf("%s  %-9s %6d  %8d  %9d  %17d  %7d  %14d  %s%n", night.window(), night.execution().status(), night.counts().candidatesRead(),
                        night.counts().releaseRequested(), night.counts().delivered(), night.cost().dynamodbRequests(),
                        report.providerKeys().lookups().get(i), report.providerKeys().forgottenKeys().get(i),
                        night.invariantsHold() ? "✓" : "✗ " + night.invariants());
            }
            out.println("the provider (one for all nights, keeping keys " + report.providerKeys().retention() + "): "
                    + report.providerKeys().lookupsTotal() + " status lookups, " + report.providerKeys().forgottenKeysTotal()
                    + " requests under a key it had forgotten");
            if (report.lostResponses() != null) {
                var lost = report.lostResponses();
                out.println("lost responses (night 1): " + lost.operations().size() + " commands, requeued before night "
                        + lost.requeuedBeforeNight() + "; now " + lost.statuses().values() + ", releases performed "
                        + lost.releasesPerformed().values() + (lost.eachReleasedOnce() ? " ✓ each released exactly once and DELIVERED"
                        : " ✗ not each released exactly once and DELIVERED"));
            }
            out.println("history: last night's DynamoDB requests over the second's " + report.history().lastToSecondNight()
                    + ", candidates read " + report.history().candidatesLastToSecondNight());
            out.println("across the nights: " + String.join("  ", report.invariants().entrySet().stream()
                    .map(e -> e.getKey() + " " + (e.getValue() ? "✓" : "✗ VIOLATED")).toList()));
            if (report.surgeHold() != null) {
                var hold = report.surgeHold();
                out.printf("release surge on %s: %s; %d commands, the provider performed %d of them before the approval and %d after "
                                + "(approved by %s); %d settlements were never published%n", hold.window(), String.join(", ", hold.heldBy()),
                        hold.commands(), hold.performedBeforeApproval(), hold.performedAfterApproval(), hold.approvedBy(), hold.settlementsDropped());
            }
        }
        out.flush();
        if (nightScenario == com.payments.reconciler.harness.nights.MultiNightRun.NightScenario.SETTLEMENT_FEED_OUTAGE) {
            console.println("settlement-feed-outage: night 1 ended " + String.join(", ", report.firstNightErrors())
                    + (report.feedOutageRecovered() ? "; after the feed resumed the later nights released what was due, none whose settlement was published"
                    : "; SCENARIO NOT MET (night 1 must end FeedNotComplete, the later nights succeed, every invariant hold)"));
            console.flush();
            return report.feedOutageRecovered() ? ExitCodes.OK : ExitCodes.RUN_FAILED;
        }
        return report.succeeded() ? ExitCodes.OK : ExitCodes.RUN_FAILED;
    }

    /** {@code --events FILE}, read whole; the synthetic data's flags mean nothing beside it. */
    private Optional<EventsFile> ownEvents() {
        if (events == null) {
            return Optional.empty();
        }
        for (String synthetic : List.of("--authorisations", "--settled-fraction")) {
            if (spec.commandLine().getParseResult().hasMatchedOption(synthetic)) {
                throw new IllegalArgumentException(synthetic + ": shapes the synthetic data; with " + EventsFile.FLAG
                        + " the night decides on the file's events only (give one or the other)");
            }
        }
        return Optional.of(EventsFile.read(events));
    }

    /** {@code --provider-quota} and {@code --provider-concurrency}, checked by the quota's own rule (exit 2 on a bad value). */
    static Optional<ProviderQuota> quota(Double requestsPerSecond, Integer concurrency) {
        if (requestsPerSecond == null) {
            if (concurrency != null) {
                throw new IllegalArgumentException("--provider-concurrency needs --provider-quota (the provider's requests per second)");
            }
            return Optional.empty();
        }
        int concurrent = concurrency != null ? concurrency : ProviderQuota.DEFAULT.maxConcurrentRequests();
        try {
            return Optional.of(new ProviderQuota(requestsPerSecond, concurrent));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--provider-quota / --provider-concurrency: " + e.getMessage());
        }
    }

    /** {@code --provider-key-retention}, checked by the retention's own rule (exit 2 on a bad value). */
    static Optional<ProviderKeyRetention> keyRetention(String text) {
        if (text == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(ProviderKeyRetention.parse(text));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--provider-key-retention " + e.getMessage());
        }
    }

    static LocalRun.Scenario scenario(String name) {
        if (name == null) {
            return LocalRun.Scenario.NONE;
        }
        return switch (name) {
            case "failover" -> LocalRun.Scenario.FAILOVER;
            case "duplicate-start" -> LocalRun.Scenario.DUPLICATE_START;
            case "provider-lost-response" -> LocalRun.Scenario.PROVIDER_LOST_RESPONSE;
            case "ended-after-decision" -> LocalRun.Scenario.ENDED_AFTER_DECISION;
            case "settlement-feed-outage" -> LocalRun.Scenario.SETTLEMENT_FEED_OUTAGE;
            case "dead-lettered-settlement" -> LocalRun.Scenario.DEAD_LETTERED_SETTLEMENT;
            case PARTIAL_LOSS -> throw new IllegalArgumentException("--scenario " + PARTIAL_LOSS + " needs a history: give --nights N, "
                    + "at least 4");
            default -> throw new IllegalArgumentException("--scenario must be one of failover, duplicate-start, provider-lost-response, "
                    + "ended-after-decision, settlement-feed-outage, dead-lettered-settlement, or with --nights " + PARTIAL_LOSS + "; was '" + name + "'");
        };
    }

    private static void printSummary(PrintWriter out, RunReport r, boolean dryRun) {
        out.println();
        out.printf("window %s  execution %s  %s  (duplicate starts suppressed: %d)  engine %s  provider %s%n", r.window(), r.execution().name(),
                r.execution().status(), r.execution().duplicateStartsSuppressed(), r.engine(), r.provider().adapter());
        RunReport.Webhooks webhooks = r.provider().webhooks();
        if (webhooks != null) {
            out.printf(java.util.Locale.ROOT, "adyen webhooks: %d rounds, %,d notifications (+%,d duplicates, %d forged), %,d not answered 200, "
                            + "%,d outstanding; %,d provider.outcome events ingested, %.3f DynamoDB writes per event; %,d REJECTED, %,d left ACKNOWLEDGED%n",
                    webhooks.rounds(), webhooks.notifications(), webhooks.duplicates(), webhooks.forged(), webhooks.refusedByReceiver(),
                    webhooks.outstanding(), webhooks.outcomeEvents(), webhooks.writesPerEvent(), webhooks.rejected(), webhooks.acknowledgedLeft());
        }
        for (var earlier : r.executions().subList(0, r.executions().size() - 1)) {
            out.printf("  earlier execution %s  %s%s  decided %,d  fenced refusals %,d%n", earlier.name(), earlier.status(),
                    earlier.error() == null ? "" : " (" + earlier.error() + ")", earlier.candidates(), earlier.fencedRefusals());
        }
        out.println("┌──────────────────────────┬────────────┐");
        row(out, "events published", r.ingestion().published());
        row(out, "events accepted", r.ingestion().accepted());
        row(out, "events duplicate", r.ingestion().duplicates());
        row(out, "events rejected", r.ingestion().rejected());
        row(out, "events dead-lettered", r.ingestion().deadLettered());
        out.println("├──────────────────────────┼────────────┤");
        row(out, "authorisations", r.counts().authorisations());
        row(out, "candidates decided", r.counts().candidates());
        row(out, "releases requested", r.counts().releaseRequested());
        row(out, "skipped: settled", r.counts().skippedSettled());
        row(out, "skipped: changed", r.counts().skippedStale());
        row(out, "held for feed", r.counts().heldForFeed());
        row(out, "fenced refusals", r.counts().fencedRefusals());
        row(out, "delivered", r.counts().delivered());
        row(out, "delivery attempts", r.counts().deliveryAttempts());
        row(out, "left for the next run", r.counts().backlogLeft());
        if (dryRun) {
            row(out, "would release (dry run)", r.counts().wouldRelease());
        }
        row(out, "provider quota (req/s)", r.provider().quota() == null ? 0 : Math.round(r.provider().quota()));
        row(out, "provider 429 answers", r.provider().answers429());
        row(out, "provider quota refusals", r.provider().quotaViolations());
        out.println("├──────────────────────────┼────────────┤");
        row(out, "state transitions", r.cost().stateTransitions());
        row(out, "Lambda invocations", r.cost().lambdaInvocations());
        row(out, "DynamoDB requests", r.cost().dynamodbRequests());
        row(out, "provider calls", r.cost().providerCalls());
        out.println("└──────────────────────────┴────────────┘");
        if (r.provider().quota() != null && r.provider().utilisation() != null) {
            out.printf(java.util.Locale.ROOT, "delivery ran at %.3f of the quota of %s requests/s (releases per second at the provider, first to last)%n",
                    r.provider().utilisation(), r.provider().quota() == Math.rint(r.provider().quota())
                            ? Long.toString(r.provider().quota().longValue()) : r.provider().quota().toString());
        }
        if (r.phases() != null) {
            out.println(phasesLine(r.phases()));
        }
        if (r.counts().backlogLeft() > 0) {
            out.printf("the night could not deliver everything at the provider's quota: %,d commands wait for the next run%n",
                    r.counts().backlogLeft());
        }
        out.println("invariants: " + String.join("  ", r.invariants().entrySet().stream()
                .map(e -> e.getKey() + " " + (e.getValue() ? "✓" : "✗ VIOLATED")).toList()));
    }

    /** "time: start-up 18.2 s, ingestion 61.0 s, night 172.8 s (reconcile 28.9 s, delivery 141.6 s)". */
    static String phasesLine(RunReport.Phases p) {
        StringBuilder line = new StringBuilder(String.format(java.util.Locale.ROOT, "time: start-up %.1f s, ingestion %.1f s",
                p.startUpSeconds(), p.ingestionSeconds()));
        NightPhases night = p.night();
        if (night.nightSeconds() != null) {
            line.append(String.format(java.util.Locale.ROOT, ", night %.1f s", night.nightSeconds()));
            List<String> parts = new ArrayList<>();
            if (night.reconcileSeconds() != null) {
                parts.add(String.format(java.util.Locale.ROOT, "reconcile %.1f s", night.reconcileSeconds()));
            }
            if (night.deliverySeconds() != null) {
                parts.add(String.format(java.util.Locale.ROOT, "delivery %.1f s", night.deliverySeconds()));
            }
            if (!parts.isEmpty()) {
                line.append(" (").append(String.join(", ", parts)).append(')');
            }
        }
        return line.toString();
    }

    private static void row(PrintWriter out, String label, long value) {
        out.printf("│ %-24s │ %,10d │%n", label, value);
    }

    /** The handlers' fault layer and the provider's faults from {@code --faults}. */
    record LocalFaults(List<software.amazon.awssdk.core.interceptor.ExecutionInterceptor> dynamo, ProviderFaults provider) {
        static LocalFaults parse(String spec, long seed) {
            if (spec == null || spec.isBlank()) {
                return new LocalFaults(List.of(), ProviderFaults.NONE);
            }
            return FaultFlags.parse(spec, seed);
        }
    }

}
