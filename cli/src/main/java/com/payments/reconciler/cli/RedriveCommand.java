package com.payments.reconciler.cli;

import com.payments.reconciler.window.ExecutionName;
import com.payments.reconciler.window.WindowStarter;
import com.payments.reconciler.workflow.EmfMetrics;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.RedriveExecutionResponse;

/**
 * {@code redrive --execution NAME}: resume a FAILED, TIMED_OUT or ABORTED execution from its failed
 * state (same name), within Step Functions' 14 days. A superseded run is not redriven: its lease is
 * gone and another run owns the window; the command says to rerun instead.
 */
@Command(name = "redrive", mixinStandardHelpOptions = true,
        description = "Redrive a FAILED, TIMED_OUT or ABORTED execution from where it failed (within 14 days).")
final class RedriveCommand implements Callable<Integer> {

    static final Duration REDRIVE_WINDOW = Duration.ofDays(14);
    private static final Set<ExecutionStatus> REDRIVABLE = Set.of(ExecutionStatus.FAILED, ExecutionStatus.TIMED_OUT, ExecutionStatus.ABORTED);

    @Spec
    CommandSpec spec;

    @Option(names = "--execution", required = true, paramLabel = "NAME")
    String execution;

    @Mixin
    AwsOptions aws;

    @Override
    public Integer call() {
        ExecutionName name = ExecutionName.require(execution, "--execution");
        SfnClient sfn = aws.sfn();
        String arn = new WindowStarter(sfn, aws.stateMachineArn, new EmfMetrics(Clock.systemUTC(), "cli", line -> { })).executionArn(name);
        DescribeExecutionResponse described = sfn.describeExecution(b -> b.executionArn(arn));
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!REDRIVABLE.contains(described.status())) {
            err.println("refused: " + name + " is " + described.status() + "; only FAILED, TIMED_OUT or ABORTED executions can be redriven");
            return ExitCodes.BAD_INPUT;
        }
        if ("Superseded".equals(described.error())) {
            err.println("refused: " + name + " was superseded by a newer run; its lease epoch is stale. Use `rerun --window "
                    + name.window() + "` if the window still needs work");
            return ExitCodes.BAD_INPUT;
        }
        if (described.stopDate() != null && described.stopDate().plus(REDRIVE_WINDOW).isBefore(Instant.now())) {
            err.println("refused: " + name + " stopped more than 14 days ago; Step Functions can no longer redrive it. Use `rerun`");
            return ExitCodes.BAD_INPUT;
        }
        RedriveExecutionResponse response = sfn.redriveExecution(b -> b.executionArn(arn));
        out.println("redriven " + name + " at " + response.redriveDate());
        out.println("  " + aws.consoleUrl(arn));
        return ExitCodes.OK;
    }
}
