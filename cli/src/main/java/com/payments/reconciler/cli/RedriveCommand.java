package com.payments.reconciler.cli;

import com.payments.reconciler.cli.operator.ExecutionFollower;
import com.payments.reconciler.window.ExecutionName;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionDoesNotExistException;
import software.amazon.awssdk.services.sfn.model.ExecutionNotRedrivableException;
import software.amazon.awssdk.services.sfn.model.RedriveExecutionResponse;

/**
 * {@code redrive --execution NAME}: restart a failed, timed-out or aborted execution from the step that
 * did not succeed, with that step's original input (and so the same lease token). Whether it may is what
 * {@code DescribeExecution} says ({@link RedriveDecision}), never a rule of our own; a Superseded or
 * LeaseHeldByAnotherRun run is refused because a redrive would only re-enter that Fail state.
 */
@Command(name = "redrive", mixinStandardHelpOptions = true,
        description = "Redrive a failed, timed-out or aborted execution from the step that failed, when Step Functions says it is REDRIVABLE.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:redriven",
                "1:refused: Step Functions would not redrive it, or it ended Superseded or LeaseHeldByAnotherRun (the message says what to do)",
                "2:bad usage or input: a flag's value, or no execution of that name (status --window lists them)",
                "3:AWS error: no credentials, permissions, throttling, endpoint"})
final class RedriveCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--execution", required = true, paramLabel = "NAME", description = "The execution's name: reconcile-YYYY-MM-DD or reconcile-YYYY-MM-DD-rerun-N, as status lists them.")
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
        DescribeExecutionResponse described;
        try {
            described = sfn.describeExecution(b -> b.executionArn(arn));
        } catch (ExecutionDoesNotExistException e) {
            throw aws.noSuchExecution(name);
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (RedriveDecision.of(name, described, Clock.systemUTC().instant()) instanceof RedriveDecision.Refuse refused) {
            err.println(refused.message());
            return refused.exitCode();
        }
        List<String> restarting = UnsuccessfulStates.of(new ExecutionFollower(sfn).history(arn));
        int attempt = (described.redriveCount() == null ? 0 : described.redriveCount()) + 1;
        RedriveExecutionResponse response;
        try {
            response = sfn.redriveExecution(b -> b.executionArn(arn).clientToken(clientToken(arn, attempt)));
        } catch (ExecutionNotRedrivableException raced) {
            // Its state changed between our look and the call (another operator redrove it first, say).
            err.println("refused: Step Functions would not redrive " + name + ": " + raced.awsErrorDetails().errorMessage()
                    + " — `status --window " + name.window() + "` shows where it is now");
            return ExitCodes.RUN_FAILED;
        }
        out.println("redriven " + name + " (redrive " + attempt + ") at " + response.redriveDate());
        out.println("  it had ended " + described.statusAsString() + (described.error() == null ? "" : " with " + described.error())
                + (described.cause() == null ? "" : ": " + described.cause()));
        out.println("  restarting: " + UnsuccessfulStates.describe(restarting)
                + " — with their original input (the same lease epoch); steps that succeeded are not run again");
        out.println("  " + aws.consoleUrl(arn));
        return ExitCodes.OK;
    }

    /**
     * One token per execution and redrive attempt: an operator who runs the command again, or a second
     * operator racing the first, within Step Functions' 15-minute idempotency window gets the same redrive
     * answered instead of a second attempt. (API limit: 64 printable characters.)
     */
    static String clientToken(String executionArn, int attempt) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(executionArn.getBytes(StandardCharsets.UTF_8));
            return "redrive-" + attempt + "-" + HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
