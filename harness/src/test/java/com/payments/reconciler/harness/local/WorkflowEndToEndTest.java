package com.payments.reconciler.harness.local;

import com.payments.reconciler.cli.operator.ExecutionFollower;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.audit.InvariantAudit;
import com.payments.reconciler.audit.ProviderEffect;
import com.payments.reconciler.local.provider.Fault;
import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.workflow.ErrorNames;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.LambdaFunction;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;

/**
 * The shipped ASL executed by moto's interpreter behind the real Step Functions API, calling the real
 * handlers through the local Lambda Invoke endpoint, against moto's DynamoDB and the simulated
 * provider. Every verdict on I1–I5 comes from the stored tables and the provider's effect log.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WorkflowEndToEndTest {

    private final PipelineFixture fixture = new PipelineFixture("e2e");

    @BeforeEach
    void reset() {
        fixture.pipeline.reset();
        fixture.requests.reset();
    }

    @AfterAll
    void close() {
        fixture.close();
    }

    @Test
    void happyPathReleasesWhatTheDataImpliesAndEveryInvariantHolds() throws Exception {
        SyntheticData.Expected expected = fixture.load(120, 0.2, 1);
        long started = System.nanoTime();
        ExecutionFollower.Followed run = fixture.run("reconcile-2026-12-01");
        System.out.printf("happy path: %d authorisations, %.1f s, %d state transitions, %s Lambda invocations%n",
                expected.authorisations(), (System.nanoTime() - started) / 1e9, run.stateTransitions(), fixture.pipeline.invocationCounts());

        assertThat(run.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        JsonNode summary = Json.mapper().readTree(run.output().orElseThrow());
        assertThat(summary.path("reconcile").path("candidates").asLong()).isEqualTo(expected.due());
        assertThat(summary.path("reconcile").path("releaseRequested").asLong()).isEqualTo(expected.releasable());
        assertThat(summary.path("reconcile").path("skippedSettled").asLong()).isEqualTo(expected.dueAndSettled());
        assertThat(summary.path("delivery").path("delivered").asLong()).isEqualTo(expected.releasable());
        assertThat(fixture.effects()).hasSize(expected.releasable()).allSatisfy(e -> assertThat(e.performed()).isEqualTo(1));
        InvariantAudit.Report audit = fixture.audit(true);
        assertThat(audit.violations()).isEmpty();
        assertThat(audit.invariants()).containsOnlyKeys("I1", "I2", "I3", "I4", "I5").doesNotContainValue(false);
    }

    @Test
    void aTransientLambdaErrorOnReconcilePageIsRetriedByTheWorkflow() {
        SyntheticData.Expected expected = fixture.load(40, 0.1, 2);
        fixture.pipeline.hook(new InvocationHook() {
            @Override
            public InjectedFailure before(LambdaFunction function, int invocation, byte[] payload) {
                return function == LambdaFunction.RECONCILE_PAGE && invocation == 1
                        ? InjectedFailure.serviceException("injected: the Lambda service failed this invoke") : null;
            }
        });
        ExecutionFollower.Followed run = fixture.run("reconcile-2026-12-01");

        assertThat(run.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(failures(run.events())).containsExactly("Lambda.ServiceException");
        assertThat(run.retries()).isEqualTo(1);
        assertThat(fixture.pipeline.invocationCounts().get(LambdaFunction.RECONCILE_PAGE)).isEqualTo(2);
        assertThat(fixture.effects()).hasSize(expected.releasable());
        assertThat(fixture.audit(true).allHold()).isTrue();
    }

    @Test
    void lambdaThrottlingAnInvokeIsLambdaTooManyRequestsExceptionWhichTheWorkflowRetries() {
        // Lambda refuses an invoke over the account's or the function's reserved concurrency with 429
        // TooManyRequestsException before running anything; Step Functions' Lambda task names it Lambda.TooManyRequestsException.
        SyntheticData.Expected expected = fixture.load(40, 0.1, 5);
        fixture.pipeline.hook(new InvocationHook() {
            @Override
            public InjectedFailure before(LambdaFunction function, int invocation, byte[] payload) {
                return function == LambdaFunction.DELIVER_COMMANDS && invocation <= 2 ? InjectedFailure.throttled("Rate Exceeded.") : null;
            }
        });
        ExecutionFollower.Followed run = fixture.run("reconcile-2026-12-01");

        assertThat(run.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(failures(run.events())).containsExactly("Lambda.TooManyRequestsException", "Lambda.TooManyRequestsException");
        assertThat(fixture.effects()).hasSize(expected.releasable()).allSatisfy(e -> assertThat(e.performed()).isEqualTo(1));
        assertThat(fixture.audit(true).allHold()).isTrue();
    }

    @Test
    void providerPerformThenDropIsRecoveredByTheSameKeyAndPerformedOnce() throws Exception {
        SyntheticData.Expected expected = fixture.load(40, 0.0, 3);
        List<String> dropped = List.of(0, 1, 2, 3, 4).stream().map(i -> Candidate.operationIdFor(String.format("auth-%08d", i))).toList();
        dropped.forEach(op -> fixture.pipeline.provider().forceNext(op, Fault.PERFORM_THEN_DROP));
        ExecutionFollower.Followed run = fixture.run("reconcile-2026-12-01");

        assertThat(run.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        for (ProviderEffect effect : fixture.effects()) {
            assertThat(effect.performed()).as(effect.operationId()).isEqualTo(1);
            if (dropped.contains(effect.operationId())) {
                assertThat(effect.requests()).as("%s was retried with the same key", effect.operationId()).isGreaterThanOrEqualTo(2);
            }
        }
        JsonNode summary = Json.mapper().readTree(run.output().orElseThrow());
        assertThat(summary.path("delivery").path("delivered").asLong()).isEqualTo(expected.releasable());
        assertThat(fixture.audit(true).allHold()).isTrue();
    }

    @Test
    void deliveryThatTimesOutAfterSuccessIsAnsweredWithoutASecondProviderEffect() {
        SyntheticData.Expected expected = fixture.load(40, 0.0, 4);
        AtomicInteger timedOut = new AtomicInteger();
        fixture.pipeline.hook(new InvocationHook() {
            @Override
            public InjectedFailure afterSuccess(LambdaFunction function, int invocation, byte[] payload, byte[] result) {
                // The first delivery call did all its work (provider calls and marks committed); Lambda reports a timeout.
                return function == LambdaFunction.DELIVER_COMMANDS && timedOut.getAndIncrement() == 0 ? InjectedFailure.timedOut(function) : null;
            }
        });
        long requestsBefore = fixture.pipeline.provider().totalRequests();
        ExecutionFollower.Followed run = fixture.run("reconcile-2026-12-01");

        assertThat(run.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(failures(run.events())).containsExactly("Sandbox.Timedout");
        assertThat(fixture.effects()).hasSize(expected.releasable()).allSatisfy(e -> assertThat(e.performed()).isEqualTo(1));
        assertThat(fixture.pipeline.provider().totalRequests() - requestsBefore).as("no command was sent twice")
                .isEqualTo(expected.releasable());
        assertThat(fixture.audit(true).allHold()).isTrue();
    }

    @Test
    void aSecondRunOfTheSameWindowFindsNothingLeftAndCallsNoProvider() throws Exception {
        SyntheticData.Expected expected = fixture.load(40, 0.1, 5);
        assertThat(fixture.run("reconcile-2026-12-01").status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        long providerCalls = fixture.pipeline.provider().totalRequests();

        ExecutionFollower.Followed rerun = fixture.run("reconcile-2026-12-01-rerun-1");

        assertThat(rerun.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        JsonNode summary = Json.mapper().readTree(rerun.output().orElseThrow());
        assertThat(summary.path("epoch").asLong()).isEqualTo(2);
        assertThat(summary.path("reconcile").path("releaseRequested").asLong()).isZero();
        // The first run took the settled authorisations it met out of the pending index: the rerun reads nothing at all.
        assertThat(expected.dueAndSettled()).isPositive();
        assertThat(summary.path("reconcile").path("skippedSettled").asLong()).isZero();
        assertThat(summary.path("reconcile").path("candidatesRead").asLong()).isZero();
        assertThat(summary.path("delivery").path("delivered").asLong()).isZero();
        assertThat(fixture.pipeline.provider().totalRequests()).isEqualTo(providerCalls);
        assertThat(fixture.audit(true).allHold()).isTrue();
    }

    static List<String> failures(List<HistoryEvent> events) {
        return events.stream().filter(e -> e.taskFailedEventDetails() != null).map(e -> e.taskFailedEventDetails().error()).toList();
    }

    static boolean isFenced(String error) {
        return ErrorNames.FENCED.equals(error);
    }
}
