package com.payments.reconciler.harness.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.cli.operator.ExecutionFollower;
import com.payments.reconciler.workflow.ErrorNames;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;

/**
 * An execution started through the SDK's StartExecution (as a console or an API caller would) with an input that carries a
 * grace, shards or a cutoff: the shipped workflow on moto with the local Lambda fails it at AcquireLease with
 * {@code InvalidInput} naming the field (never retried), and nothing is written to any table. The deployment's settings are
 * the only ones a night runs with.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TamperedInputTest {

    private final PipelineFixture fixture = new PipelineFixture("tampered-input");

    @BeforeEach
    void reset() {
        fixture.pipeline.reset();
    }

    @AfterAll
    void close() {
        fixture.close();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"\"gracePeriod\":\"PT1H\"", "\"shards\":1", "\"cutoff\":\"2026-11-30T01:00:00Z\""})
    void anInputCarryingADeployedSettingFailsInvalidInputAndWritesNothing(String tampering) {
        fixture.load(40, 0.2, 3);
        String field = tampering.substring(1, tampering.indexOf('"', 1));

        ExecutionFollower.Followed run = fixture.pipeline.run("reconcile-2026-12-01",
                "{\"windowId\":\"2026-12-01\",\"dryRun\":false," + tampering + "}");

        assertThat(run.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(run.error()).contains(ErrorNames.INVALID_INPUT);
        assertThat(run.cause().orElseThrow()).contains(field + ": unknown field").contains("come from the deployed stack");
        assertThat(run.retries()).as("InvalidInput is never retried").isZero();
        assertThat(fixture.pipeline.writeLog().entries()).as("tables written").isEmpty();
        assertThat(fixture.effects()).as("provider calls").isEmpty();
    }

    /** Known good, the proof the checks above can fail: the same data with the untampered input writes (lease, decisions). */
    @Test
    void theUntamperedInputOfTheSameWindowWrites() {
        fixture.load(40, 0.2, 3);
        ExecutionFollower.Followed run = fixture.run("reconcile-2026-12-01");
        assertThat(run.status()).as("%s %s", run.error(), run.cause()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(fixture.pipeline.writeLog().entries()).isNotEmpty();
        assertThat(fixture.effects()).isNotEmpty();
    }
}
