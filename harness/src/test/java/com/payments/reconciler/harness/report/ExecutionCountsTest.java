package com.payments.reconciler.harness.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.cli.operator.ExecutionFollower;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.WorkflowDefinition;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;
import software.amazon.awssdk.services.sfn.model.HistoryEventType;
import software.amazon.awssdk.services.sfn.model.StateExitedEventDetails;

/** An execution's decisions: from its summary when it finished, from its last page when it did not. */
class ExecutionCountsTest {

    private static final String ARN = "arn:aws:states:eu-west-1:123456789012:execution:reconciler:";

    static HistoryEvent pageExited(long candidates, long releaseRequested, long skippedSettled) {
        String output = "{\"page\":{\"more\":true,\"totals\":{\"candidates\":" + candidates + ",\"releaseRequested\":" + releaseRequested
                + ",\"skippedSettled\":" + skippedSettled + ",\"skippedStale\":1,\"candidatesRead\":" + (candidates + 5) + "}}}";
        return HistoryEvent.builder().type(HistoryEventType.TASK_STATE_EXITED)
                .stateExitedEventDetails(StateExitedEventDetails.builder().name("ReconcilePage").output(output).build()).build();
    }

    static HistoryEvent otherExited() {
        return HistoryEvent.builder().type(HistoryEventType.TASK_STATE_EXITED)
                .stateExitedEventDetails(StateExitedEventDetails.builder().name("AcquireLease").output("{\"page\":{\"totals\":{\"candidates\":999}}}").build())
                .build();
    }

    @Test
    void aFailedExecutionReportsWhatItsLastPageHadDecided() {
        var failed = new ExecutionFollower.Followed(ARN + "reconcile-2026-11-27", ExecutionStatus.FAILED, Optional.empty(),
                Optional.of("ProviderContractViolation"), Optional.of("cause"),
                List.of(otherExited(), pageExited(500, 440, 59), pageExited(1_500, 1_303, 196), otherExited()), 40, 0);

        ExecutionCounts counts = ExecutionCounts.of(failed, 0);

        assertThat(counts).isEqualTo(new ExecutionCounts("reconcile-2026-11-27", "FAILED", "ProviderContractViolation",
                1_500, 1_303, 196, 1, 1_505, 0, 0));
    }

    @Test
    void aFinishedExecutionReportsTheCandidatesHeldForFeed() {
        var done = new ExecutionFollower.Followed(ARN + "reconcile-2026-11-27", ExecutionStatus.SUCCEEDED,
                Optional.of("{\"reconcile\":{\"candidates\":2,\"releaseRequested\":1,\"skippedSettled\":0,\"skippedStale\":0,\"candidatesRead\":2,\"heldForFeed\":1}}"),
                Optional.empty(), Optional.empty(), List.of(pageExited(2, 1, 0)), 12, 0);

        assertThat(ExecutionCounts.of(done, 0).heldForFeed()).isEqualTo(1);
    }

    @Test
    void aFinishedExecutionReportsItsSummary() {
        var done = new ExecutionFollower.Followed(ARN + "reconcile-2026-11-27-rerun-1", ExecutionStatus.SUCCEEDED,
                Optional.of("{\"reconcile\":{\"candidates\":7,\"releaseRequested\":5,\"skippedSettled\":2,\"skippedStale\":0,\"candidatesRead\":9}}"),
                Optional.empty(), Optional.empty(), List.of(pageExited(3, 3, 0)), 12, 0);

        assertThat(ExecutionCounts.of(done, 2)).isEqualTo(new ExecutionCounts("reconcile-2026-11-27-rerun-1", "SUCCEEDED", null, 7, 5, 2, 0, 9, 2, 0));
    }

    @Test
    void anExecutionRefusedBeforeItsFirstPageDecidedNothing() {
        var refused = new ExecutionFollower.Followed(ARN + "reconcile-2026-11-27", ExecutionStatus.FAILED, Optional.empty(),
                Optional.of("Superseded"), Optional.empty(), List.of(otherExited()), 5, 0);

        assertThat(ExecutionCounts.of(refused, 1).candidates()).isZero();
        assertThat(ExecutionCounts.of(refused, 1).fencedRefusals()).isEqualTo(1);
    }

    @Test
    void theStateItReadsIsTheShippedWorkflowsReconcilePageTask() throws Exception {
        JsonNode state = Json.mapper().readTree(WorkflowDefinition.class.getResourceAsStream(WorkflowDefinition.RESOURCE))
                .path("States").path(NightPhases.PAGE_STATE);
        assertThat(state.path("Type").asText()).isEqualTo("Task");
        assertThat(state.path("ResultPath").asText()).as("the page state the totals are read from").isEqualTo("$.page");
        assertThat(state.toString()).contains("ReconcilePage");
    }
}
