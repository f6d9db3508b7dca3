package com.payments.reconciler.harness.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.cli.operator.ExecutionFollower;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;

/**
 * The capacity promise in the chaos campaign: every night completes, or ends SUCCEEDED with its backlog reported (the
 * declared backlog is checked by the audit's I4), never by running into its timeout. The TIMED_OUT row is the known-bad
 * input the check must catch.
 */
class NightPromiseTest {

    @ParameterizedTest
    @CsvSource({
            "SUCCEEDED, 0",
            "FAILED,    0",
            "ABORTED,   0",
            "TIMED_OUT, 1"})
    void aNightThatRanIntoItsTimeoutIsAnI4Violation(ExecutionStatus status, int violations) {
        ExecutionFollower.Followed night = new ExecutionFollower.Followed(
                "arn:aws:states:eu-west-1:000000000000:execution:reconciler:reconcile-2026-12-03", status, Optional.empty(),
                Optional.empty(), Optional.empty(), List.of(), 0, 0);

        assertThat(ChaosCampaign.timedOutNights(List.of(night))).hasSize(violations)
                .allSatisfy(v -> assertThat(v.invariant()).isEqualTo("I4"))
                .allSatisfy(v -> assertThat(v.detail()).contains("reconcile-2026-12-03 ran into its timeout"));
    }
}
