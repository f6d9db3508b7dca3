package com.payments.reconciler.cli;

import com.payments.reconciler.cli.operator.ExecutionFollower;
import com.payments.reconciler.cli.operator.HistoryRenderer;
import com.payments.reconciler.window.ExecutionName;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.ExecutionDoesNotExistException;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;

/** {@code history --execution NAME}: the event history, rendered as {@code local} renders it. */
@Command(name = "history", mixinStandardHelpOptions = true, description = "Print an execution's event history the way the console shows it.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:printed",
                "2:bad usage or input: a flag's value, or no execution of that name (status --window lists them)",
                "3:AWS error: no credentials, permissions, throttling, endpoint"})
final class HistoryCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--execution", required = true, paramLabel = "NAME", description = "The execution's name: reconcile-YYYY-MM-DD (the scheduled run) or reconcile-YYYY-MM-DD-rerun-N, as status lists them.")
    String execution;

    @Mixin
    AwsOptions aws;

    @Mixin
    Verbosity verbosity;

    @Override
    public Integer call() {
        ExecutionName name = ExecutionName.require(execution, "--execution");
        SfnClient sfn = aws.sfn();
        String arn = aws.windowStarter(sfn).executionArn(name);
        List<HistoryEvent> events;
        try {
            events = new ExecutionFollower(sfn).history(arn);
        } catch (ExecutionDoesNotExistException e) {
            throw aws.noSuchExecution(name);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (events.isEmpty()) {
            return ExitCodes.OK;
        }
        HistoryRenderer renderer = new HistoryRenderer(events.getFirst().timestamp());
        events.forEach(e -> renderer.render(e).ifPresent(out::println));
        out.println("  " + aws.consoleUrl(arn));
        return ExitCodes.OK;
    }
}
