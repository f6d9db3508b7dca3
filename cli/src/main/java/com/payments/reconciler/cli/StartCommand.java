package com.payments.reconciler.cli;

import com.payments.reconciler.window.ExecutionName;
import com.payments.reconciler.window.StartResult;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.window.WindowStarter;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code start --window W}: what the schedule does, by hand (same name, same input). */
@Command(name = "start", mixinStandardHelpOptions = true,
        description = "Start a window's scheduled execution (reconcile-W) with the input the schedule would use; a window that already ran says so.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:started, or it already exists (the duplicate start is suppressed, as the schedule's would be)",
                "2:bad usage or input: a flag's value, a window not yet started or beyond the deployed horizon, a missing stack (nothing started)",
                "3:AWS error: no credentials, permissions, throttling, endpoint"})
final class StartCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    WindowOption window;

    @Mixin
    AwsOptions aws;

    @Mixin
    Verbosity verbosity;

    @Override
    public Integer call() {
        WindowId id = window.id();
        // The deployed settings, dry-run included: the same input the schedule would start.
        WindowConfig config = aws.deployment().window();
        WindowOptions.requireStartable(config, id, Clock.systemUTC().instant());
        PrintWriter out = spec.commandLine().getOut();
        WindowStarter starter = aws.windowStarter();
        StartResult result = starter.start(ExecutionName.scheduled(id), config.inputFor(id));
        print(out, result, aws);
        return ExitCodes.OK;
    }

    static void print(PrintWriter out, StartResult result, AwsOptions aws) {
        if (result.started()) {
            out.println("started " + result.executionName());
        } else {
            out.println(result.executionName() + " already exists (" + result.existingStatus() + "): duplicate start suppressed"
                    + (result.differingFields().isEmpty() ? "" : "; its input differs in " + result.differingFields()
                    + " — use `rerun` to run the window with the current configuration"));
        }
        out.println("  " + aws.consoleUrl(result.executionArn()));
    }
}
