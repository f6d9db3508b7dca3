package com.payments.reconciler.cli;

import com.payments.reconciler.window.StartResult;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.window.WindowStarter;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code rerun --window W}: a new execution of a window under the next free {@code -rerun-n} name. */
@Command(name = "rerun", mixinStandardHelpOptions = true,
        description = "Run a window again as reconcile-W-rerun-N (the next free N). Refused while an execution of the window runs, unless --force.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:started",
                "1:refused: an execution of the window is running (--force starts anyway)",
                "2:bad usage or input: a flag's value, a window not yet started or beyond the deployed horizon, a missing stack (nothing started)",
                "3:AWS error: no credentials, permissions, throttling, endpoint"})
final class RerunCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    WindowOption window;

    @Option(names = "--dry-run", description = "Decide and report; change nothing.")
    boolean dryRun;

    @Option(names = "--force", description = "Start even though an execution of the window is running (it will be fenced out once its lease expires).")
    boolean force;

    @Mixin
    AwsOptions aws;

    @Mixin
    Verbosity verbosity;

    @Override
    public Integer call() {
        WindowId id = window.id();
        // A dry-run deployment reruns dry; --dry-run makes a live deployment's rerun dry.
        WindowConfig deployed = aws.deployment().window();
        WindowConfig config = deployed.withDryRun(deployed.dryRun() || dryRun);
        WindowOptions.requireStartable(config, id, Clock.systemUTC().instant());
        WindowStarter starter = aws.windowStarter();
        try {
            StartResult result = starter.startRerun(id, config.inputFor(id), force);
            StartCommand.print(spec.commandLine().getOut(), result, aws);
            return ExitCodes.OK;
        } catch (WindowStarter.WindowBusy busy) {
            spec.commandLine().getErr().println("refused: " + busy.getMessage());
            return ExitCodes.RUN_FAILED;
        }
    }
}
