package com.payments.reconciler.harness;

import com.payments.reconciler.cli.ExitCodes;

import com.payments.reconciler.harness.chaos.ChaosCampaign;
import com.payments.reconciler.harness.chaos.ChaosReport;
import com.payments.reconciler.harness.chaos.Mutant;
import com.payments.reconciler.local.faults.FaultSpec;
import com.payments.reconciler.workflow.Json;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code bin/reconciler chaos}: the fault campaign; {@code --mutant} runs it with a deliberate defect the checks must catch. */
@Command(name = "chaos", mixinStandardHelpOptions = true,
        description = "Run randomized fault schedules through the full local pipeline and check I1-I5 from the stored state after each.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every schedule ended with I1-I5 true", "1:a violation (what a --mutant must cause) or a schedule that could not be run",
                "2:bad usage or input: a flag's value, an unwritable --dump-state (nothing was started or written)"})
final class ChaosCommand implements Callable<Integer> {

    static final String DEFAULT_FAULTS = "ddb-conflict=0.15,ddb-throttle=0.02,ddb-lost-response=0.02";
    static final int MAX_SCHEDULES = 100_000;
    /** The provider's faults on every night of {@code chaos --nights}. */
    static final String NIGHTS_PROVIDER_FAULTS = "provider-drop=0.05,provider-5xx=0.05";

    @Spec
    CommandSpec spec;

    @Option(names = "--schedules", paramLabel = "N", defaultValue = "50", description = "Fault schedules to run, 1 to " + MAX_SCHEDULES + " (default: ${DEFAULT-VALUE}).")
    int schedules;

    @Mixin
    BuildOutput buildOutput;

    @Option(names = "--seed", paramLabel = "SEED", defaultValue = "1", description = "Campaign seed, a 64-bit integer (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--replay", paramLabel = "SCHEDULE_SEED",
            description = "Run only the schedule with this seed (as a failure reports it), instead of a campaign.")
    Long replay;

    @Option(names = "--faults", paramLabel = "SPEC", defaultValue = DEFAULT_FAULTS,
            description = "DynamoDB fault rates while a schedule has them on; ddb-* keys only, provider faults are part of each schedule; ddb-item-conflict (a write refused while a transaction in flight names its item) is 0 unless given (default: ${DEFAULT-VALUE}).")
    String faults;

    @Option(names = "--unfenced", description = "Negative control: decisions without the lease check (the same as --mutant no-lease-check). Must report violations.")
    boolean unfenced;

    @Option(names = "--mutant", paramLabel = "NAME",
            description = "Run the workers with this deliberate defect (in the harness only; --list-mutants names them). Must report the invariant it breaks: exit 1.")
    String mutantName;

    @Option(names = "--list-mutants", description = "Print each mutant's name, its defect and the invariant it must break, then exit.")
    boolean listMutants;

    @Option(names = "--dump-state", paramLabel = "DIR",
            description = "Write each schedule's final tables and provider effects to DIR/schedule-<n>-<seed>/ (as local --dump-state does).")
    Path dumpState;

    @Option(names = "--json", description = "Print exactly the campaign report on stdout; progress goes to stderr.")
    boolean json;

    @Option(names = "--nights", paramLabel = "N", description = "Instead of schedules: N consecutive nights (2 to 60) on the same "
            + "tables with the --faults DynamoDB rates and provider faults (" + NIGHTS_PROVIDER_FAULTS + ") on every night, so a fault "
            + "in night k is judged by night k+1 (a night that failed, then the next night's run); the report is local --nights'.")
    Integer nights;

    @Option(names = "--nights-authorisations", paramLabel = "N", defaultValue = "300", description = "With --nights: the platform's "
            + "new authorisations a day, 10 to 100000 (default: ${DEFAULT-VALUE}).")
    int nightsAuthorisations;

    @Option(names = "--provider-key-retention", paramLabel = "DURATION", description = "How long the simulated provider keeps "
            + "idempotency keys, an ISO-8601 duration such as PT24H, on the campaign's clock; the nights are configured with it "
            + "(default: the stack's, PT24H).")
    String providerKeyRetention;

    @Option(names = "--provider", paramLabel = "ADAPTER", description = "The provider adapter the schedules' nights talk through: "
            + "generic-http (the default), stripe (the simulated provider speaks both) or adyen (the Adyen fake, then its CANCELLATION "
            + "webhooks through the receiver with the schedule's webhook faults).")
    String provider;

    @Option(names = "--work-dir", paramLabel = "DIR", defaultValue = "target/chaos", description = "Engine logs (default: ${DEFAULT-VALUE}).")
    Path workDir;

    /** {@code chaos --nights N}: the multi-night series with faults on every night, judged night after night. */
    private int nights(PrintWriter out, Mutant mutant) throws Exception {
        if (mutant != null || replay != null || provider != null) {
            throw new IllegalArgumentException((mutant != null ? "--mutant" : replay != null ? "--replay" : "--provider")
                    + ": schedules only; not with --nights");
        }
        if (nights < 2 || nights > 60) {
            throw new IllegalArgumentException("--nights: must be an integer from 2 to 60, was " + nights);
        }
        if (nightsAuthorisations < 10 || nightsAuthorisations > 100_000) {
            throw new IllegalArgumentException("--nights-authorisations: must be an integer from 10 to 100000, was " + nightsAuthorisations);
        }
        dynamoRates(faults);
        LocalCommand.LocalFaults parsed = FaultFlags.parse(faults + "," + NIGHTS_PROVIDER_FAULTS, seed);
        OutputDirectory.requireWritable(dumpState, "--dump-state");
        PrintWriter console = json ? spec.commandLine().getErr() : out;
        com.payments.reconciler.window.WindowConfig config = com.payments.reconciler.window.WindowConfig.defaults();
        com.payments.reconciler.window.WindowId last = config.latestStartedWindow(java.time.Clock.systemUTC().instant());
        var report = new com.payments.reconciler.harness.nights.MultiNightRun(new com.payments.reconciler.harness.nights.MultiNightRun.Options(
                new com.payments.reconciler.window.WindowId(last.date().minusDays(nights - 1)), nights, config, nightsAuthorisations, seed,
                java.util.Optional.ofNullable(dumpState), workDir.resolve("nights"), parsed.dynamo(), parsed.provider()), line -> {
            console.println(line);
            console.flush();
        }, java.time.Clock.systemUTC()).run();
        if (json) {
            out.println(Json.mapper().writeValueAsString(report));
        } else {
            out.println();
            out.printf("%d nights with faults %s,%s%n", nights, faults, NIGHTS_PROVIDER_FAULTS);
            report.nights().forEach(n -> out.printf("%s  %-10s read %,6d  released %,6d  delivered %,6d  left %,5d  invariants %s%n", n.window(),
                    n.execution().status(), n.counts().candidatesRead(), n.counts().releaseRequested(), n.counts().delivered(),
                    n.counts().backlogLeft(), n.invariants()));
            out.println("across the nights: " + report.invariants() + (report.recovered() ? "" : "  NOT RECOVERED"));
        }
        out.flush();
        return report.recovered() ? ExitCodes.OK : ExitCodes.RUN_FAILED;
    }

    @Override
    public Integer call() throws Exception {
        return HostedOutput.divert(workDir, buildOutput.verbose, this::runCommand);
    }

    private Integer runCommand() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (listMutants) {
            for (Mutant m : Mutant.all()) {
                out.printf("%-32s %-3s %s%n", m.cliName(), m.invariant(), m.description());
            }
            out.flush();
            return ExitCodes.OK;
        }
        if (unfenced && mutantName != null) {
            throw new IllegalArgumentException("--unfenced is the no-lease-check mutant; give it or --mutant, not both");
        }
        Mutant mutant = unfenced ? Mutant.NO_LEASE_CHECK : mutantName == null ? null : Mutant.fromCliName(mutantName);
        if (nights != null) {
            return nights(out, mutant);
        }
        if (schedules < 1 || schedules > MAX_SCHEDULES) {
            throw new IllegalArgumentException("--schedules: must be an integer from 1 to " + MAX_SCHEDULES + ", was " + schedules);
        }
        FaultSpec rates = dynamoRates(faults);
        com.payments.reconciler.workflow.ProviderKeyRetention retention = LocalCommand.keyRetention(providerKeyRetention)
                .orElse(com.payments.reconciler.workflow.ProviderKeyRetention.DEFAULT);
        com.payments.reconciler.delivery.ProviderAdapters.Adapter adapter = LocalCommand.adapter(provider, java.util.Optional.of(retention));
        if (mutant != null && !mutant.runsWith(adapter)) {
            throw new IllegalArgumentException("--mutant: " + mutant.cliName() + (mutant.webhookSide()
                    ? " is in the Adyen webhook receiver; give it with --provider adyen"
                    : " is a proxy in front of the simulated provider, which an Adyen night does not talk to; give it with --provider generic-http or stripe")
                    + ", was --provider " + adapter.contextValue());
        }
        OutputDirectory.requireWritable(dumpState, "--dump-state");
        PrintWriter console = json ? spec.commandLine().getErr() : out;
        ChaosCampaign campaign = new ChaosCampaign(workDir, mutant, rates, dumpState, line -> {
            console.println(line);
            console.flush();
        }, retention, adapter);
        ChaosReport report = replay != null ? campaign.replay(replay) : campaign.run(schedules, seed);
        if (json) {
            out.println(Json.mapper().writeValueAsString(report));
        } else {
            print(out, report, mutant, faults);
        }
        out.flush();
        return report.clean() ? ExitCodes.OK : ExitCodes.RUN_FAILED;
    }

    /** {@code --faults} for a campaign: the DynamoDB rates; provider faults are drawn per schedule, so their keys are refused. */
    static FaultSpec dynamoRates(String text) {
        FaultSpec spec = FaultSpec.parse(text);
        if (spec.providerDrop() > 0 || spec.provider5xx() > 0 || spec.providerSlow() > 0) {
            throw new IllegalArgumentException("--faults: chaos draws provider faults (perform-then-drop, 5xx, slow) per schedule from its seed; "
                    + "give only " + FaultSpec.DDB_CONFLICT + ", " + FaultSpec.DDB_THROTTLE + ", " + FaultSpec.DDB_LOST_RESPONSE + " and " + FaultSpec.DDB_ITEM_CONFLICT
                    + ", e.g. " + DEFAULT_FAULTS + "; was '" + text + "'");
        }
        return spec;
    }

    private static void print(PrintWriter out, ChaosReport r, Mutant mutant, String faults) {
        out.println();
        out.printf("%d schedules, %s, seed %d, %.1f s (median schedule %d ms)%n", r.schedules(),
                mutant == null ? "fenced" : "MUTANT " + mutant.cliName() + " (must break " + mutant.invariant() + "; took effect "
                        + r.mutantEffects() + " times)", r.seed(), r.wallTimeMillis() / 1000.0, r.medianScheduleMillis());
        out.println("faults injected:");
        for (Map.Entry<String, Long> e : r.faultsInjected().entrySet()) {
            out.printf("  %-36s %,8d%n", e.getKey(), e.getValue());
        }
        out.printf("executions superseded: %d, operator reruns needed: %d%n", r.executionsSuperseded(), r.rerunsNeeded());
        out.println("violations: " + r.violations() + " in " + r.schedulesWithViolations() + " schedules");
        if (!r.errors().isEmpty()) {
            out.println("schedules that could not be run to a verdict: " + r.errors().size());
            for (ChaosReport.Failure e : r.errors()) {
                out.println("  " + e.schedule());
                e.trace().forEach(t -> out.println("    | " + t));
            }
        }
        for (ChaosReport.Failure f : r.failures()) {
            out.println("  " + f.schedule());
            out.println("  reproduce: bin/reconciler chaos --replay " + f.seed() + (mutant == null ? "" : " --mutant " + mutant.cliName())
                    + (DEFAULT_FAULTS.equals(faults) ? "" : " --faults " + faults));
            f.violations().forEach(v -> out.println("    " + v));
            f.trace().forEach(t -> out.println("    | " + t));
        }
    }
}
