package com.payments.reconciler.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;

/**
 * Messages a person can act on, beyond bad flag values ({@link OperatorBadUsageTest}): an execution that does not
 * exist, missing credentials, the commands' help (each option described, the exit codes listed).
 */
class OperatorMessagesTest {

    private static final String ARN = "arn:aws:states:eu-west-1:123456789012:stateMachine:reconciler";

    record Result(int exit, String out, String err) {
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = ReconcilerCli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Result(exit, out.toString(), err.toString());
    }

    /** Step Functions' answer for an execution ARN it does not know (DescribeExecution, GetExecutionHistory). */
    static final String DOES_NOT_EXIST = "{\"__type\":\"ExecutionDoesNotExist\",\"message\":\"Execution Does Not Exist: '"
            + "arn:aws:states:eu-west-1:123456789012:execution:reconciler:reconcile-2026-12-01'\"}";

    static Stream<String[]> missingExecutions() {
        return Stream.of(new String[] {"history", "GetExecutionHistory"}, new String[] {"redrive", "DescribeExecution"});
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("missingExecutions")
    void anExecutionThatDoesNotExistIsBadInputNamingIt(String command, String operation) {
        try (FakeStepFunctions fake = new FakeStepFunctions().stack(ARN)) {
            fake.answer(operation, 400, DOES_NOT_EXIST);
            Result r = run(command, "--execution", "reconcile-2026-12-01", "--stack-name", TestStacks.NAME, "--endpoint-url", fake.uri().toString());

            assertThat(r.exit()).as(r.err()).isEqualTo(ExitCodes.BAD_INPUT);
            assertThat(r.err()).contains("--execution: reconcile-2026-12-01 does not exist for state machine reconciler in eu-west-1")
                    .contains("status --window 2026-12-01");
            assertThat(OperatorBadUsageTest.problems(r.err(), false)).isEmpty();
            assertThat(r.out()).isEmpty();
            assertThat(fake.calls(operation)).as("asked Step Functions").isEqualTo(1);
            assertThat(fake.calls("RedriveExecution")).as("nothing redriven").isZero();
        }
    }

    /** The mapping can fail: any other AWS refusal of the same call stays an AWS error (exit 3). */
    @Test
    void anotherRefusalOfTheSameCallIsStillAnAwsError() {
        try (FakeStepFunctions fake = new FakeStepFunctions().stack(ARN)) {
            fake.answer("DescribeExecution", 400, "{\"__type\":\"InvalidArn\",\"message\":\"Invalid Arn\"}");
            Result r = run("redrive", "--execution", "reconcile-2026-12-01", "--stack-name", TestStacks.NAME, "--endpoint-url", fake.uri().toString());
            assertThat(r.exit()).isEqualTo(ExitCodes.AWS_ERROR);
            assertThat(r.err()).doesNotContain("does not exist");
        }
    }

    /**
     * No credentials anywhere the default chain looks: one line that says where it looked and names AWS_PROFILE, not
     * the SDK's list of every provider (well over a thousand characters), and no request made.
     */
    @Test
    void missingCredentialsAreOneLineNamingWhereTheChainLooks() {
        Map<String, String> env = System.getenv();
        assumeTrue(List.of("AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
                "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI").stream().noneMatch(env::containsKey), "this machine's environment has AWS credentials");
        Properties saved = (Properties) System.getProperties().clone();
        Path nowhere = Path.of(System.getProperty("reconciler.target"), "no-aws-config");
        System.setProperty("aws.sharedCredentialsFile", nowhere.resolve("credentials").toString());
        System.setProperty("aws.configFile", nowhere.resolve("config").toString());
        System.setProperty("aws.disableEc2Metadata", "true");
        try {
            String sdkMessage;
            try (DefaultCredentialsProvider chain = DefaultCredentialsProvider.builder().build()) {
                chain.resolveCredentials();
                throw new AssertionError("the default chain found credentials");
            } catch (SdkClientException e) {
                sdkMessage = e.getMessage();
            }
            assertThat(sdkMessage).as("what the SDK says on its own").startsWith(MissingCredentials.SDK_NO_CREDENTIALS).hasSizeGreaterThan(500);

            Result r = run("status", "--window", "2026-12-01", "--stack-name", TestStacks.NAME, "--region", "eu-west-1");

            assertThat(r.exit()).as(r.err()).isEqualTo(ExitCodes.AWS_ERROR);
            assertThat(r.err()).isEqualTo("error: " + MissingCredentials.MESSAGE + System.lineSeparator())
                    .contains("AWS_PROFILE").contains("~/.aws/credentials").contains("AWS_ACCESS_KEY_ID").hasSizeLessThan(500);
            assertThat(OperatorBadUsageTest.problems(r.err(), false)).isEmpty();
            assertThat(r.out()).isEmpty();
        } finally {
            System.setProperties(saved);
        }
    }

    /** The operator's output is for a person; the shared code's JSON log lines appear only with --verbose. */
    @Test
    void logLinesOnlyWithVerbose() {
        try (FakeStepFunctions fake = new FakeStepFunctions().stack(ARN)) {
            fake.answer("DescribeExecution", 400, DOES_NOT_EXIST);
            fake.answer("StartExecution", 200, "{\"executionArn\":\"arn:aws:states:eu-west-1:123456789012:execution:reconciler:reconcile-2026-12-01\","
                    + "\"startDate\":1.7649E9}");
            String[] start = {"start", "--window", "2026-12-01", "--stack-name", TestStacks.NAME,
                    "--endpoint-url", fake.uri().toString()};

            String[] quiet = runAsTheProcess(start);
            List<String> verboseArgs = new ArrayList<>(List.of(start));
            verboseArgs.add("--verbose");
            String[] verbose = runAsTheProcess(verboseArgs.toArray(String[]::new));

            assertThat(quiet[0]).startsWith("started reconcile-2026-12-01");
            assertThat(quiet[1]).as("stderr without --verbose").isEmpty();
            assertThat(verbose[0]).isEqualTo(quiet[0]);
            // The check can fail: with --verbose the same run's log line is there.
            // (JSON in the jar; the tests' logback-test.xml writes plain text.)
            assertThat(verbose[1].lines()).as("stderr with --verbose").anyMatch(l -> l.contains("started reconcile-2026-12-01 for window 2026-12-01"));
        }
    }

    /** Runs as main does: what any code writes to System.out (the logs) is on stderr. Returns stdout and stderr. */
    private static String[] runAsTheProcess(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = ReconcilerCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
        return new String[] {out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
    }

    // ---- help -----------------------------------------------------------------------------------------

    /** Every command a person can run, with its subcommands, as the one command line holds them. */
    static Stream<CommandLine> commands(CommandLine root) {
        return Stream.concat(Stream.of(root), root.getSubcommands().values().stream().flatMap(OperatorMessagesTest::commands));
    }

    /** What a command's --help lacks: an option without a description, or (a runnable command) its exit codes. */
    static List<String> helpProblems(CommandLine command) {
        List<String> problems = new ArrayList<>();
        for (CommandLine.Model.OptionSpec option : command.getCommandSpec().options()) {
            if (option.description().length == 0 || String.join("", option.description()).isBlank()) {
                problems.add(command.getCommandName() + " " + option.longestName() + ": no description");
            }
        }
        boolean runnable = command.getCommand() instanceof java.util.concurrent.Callable<?> || command.getCommand() instanceof Runnable;
        String usage = command.getUsageMessage(CommandLine.Help.Ansi.OFF);
        if (runnable && !(usage.contains("Exit codes:") && usage.contains("  0 ") && usage.contains("  2 "))) {
            problems.add(command.getCommandName() + ": --help lists no exit codes");
        }
        return problems;
    }

    @Test
    void everyCommandsHelpDescribesEachOptionAndListsItsExitCodes() {
        CommandLine root = new CommandLine(new ReconcilerCli());
        List<CommandLine> all = commands(root).toList();
        assertThat(all).extracting(CommandLine::getCommandName).contains("start", "rerun", "redrive", "status", "history", "list", "requeue");
        assertThat(all.stream().flatMap(c -> helpProblems(c).stream())).isEmpty();
        Result help = run("redrive", "--help");
        assertThat(help.out()).contains("--execution=NAME").contains("The execution's name").contains("Exit codes:");
    }

    /**
     * {@code commands resolve}'s help says what each {@code --as} means at the provider and what the command becomes: a
     * person closes a command on what the provider told them, so the two answers must not be left to guess.
     */
    @Test
    void resolvesHelpSaysWhatEachAnswerMeansAtTheProviderAndWhatIsRecorded() {
        String help = run("commands", "resolve", "--help").out().replaceAll("\\s+", " ");
        assertThat(help)
                .contains("--as released the provider confirms the hold is released")
                .contains("ends DELIVERED").contains("the provider's id for the release with --provider-reference")
                .contains("--as not-released the provider says the hold is not released: it was captured, or it is still held")
                .contains("ends REJECTED without a release").contains("commands requeue")
                .contains("resolvedBy").contains("resolvedAt").contains("resolutionNote").contains("never sent again");
    }

    @Command(name = "undocumented", exitCodeListHeading = "%nExit codes:%n", exitCodeList = {"0:ok"})
    static final class Undocumented implements java.util.concurrent.Callable<Integer> {
        @Option(names = "--window")
        String window;

        @Override
        public Integer call() {
            return 0;
        }
    }

    /** The help check can fail: an option without a description and a missing exit code are named. */
    @Test
    void theHelpCheckNamesAnUndescribedOptionAndMissingExitCodes() {
        assertThat(helpProblems(new CommandLine(new Undocumented())))
                .containsExactly("undocumented --window: no description", "undocumented: --help lists no exit codes");
    }
}
