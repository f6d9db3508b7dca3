package com.payments.reconciler.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad usage of the operator's commands: exit 2, an error naming the flag or the rule, nothing on stdout, and not
 * one request sent to AWS (every row points at a recording endpoint, which must see none).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OperatorBadUsageTest {

    private static final String ARN = "arn:aws:states:eu-west-1:123456789012:stateMachine:x";
    private final FakeStepFunctions aws = new FakeStepFunctions();

    @AfterAll
    void stop() {
        aws.close();
    }

    Stream<Arguments> rows() {
        String tomorrow = LocalDate.now(ZoneOffset.UTC).plusDays(1).toString();
        return Stream.of(
                Arguments.of("start --window 2026-12-01", "--state-machine-arn"),
                Arguments.of("start --window 2026-12-01 --state-machine-arn not-an-arn", "--state-machine-arn"),
                Arguments.of("start --window 2026-13-01 --state-machine-arn " + ARN, "--window"),
                Arguments.of("start --window " + tomorrow + " --state-machine-arn " + ARN, "cannot start before its window start"),
                Arguments.of("rerun --window " + tomorrow + " --state-machine-arn " + ARN, "cannot start before its window start"),
                Arguments.of("rerun --state-machine-arn " + ARN, "--window"),
                Arguments.of("status --window yesterday --state-machine-arn " + ARN, "--window"),
                Arguments.of("history --execution nightly-run --state-machine-arn " + ARN, "--execution"),
                Arguments.of("redrive --execution reconcile-2026-12-01; --state-machine-arn " + ARN, "--execution"),
                Arguments.of("commands requeue --operation-id auth-1 --note x --commands-table t", "--operation-id"),
                Arguments.of("commands list --status DELIVERED --commands-table t", "--status"),
                Arguments.of("frobnicate", "frobnicate"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void badUsageIsRefusedNamingTheProblemBeforeAnyRequest(String commandLine, String named) {
        List<String> args = new ArrayList<>(List.of(commandLine.split(" ")));
        if (!args.getFirst().equals("frobnicate")) {
            args.addAll(List.of("--endpoint-url", aws.uri().toString(), "--region", "eu-west-1"));
        }
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int before = aws.allCalls();

        int exit = ReconcilerCli.execute(args.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true));

        assertThat(exit).as(out + "" + err).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(err.toString()).contains(named);
        assertThat(out.toString()).as("nothing reported as done").isEmpty();
        assertThat(aws.allCalls() - before).as("requests sent to AWS").isZero();
    }

    /** The "no request" check can fail: good usage does reach the recording endpoint, and is counted. */
    @Test
    void aCommandThatGetsPastItsChecksIsSeenCallingAws() {
        int before = aws.allCalls();
        int exit = ReconcilerCli.execute(new String[] {"status", "--window", "2026-12-01", "--state-machine-arn", ARN,
                "--endpoint-url", aws.uri().toString()}, new PrintWriter(new StringWriter(), true), new PrintWriter(new StringWriter(), true));

        assertThat(exit).as("the recording endpoint has no answer for it: an AWS error").isEqualTo(ExitCodes.AWS_ERROR);
        assertThat(aws.allCalls() - before).isPositive();
    }
}
