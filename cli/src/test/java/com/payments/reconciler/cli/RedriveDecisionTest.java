package com.payments.reconciler.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.window.ExecutionName;
import com.payments.reconciler.workflow.ErrorNames;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionRedriveStatus;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;

/**
 * A redrive right after the failure could run a failed or aborted iteration's task again while the stopped
 * execution's own Lambda invocation of it is still running (Step Functions cannot cancel it), both with the
 * same lease token: {@code redrive} waits until every such invocation has reached its timeout.
 */
class RedriveDecisionTest {

    private static final Instant STOPPED = Instant.parse("2026-12-01T03:10:00Z");
    private static final ExecutionName NAME = ExecutionName.require("reconcile-2026-12-01", "--execution");

    private static DescribeExecutionResponse failedAtDelivery() {
        return DescribeExecutionResponse.builder().status(ExecutionStatus.FAILED).redriveStatus(ExecutionRedriveStatus.REDRIVABLE)
                .error(ErrorNames.PROVIDER_UNAVAILABLE).cause("provider down").stopDate(STOPPED).build();
    }

    @Test
    void aRedriveBeforeTheStoppedInvocationsCanHaveEndedIsRefusedNamingWhenItMayRun() {
        RedriveDecision early = RedriveDecision.of(NAME, failedAtDelivery(), STOPPED.plusSeconds(30));

        assertThat(early).isInstanceOfSatisfying(RedriveDecision.Refuse.class, r -> {
            assertThat(r.exitCode()).isEqualTo(ExitCodes.RUN_FAILED);
            assertThat(r.message()).contains("may still be running").contains("Redrive at or after " + STOPPED.plus(RedriveDecision.SETTLE));
        });
    }

    @Test
    void onceEveryInvocationHasTimedOutTheRedriveGoesAhead() {
        assertThat(RedriveDecision.SETTLE).isEqualTo(Duration.ofSeconds(130));
        assertThat(RedriveDecision.of(NAME, failedAtDelivery(), STOPPED.plus(RedriveDecision.SETTLE))).isInstanceOf(RedriveDecision.Redrive.class);
    }

    /** A held night is finished by approve (which starts the rerun), never by a redrive, which would re-enter ReleaseSurge. */
    @Test
    void aNightTheReleaseSurgeGuardHeldIsNotRedrivenButApproved() {
        DescribeExecutionResponse held = DescribeExecutionResponse.builder().status(ExecutionStatus.FAILED)
                .redriveStatus(ExecutionRedriveStatus.REDRIVABLE).error(ErrorNames.FAIL_RELEASE_SURGE)
                .cause("window 2026-12-01: 400 releases decided, above 2.0 x the median 100.0").stopDate(STOPPED).build();

        assertThat(RedriveDecision.of(NAME, held, STOPPED.plus(RedriveDecision.SETTLE))).isInstanceOfSatisfying(RedriveDecision.Refuse.class, r -> {
            assertThat(r.exitCode()).isEqualTo(ExitCodes.RUN_FAILED);
            assertThat(r.message()).contains("release-surge guard held", "400 releases decided", "approve --window 2026-12-01 --note TEXT");
        });
    }
}
