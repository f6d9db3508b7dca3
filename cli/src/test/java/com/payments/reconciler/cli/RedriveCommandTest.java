package com.payments.reconciler.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.Json;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code redrive} against recorded Step Functions answers (moto has neither {@code RedriveExecution} nor
 * the redrive fields of {@code DescribeExecution}). Each body is shaped as the API reference gives the
 * response: awsJson1.0, dates as epoch seconds, {@code redriveStatus} / {@code redriveStatusReason} as
 * documented for STANDARD executions.
 */
class RedriveCommandTest {

    private static final String STATE_MACHINE = "arn:aws:states:eu-west-1:123456789012:stateMachine:reconciler";
    private static final String EXECUTION = "arn:aws:states:eu-west-1:123456789012:execution:reconciler:reconcile-2026-12-01";
    private static final String PROVIDER_DOWN = "com.payments.reconciler.workflow.ProviderUnavailable";

    private final FakeStepFunctions fake = new FakeStepFunctions().stack(STATE_MACHINE);

    @AfterEach
    void close() {
        fake.close();
    }

    /** A DescribeExecution answer; {@code redrive} is the redrive fields' JSON, or empty when the endpoint has none. */
    static String described(String status, String error, String cause, String redrive) {
        return """
                {"executionArn":"%s","stateMachineArn":"%s","name":"reconcile-2026-12-01","status":"%s",\
                "startDate":1796176800.125,"stopDate":1796184000.5,\
                "input":"{\\"windowId\\":\\"2026-12-01\\"}","inputDetails":{"included":true}%s%s%s}"""
                .formatted(EXECUTION, STATE_MACHINE, status, error == null ? "" : ",\"error\":\"" + error + "\"",
                        cause == null ? "" : ",\"cause\":\"" + cause + "\"", redrive.isEmpty() ? "" : "," + redrive);
    }

    static String redrivable(int count) {
        return "\"redriveCount\":" + count + ",\"redriveStatus\":\"REDRIVABLE\"";
    }

    static String notRedrivable(String reason) {
        return "\"redriveCount\":0,\"redriveStatus\":\"NOT_REDRIVABLE\",\"redriveStatusReason\":\"" + reason + "\"";
    }

    /** A delivery iteration failed for good while another shard had finished: the history up to ExecutionFailed. */
    static final String HISTORY_OF_A_FAILED_DELIVERY = """
            {"events":[
             {"timestamp":1796176800.2,"type":"ExecutionStarted","id":1,"previousEventId":0,
              "executionStartedEventDetails":{"input":"{}","inputDetails":{"included":true},"roleArn":"arn:aws:iam::123456789012:role/reconciler"}},
             {"timestamp":1796176800.3,"type":"PassStateEntered","id":2,"previousEventId":1,"stateEnteredEventDetails":{"name":"MintOwnerId","input":"{}"}},
             {"timestamp":1796176800.3,"type":"PassStateExited","id":3,"previousEventId":2,"stateExitedEventDetails":{"name":"MintOwnerId","output":"{}"}},
             {"timestamp":1796176800.4,"type":"TaskStateEntered","id":4,"previousEventId":3,"stateEnteredEventDetails":{"name":"AcquireLease","input":"{}"}},
             {"timestamp":1796176801.0,"type":"TaskStateExited","id":8,"previousEventId":7,"stateExitedEventDetails":{"name":"AcquireLease","output":"{}"}},
             {"timestamp":1796176801.1,"type":"TaskStateEntered","id":9,"previousEventId":8,"stateEnteredEventDetails":{"name":"ReconcilePage","input":"{}"}},
             {"timestamp":1796176830.0,"type":"TaskStateExited","id":13,"previousEventId":12,"stateExitedEventDetails":{"name":"ReconcilePage","output":"{}"}},
             {"timestamp":1796176830.1,"type":"ChoiceStateEntered","id":14,"previousEventId":13,"stateEnteredEventDetails":{"name":"MorePages","input":"{}"}},
             {"timestamp":1796176830.1,"type":"ChoiceStateExited","id":15,"previousEventId":14,"stateExitedEventDetails":{"name":"MorePages","output":"{}"}},
             {"timestamp":1796176830.2,"type":"MapStateEntered","id":16,"previousEventId":15,"stateEnteredEventDetails":{"name":"DeliverReleases","input":"{}"}},
             {"timestamp":1796176830.2,"type":"MapStateStarted","id":17,"previousEventId":16,"mapStateStartedEventDetails":{"length":2}},
             {"timestamp":1796176830.3,"type":"MapIterationStarted","id":18,"previousEventId":17,"mapIterationStartedEventDetails":{"name":"DeliverReleases","index":0}},
             {"timestamp":1796176830.3,"type":"TaskStateEntered","id":19,"previousEventId":18,"stateEnteredEventDetails":{"name":"DeliverBatch","input":"{}"}},
             {"timestamp":1796176830.3,"type":"MapIterationStarted","id":20,"previousEventId":17,"mapIterationStartedEventDetails":{"name":"DeliverReleases","index":1}},
             {"timestamp":1796176830.3,"type":"TaskStateEntered","id":21,"previousEventId":20,"stateEnteredEventDetails":{"name":"DeliverBatch","input":"{}"}},
             {"timestamp":1796176840.0,"type":"TaskStateExited","id":25,"previousEventId":24,"stateExitedEventDetails":{"name":"DeliverBatch","output":"{}"}},
             {"timestamp":1796176840.1,"type":"SucceedStateEntered","id":26,"previousEventId":25,"stateEnteredEventDetails":{"name":"ShardDelivered","input":"{}"}},
             {"timestamp":1796176840.1,"type":"SucceedStateExited","id":27,"previousEventId":26,"stateExitedEventDetails":{"name":"ShardDelivered","output":"{}"}},
             {"timestamp":1796176840.1,"type":"MapIterationSucceeded","id":28,"previousEventId":27,"mapIterationSucceededEventDetails":{"name":"DeliverReleases","index":1}},
             {"timestamp":1796177200.0,"type":"TaskFailed","id":40,"previousEventId":39,"taskFailedEventDetails":{"resourceType":"lambda","resource":"invoke",
              "error":"com.payments.reconciler.workflow.ProviderUnavailable","cause":"provider unavailable for release-hold:auth-00000007 after 2 attempts"}},
             {"timestamp":1796177200.1,"type":"MapIterationFailed","id":41,"previousEventId":40,"mapIterationFailedEventDetails":{"name":"DeliverReleases","index":0}},
             {"timestamp":1796177200.1,"type":"MapStateFailed","id":42,"previousEventId":41},
             {"timestamp":1796177200.2,"type":"ExecutionFailed","id":43,"previousEventId":42,"executionFailedEventDetails":{
              "error":"com.payments.reconciler.workflow.ProviderUnavailable","cause":"provider unavailable for release-hold:auth-00000007 after 2 attempts"}}
            ]}""";

    OperatorCommandsTest.Result redrive() {
        return OperatorCommandsTest.run("redrive", "--execution", "reconcile-2026-12-01", "--stack-name", TestStacks.NAME,
                "--endpoint-url", fake.uri().toString());
    }

    @Test
    void aRedrivableNightFailedAtADeliveryIsRedrivenWithAClientTokenAndSaysWhatRestarts() throws Exception {
        fake.answer("DescribeExecution", 200, described("FAILED", PROVIDER_DOWN, "provider unavailable for release-hold:auth-00000007 after 2 attempts", redrivable(0)))
                .answer("GetExecutionHistory", 200, HISTORY_OF_A_FAILED_DELIVERY)
                .answer("RedriveExecution", 200, "{\"redriveDate\":1796198400.25}");

        OperatorCommandsTest.Result r = redrive();

        assertThat(r.exit()).as(r.err()).isEqualTo(ExitCodes.OK);
        assertThat(r.out()).contains("redriven reconcile-2026-12-01 (redrive 1) at 2026-12-02T08:00:00.250Z")
                .contains("it had ended FAILED with " + PROVIDER_DOWN)
                .contains("restarting: DeliverReleases, DeliverBatch")
                .doesNotContain("ReconcilePage,").contains("console.aws.amazon.com/states");
        JsonNode request = Json.mapper().readTree(fake.lastRequest("RedriveExecution"));
        assertThat(request.path("executionArn").asText()).isEqualTo(EXECUTION);
        assertThat(request.path("clientToken").asText()).isEqualTo(RedriveCommand.clientToken(EXECUTION, 1))
                .startsWith("redrive-1-").hasSizeLessThanOrEqualTo(64).matches("[!-~]+");
        assertThat(fake.calls("RedriveExecution")).isEqualTo(1);
    }

    @Test
    void theClientTokenIsTheSameForOneAttemptAndDiffersForTheNext() {
        assertThat(RedriveCommand.clientToken(EXECUTION, 2)).isEqualTo(RedriveCommand.clientToken(EXECUTION, 2))
                .isNotEqualTo(RedriveCommand.clientToken(EXECUTION, 1))
                .isNotEqualTo(RedriveCommand.clientToken(EXECUTION + "-rerun-1", 2));
    }

    @Test
    void aSecondRedriveCountsFromTheRecordedRedriveCount() {
        fake.answer("DescribeExecution", 200, described("TIMED_OUT", "States.Timeout", null, redrivable(2)))
                .answer("GetExecutionHistory", 200, "{\"events\":[]}")
                .answer("RedriveExecution", 200, "{\"redriveDate\":1796198400}");

        OperatorCommandsTest.Result r = redrive();

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("(redrive 3)").contains("ended TIMED_OUT with States.Timeout");
        assertThat(fake.lastRequest("RedriveExecution")).contains(RedriveCommand.clientToken(EXECUTION, 3));
    }

    static Stream<Arguments> notRedrivable() {
        return Stream.of(
                Arguments.of("RUNNING", "Execution is RUNNING and cannot be redriven.", "history --execution reconcile-2026-12-01"),
                Arguments.of("SUCCEEDED", "Execution is SUCCEEDED and cannot be redriven.", "status --window 2026-12-01"),
                Arguments.of("FAILED", "Execution redrivable period exceeded.", "rerun --window 2026-12-01"),
                Arguments.of("FAILED", "Execution history event limit exceeded.", "rerun --window 2026-12-01"),
                Arguments.of("TIMED_OUT", "Execution has exceeded the max execution time.", "rerun --window 2026-12-01"),
                Arguments.of("FAILED", "Execution was started before the launch of RedriveExecution.", "rerun --window 2026-12-01"),
                Arguments.of("ABORTED", "State machine is in DELETING status.", "deploy the stack again"));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("notRedrivable")
    void notRedrivableIsRefusedWithStepFunctionsReasonAndWhatToDoInstead(String status, String reason, String instead) {
        fake.answer("DescribeExecution", 200, described(status, "FAILED".equals(status) ? PROVIDER_DOWN : null, null, notRedrivable(reason)));

        OperatorCommandsTest.Result r = redrive();

        assertThat(r.exit()).isEqualTo(ExitCodes.RUN_FAILED);
        assertThat(r.err()).contains("refused: Step Functions cannot redrive reconcile-2026-12-01 (" + status + "): " + reason).contains(instead);
        assertThat(fake.calls("RedriveExecution")).isZero();
    }

    static Stream<Arguments> redrivableButEndedInAFailState() {
        return Stream.of(
                Arguments.of("Superseded", "lease hold-release-reconciler is no longer ours at epoch 1: newer epoch 2 held by reconcile-2026-12-01-rerun-1/x",
                        new String[] {"superseded by a newer run", "newer epoch 2", "re-enters the Superseded state",
                                "status --window 2026-12-01", "rerun --window 2026-12-01"}),
                Arguments.of("LeaseHeldByAnotherRun", "lease hold-release-reconciler is held by reconcile-2026-12-01-rerun-1/x at epoch 2",
                        new String[] {"never got the lease", "re-enters LeaseHeldByAnotherRun", "status --window 2026-12-01"}),
                Arguments.of("RunFailed", "provider unavailable",
                        new String[] {"handed the lease back", "re-enter RunFailed", "rerun --window 2026-12-01"}));
    }

    /** Step Functions calls these REDRIVABLE (it does not know what a Fail state means to us); a redrive would only fail again. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("redrivableButEndedInAFailState")
    void anExecutionThatEndedInAFailStateIsRefusedEvenThoughStepFunctionsCouldRedriveIt(String error, String cause, String[] says) {
        fake.answer("DescribeExecution", 200, described("FAILED", error, cause, redrivable(0)));

        OperatorCommandsTest.Result r = redrive();

        assertThat(r.exit()).isEqualTo(ExitCodes.RUN_FAILED);
        assertThat(r.err()).contains(says);
        assertThat(fake.calls("RedriveExecution")).isZero();
    }

    @Test
    void anEndpointThatReportsNoRedriveStatusIsNotTakenAsAYes() {
        fake.answer("DescribeExecution", 200, described("FAILED", PROVIDER_DOWN, null, ""));

        OperatorCommandsTest.Result r = redrive();

        assertThat(r.exit()).isEqualTo(ExitCodes.RUN_FAILED);
        assertThat(r.err()).contains("redriveStatus null").contains("not REDRIVABLE");
        assertThat(fake.calls("RedriveExecution")).isZero();
    }

    @Test
    void aRedriveRefusedBetweenTheLookAndTheCallIsReportedNotThrown() {
        fake.answer("DescribeExecution", 200, described("FAILED", PROVIDER_DOWN, null, redrivable(0)))
                .answer("GetExecutionHistory", 200, HISTORY_OF_A_FAILED_DELIVERY)
                .answer("RedriveExecution", 400, "{\"__type\":\"com.amazonaws.swf.service.v2.model#ExecutionNotRedrivable\","
                        + "\"message\":\"Execution is RUNNING and cannot be redriven.\"}");

        OperatorCommandsTest.Result r = redrive();

        assertThat(r.exit()).isEqualTo(ExitCodes.RUN_FAILED);
        assertThat(r.err()).contains("would not redrive reconcile-2026-12-01: Execution is RUNNING and cannot be redriven.")
                .contains("status --window 2026-12-01");
    }
}
