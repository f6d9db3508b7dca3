package com.payments.reconciler.cli;

import com.payments.reconciler.testing.LocalAwsClients;
import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.local.moto.MotoServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalDate;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.sfn.SfnClient;

/** The operator's commands as a user meets them: output, exit codes and clear AWS errors. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OperatorCommandsTest {

    private static final Path BUILD = Path.of(System.getProperty("reconciler.target"));
    /** Yesterday's window has always started (today's has not before 02:00 UTC). */
    private final String today = LocalDate.now(Clock.systemUTC()).minusDays(1).toString();
    private MotoServer moto;

    record Result(int exit, String out, String err) {
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = ReconcilerCli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Result(exit, out.toString(), err.toString());
    }

    @AfterAll
    void stop() {
        if (moto != null) {
            moto.close();
        }
    }

    private String stateMachine(String definition) {
        if (moto == null) {
            moto = MotoServer.start(BUILD.resolve("cli-moto"));
        }
        SfnClient sfn = new LocalAwsClients(moto.endpoint(), List.of()).sfn();
        return sfn.createStateMachine(b -> b.name("reconciler-" + UUID.randomUUID()).definition(definition)
                .roleArn("arn:aws:iam::123456789012:role/test")).stateMachineArn();
    }

    @Test
    void operatorCommandsAgainstTheStepFunctionsApi() {
        String sm = stateMachine("{\"StartAt\":\"Hold\",\"States\":{\"Hold\":{\"Type\":\"Wait\",\"Seconds\":600,\"End\":true}}}");
        TestStacks.create(moto, TestStacks.NAME, TestStacks.outputs(sm));
        String[] aws = {"--stack-name", TestStacks.NAME, "--endpoint-url", moto.endpoint().toString()};
        Result started = run(concat(new String[] {"start", "--window", today}, aws));
        assertThat(started.exit()).as(started.err()).isZero();
        assertThat(started.out()).contains("started reconcile-" + today).contains("console.aws.amazon.com/states");

        Result again = run(concat(new String[] {"start", "--window", today}, aws));
        assertThat(again.exit()).isZero();
        assertThat(again.out()).contains("already exists (RUNNING): duplicate start suppressed");

        Result refused = run(concat(new String[] {"rerun", "--window", today}, aws));
        assertThat(refused.exit()).isEqualTo(ExitCodes.RUN_FAILED);
        assertThat(refused.err()).contains("running execution reconcile-" + today).contains("--force");

        Result forced = run(concat(new String[] {"rerun", "--window", today, "--force", "--dry-run"}, aws));
        assertThat(forced.exit()).as(forced.err()).isZero();
        assertThat(forced.out()).contains("started reconcile-" + today + "-rerun-1");

        Result status = run(concat(new String[] {"status", "--window", today}, aws));
        assertThat(status.exit()).isZero();
        assertThat(status.out()).contains("reconcile-" + today + " ").contains("reconcile-" + today + "-rerun-1").contains("RUNNING");

        Result history = run(concat(new String[] {"history", "--execution", "reconcile-" + today}, aws));
        assertThat(history.exit()).as(history.err()).isZero();
        assertThat(history.out()).contains("execution started").contains("→ Hold");

        // moto answers ExecutionDoesNotExist for an execution it never ran, as Step Functions does: bad input, exit 2.
        Result missing = run(concat(new String[] {"history", "--execution", "reconcile-" + today + "-rerun-7"}, aws));
        assertThat(missing.exit()).as(missing.err()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(missing.err()).contains("--execution: reconcile-" + today + "-rerun-7 does not exist");
        Result notRedriven = run(concat(new String[] {"redrive", "--execution", "reconcile-" + today + "-rerun-7"}, aws));
        assertThat(notRedriven.exit()).as(notRedriven.err()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(notRedriven.err()).contains("--execution: reconcile-" + today + "-rerun-7 does not exist");
    }

    @Test
    void accessDeniedAndThrottlingAreAwsErrorsWithAClearMessage() {
        try (FakeStepFunctions fake = new FakeStepFunctions()) {
            String arn = "arn:aws:states:eu-west-1:123456789012:stateMachine:reconciler";
            fake.stack(arn);
            fake.answer("ListExecutions", 400, "{\"__type\":\"com.amazon.coral.service#AccessDeniedException\",\"message\":\"User: arn:aws:iam::123456789012:user/ops is not authorized to perform: states:ListExecutions\"}");
            Result denied = run("status", "--window", "2026-12-01", "--stack-name", TestStacks.NAME, "--endpoint-url", fake.uri().toString());
            assertThat(denied.exit()).isEqualTo(ExitCodes.AWS_ERROR);
            assertThat(denied.err()).contains("AccessDeniedException").contains("not authorized").contains("credentials");

            fake.answer("ListExecutions", 400, "{\"__type\":\"ThrottlingException\",\"message\":\"Rate exceeded\"}");
            Result throttled = run("status", "--window", "2026-12-01", "--stack-name", TestStacks.NAME, "--endpoint-url", fake.uri().toString());
            assertThat(throttled.exit()).isEqualTo(ExitCodes.AWS_ERROR);
            assertThat(throttled.err()).contains("ThrottlingException").contains("retry");
            assertThat(fake.calls("ListExecutions")).as("the SDK retried the throttled call before giving up").isGreaterThan(2);
        }
    }

    @Test
    void theStackIsFoundByNameAndAMissingOrForeignStackIsBadUsageNamingStackName() {
        String sm = stateMachine("{\"StartAt\":\"Done\",\"States\":{\"Done\":{\"Type\":\"Succeed\"}}}");
        TestStacks.create(moto, "reconciler-found-" + com.payments.reconciler.workflow.FixedNames.STACK_SUFFIX, TestStacks.outputs(sm));
        Result found = run("status", "--window", today, "--stack-name", "reconciler-found-" + com.payments.reconciler.workflow.FixedNames.STACK_SUFFIX,
                "--endpoint-url", moto.endpoint().toString());
        assertThat(found.exit()).as(found.err()).isZero();
        assertThat(found.out()).contains("no executions");

        // commands finds its table through the same outputs: listing reaches the table the stack names (and only that one).
        // In us-east-1, where a command aimed at a local endpoint without --region looks.
        new com.payments.reconciler.store.TableCreator(software.amazon.awssdk.services.dynamodb.DynamoDbClient.builder()
                .endpointOverride(moto.endpoint()).region(software.amazon.awssdk.regions.Region.US_EAST_1)
                .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                        software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create("local", "local")))
                .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create()).build())
                .create(com.payments.reconciler.store.Tables.ReleaseCommands.SCHEMA, "reconciler-test-ReleaseCommands");
        Result commands = run("commands", "list", "--stack-name", "reconciler-found-" + com.payments.reconciler.workflow.FixedNames.STACK_SUFFIX,
                "--endpoint-url", moto.endpoint().toString());
        assertThat(commands.exit()).as(commands.err()).isZero();
        Result otherTable = run("commands", "list", "--commands-table", "no-such-table", "--endpoint-url", moto.endpoint().toString());
        assertThat(otherTable.exit()).as("the flag names another table, which moto does not have").isEqualTo(ExitCodes.AWS_ERROR);

        // Known bad: a stack that does not exist (CloudFormation's ValidationError), and one without the reconciler's outputs.
        Result missing = run("status", "--window", today, "--stack-name", "no-such-stack", "--endpoint-url", moto.endpoint().toString());
        assertThat(missing.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(missing.err().strip()).startsWith("error: --stack-name: stack no-such-stack does not exist in us-east-1").doesNotContain("\n");
        TestStacks.create(moto, "someone-elses-stack", java.util.Map.of("BucketName", "b"));
        Result foreign = run("status", "--window", today, "--stack-name", "someone-elses-stack", "--endpoint-url", moto.endpoint().toString());
        assertThat(foreign.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(foreign.err()).contains("--stack-name: stack someone-elses-stack has no output StateMachineArn");
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
