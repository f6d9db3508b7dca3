package com.payments.reconciler.cli;

import com.payments.reconciler.cli.chaos.ChaosCampaign;
import com.payments.reconciler.cli.chaos.ChaosReport;
import com.payments.reconciler.local.faults.FaultSpec;
import com.payments.reconciler.workflow.Json;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code bin/reconciler chaos}: the fault campaign; {@code --unfenced} is its negative control. */
@Command(name = "chaos", mixinStandardHelpOptions = true,
        description = "Run randomized fault schedules through the full local pipeline and check I1-I5 from the stored state after each.")
final class ChaosCommand implements Callable<Integer> {

    static final String DEFAULT_FAULTS = "ddb-conflict=0.03,ddb-throttle=0.02,ddb-lost-response=0.02";

    @Spec
    CommandSpec spec;

    @Option(names = "--schedules", paramLabel = "N", defaultValue = "50", description = "Fault schedules to run (default: ${DEFAULT-VALUE}).")
    int schedules;

    @Option(names = "--seed", paramLabel = "SEED", defaultValue = "1", description = "Campaign seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--faults", paramLabel = "SPEC", defaultValue = DEFAULT_FAULTS,
            description = "DynamoDB fault rates while a schedule has them on (default: ${DEFAULT-VALUE}).")
    String faults;

    @Option(names = "--unfenced", description = "Negative control: decisions without the lease check. Must report violations.")
    boolean unfenced;

    @Option(names = "--json", description = "Print exactly the campaign report on stdout.")
    boolean json;

    @Option(names = "--work-dir", paramLabel = "DIR", defaultValue = "target/chaos", description = "Engine logs (default: ${DEFAULT-VALUE}).")
    Path workDir;

    @Override
    public Integer call() throws Exception {
        if (schedules < 1 || schedules > 100_000) {
            throw new IllegalArgumentException("--schedules must be from 1 to 100000, was " + schedules);
        }
        FaultSpec faultSpec = FaultSpec.parse(faults);
        PrintWriter out = spec(true);
        PrintWriter console = json ? spec.commandLine().getErr() : out;
        ChaosReport report = new ChaosCampaign(workDir, !unfenced, FaultFlags.dynamoFaults(faultSpec, seed), line -> {
            console.println(line);
            console.flush();
        }).run(schedules, seed);
        if (json) {
            out.println(Json.mapper().writeValueAsString(report));
        } else {
            print(out, report);
        }
        out.flush();
        return report.totalViolations() == 0 ? ExitCodes.OK : ExitCodes.RUN_FAILED;
    }

    private PrintWriter spec(boolean stdout) {
        return stdout ? spec.commandLine().getOut() : spec.commandLine().getErr();
    }

    private static void print(PrintWriter out, ChaosReport r) {
        out.println();
        out.printf("%d schedules, %s, seed %d%n", r.schedules(), r.fenced() ? "fenced" : "UNFENCED (negative control)", r.seed());
        out.println("faults injected:");
        for (Map.Entry<String, Long> e : r.faultsInjected().entrySet()) {
            out.printf("  %-30s %,8d%n", e.getKey(), e.getValue());
        }
        out.printf("executions superseded: %d, operator reruns needed: %d%n", r.executionsSuperseded(), r.rerunsNeeded());
        out.println("violations: " + r.violations());
        for (ChaosReport.Failure f : r.failures()) {
            out.println("  reproduce with seed " + f.seed() + " (" + f.schedule() + ")");
            f.violations().forEach(v -> out.println("    " + v));
            f.trace().forEach(t -> out.println("    | " + t));
        }
    }
}
