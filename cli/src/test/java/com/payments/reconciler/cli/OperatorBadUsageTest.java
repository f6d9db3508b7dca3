package com.payments.reconciler.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
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
    private final FakeStepFunctions aws = new FakeStepFunctions().stack(ARN);

    @AfterAll
    void stop() {
        aws.close();
    }

    /** A Java exception's name in a message, or a package-qualified class: what a person cannot act on. */
    static final Pattern EXCEPTION_TEXT = Pattern.compile("[A-Z]\\w*(Exception|Error)\\b|\\b(java|javax|picocli|software\\.amazon)\\.[a-z]");
    static final String USAGE = "Usage: ";

    /**
     * @param named what the one error line must name (the flag, or the rule)
     * @param usage whether the usage text follows: only for an unknown flag or a missing argument
     */
    Stream<Arguments> rows() {
        String tomorrow = LocalDate.now(ZoneOffset.UTC).plusDays(1).toString();
        String longAgo = LocalDate.now(ZoneOffset.UTC).minusDays(40).toString();
        String start = "start --window 2026-12-01 --stack-name " + TestStacks.NAME;
        return Stream.of(
                Arguments.of("start --window 2026-12-01 --stack-name not_a_stack", "--stack-name: must be a CloudFormation stack name", false),
                Arguments.of("start --window 2026-13-01 --stack-name " + TestStacks.NAME, "--window", false),
                Arguments.of("start --window " + tomorrow + " --stack-name " + TestStacks.NAME, "cannot start before its window start", false),
                Arguments.of("start --window " + longAgo + " --stack-name " + TestStacks.NAME, "raise the stack's windowHorizonDays", false),
                Arguments.of("rerun --window " + tomorrow + " --stack-name " + TestStacks.NAME, "cannot start before its window start", false),
                Arguments.of("rerun --stack-name " + TestStacks.NAME, "--window", true),
                // The deployment sets these; no command takes them (known bad: each was a flag before).
                Arguments.of(start + " --grace-period PT1H", "--grace-period", true),
                Arguments.of(start + " --shards 1", "--shards", true),
                Arguments.of(start + " --time-zone UTC", "--time-zone", true),
                Arguments.of(start + " --schedule-time 02:00", "--schedule-time", true),
                Arguments.of("rerun --window 2026-12-01 --stack-name " + TestStacks.NAME + " --grace-period PT1H", "--grace-period", true),
                Arguments.of("status --window yesterday --stack-name " + TestStacks.NAME, "--window", false),
                Arguments.of("history --execution nightly-run --stack-name " + TestStacks.NAME, "--execution", false),
                Arguments.of("history --stack-name " + TestStacks.NAME, "--execution", true),
                Arguments.of("redrive --execution reconcile-2026-12-01; --stack-name " + TestStacks.NAME, "--execution", false),
                Arguments.of("commands requeue --operation-id auth-1 --note x --commands-table t", "--operation-id", false),
                Arguments.of("commands list --status DELIVERED --commands-table t", "--status", false),
                Arguments.of("start --window 2026-12-01 --no-such-flag --stack-name " + TestStacks.NAME, "--no-such-flag", true),
                Arguments.of("frobnicate", "frobnicate", true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void badUsageIsRefusedNamingTheProblemBeforeAnyRequest(String commandLine, String named, boolean usage) {
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
        assertThat(problems(err.toString(), usage)).isEmpty();
        assertThat(out.toString()).as("nothing reported as done").isEmpty();
        assertThat(aws.allCalls() - before).as("requests sent to AWS").isZero();
    }

    /** What is wrong with an error output a person reads: exception text, a usage dump after a bad value, more than one line. */
    static List<String> problems(String err, boolean usageExpected) {
        List<String> problems = new ArrayList<>();
        String firstLine = err.lines().findFirst().orElse("");
        if (!firstLine.startsWith("error: ")) {
            problems.add("the first line is not the error: " + firstLine);
        }
        if (EXCEPTION_TEXT.matcher(firstLine).find()) {
            problems.add("exception text in the message: " + firstLine);
        }
        if (usageExpected) {
            if (!err.contains(USAGE)) {
                problems.add("no usage after an unknown flag or a missing argument");
            }
        } else if (err.lines().count() != 1) {
            problems.add("not one line but " + err.lines().count() + (err.contains(USAGE) ? " (the usage text follows)" : ""));
        }
        return problems;
    }

    /**
     * The message check can fail: picocli's own handling of the same bad values (its converters and its default error
     * handler, what the command line did before) names Java exceptions and dumps the whole usage.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"--endpoint-url ::"})
    void picocliDefaultsAreCaughtByTheMessageCheck(String bad) {
        StringWriter err = new StringWriter();
        CommandLine plain = new CommandLine(new ReconcilerCli());
        plain.setErr(new PrintWriter(err, true));
        List<String> args = new ArrayList<>(List.of("start", "--window", "2026-12-01", "--stack-name", TestStacks.NAME));
        args.addAll(List.of(bad.split(" ")));

        int exit = plain.execute(args.toArray(String[]::new));

        assertThat(exit).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(problems("error: " + err, false)).as(err.toString())
                .anyMatch(p -> p.startsWith("exception text")).anyMatch(p -> p.contains("usage text follows"));
    }

    /** The "no request" check can fail: good usage does reach the recording endpoint, and is counted. */
    @Test
    void aCommandThatGetsPastItsChecksIsSeenCallingAws() {
        int before = aws.allCalls();
        int exit = ReconcilerCli.execute(new String[] {"status", "--window", "2026-12-01", "--stack-name", TestStacks.NAME,
                "--endpoint-url", aws.uri().toString()}, new PrintWriter(new StringWriter(), true), new PrintWriter(new StringWriter(), true));

        assertThat(exit).as("the recording endpoint has no answer for it: an AWS error").isEqualTo(ExitCodes.AWS_ERROR);
        assertThat(aws.allCalls() - before).isPositive();
    }
}
