package com.payments.reconciler.harness.local;

import com.payments.reconciler.cli.operator.ExecutionFollower;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.audit.InvariantAudit;
import com.payments.reconciler.harness.report.FencedRefusals;
import com.payments.reconciler.workflow.ErrorNames;
import com.payments.reconciler.workflow.Timing;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;

/**
 * The Tuesday-night incident through the whole workflow: execution A is paused (a GC pause) after
 * reading and checking its first candidate, its lease expires, a rerun B takes over and completes the
 * window; A resumes, its transaction is refused by the fence, and A ends Superseded with a cause that
 * names the newer epoch. Nothing A attempted after the takeover committed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FailoverEndToEndTest {

    private final WritePause pause = new WritePause("reconcile-2026-12-01");
    private final PipelineFixture fixture = new PipelineFixture("failover", pause);

    @AfterAll
    void close() {
        fixture.close();
    }

    @Test
    void aStaleExecutionIsFencedAndEndsSuperseded() throws Exception {
        SyntheticData.Expected expected = fixture.load(40, 0.1, 6);
        String a = fixture.pipeline.startExecution("reconcile-2026-12-01", PipelineFixture.CONFIG.inputFor(PipelineFixture.WINDOW).toJson());
        assertThat(pause.awaitPaused(2, TimeUnit.MINUTES)).as("A reached its first write").isTrue();

        fixture.clock.advance(Timing.LEASE_DURATION.plusMinutes(1));
        ExecutionFollower.Followed b = fixture.run("reconcile-2026-12-01-rerun-1");
        assertThat(b.status()).isEqualTo(ExecutionStatus.SUCCEEDED);

        pause.resume();
        ExecutionFollower.Followed stale = fixture.pipeline.follow(a, event -> { });

        assertThat(stale.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(stale.error()).contains(ErrorNames.FAIL_SUPERSEDED);
        assertThat(stale.cause().orElseThrow()).contains("newer epoch 2");
        assertThat(WorkflowEndToEndTest.failures(stale.events())).containsExactly(ErrorNames.FENCED);
        var refusals = fixture.pipeline.writeLog().refusals();
        String leases = fixture.pipeline.tables().leases();
        assertThat(FencedRefusals.countFor(refusals, leases, "reconcile-2026-12-01")).as("the engine refused A's write").isEqualTo(1);
        assertThat(FencedRefusals.countFor(refusals, leases, "reconcile-2026-12-01-rerun-1")).isZero();
        assertThat(fixture.effects()).hasSize(expected.releasable()).allSatisfy(e -> assertThat(e.performed()).isEqualTo(1));
        InvariantAudit.Report audit = fixture.audit(true);
        assertThat(audit.violations()).isEmpty();
        assertThat(audit.allHold()).isTrue();
    }
}
