package com.payments.reconciler.cli;

import com.payments.reconciler.window.WindowExecution;
import com.payments.reconciler.window.WindowId;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code status --window W}: every execution of a window, its status and console link. */
@Command(name = "status", mixinStandardHelpOptions = true, description = "List a window's executions (scheduled and reruns) with their status and console URL.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:listed (a window without executions says so)",
                "2:bad usage or input: a flag's value",
                "3:AWS error: no credentials, permissions, throttling, endpoint"})
final class StatusCommand implements Callable<Integer> {

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
        List<WindowExecution> executions = aws.windowStarter().executionsOf(id);
        PrintWriter out = spec.commandLine().getOut();
        if (executions.isEmpty()) {
            out.println("window " + id + " has no executions");
            return ExitCodes.OK;
        }
        for (WindowExecution e : executions) {
            out.printf("%-36s %-10s started %s%s%n  %s%n", e.name(), e.status(), e.startDate(),
                    e.stopDate() == null ? "" : ", stopped " + e.stopDate(), aws.consoleUrl(e.executionArn()));
        }
        return ExitCodes.OK;
    }
}
