package com.payments.reconciler.harness.local;

import com.payments.reconciler.cli.operator.ExecutionFollower;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.audit.InvariantAudit;
import com.payments.reconciler.cli.UnsuccessfulStates;
import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.ErrorNames;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.Timing;
import com.payments.reconciler.workflow.WorkflowDefinition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;

/**
 * A night that fails for good at delivery (the provider is down for shard 0 through every retry), finished
 * by a redrive. moto has no {@code RedriveExecution}, so the redrive is emulated by the documented rule
 * (docs/decisions.md, Redrive): the Inline Map's failed or aborted iterations run DeliverBatch again with
 * their original input — the very Lambda payload Step Functions sent the failed task, lease token included —
 * looping while {@code more}, then ReleaseLease with what the Map would have collected. Steps that succeeded
 * are not run again. The emulated redrive comes after the lease would have expired.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedriveEndToEndTest {

    private static final int DOWN_SHARD = 0;
    private final PipelineFixture fixture = new PipelineFixture("redrive");
    private final HttpClient http = HttpClient.newHttpClient();
    private Night night;

    @BeforeEach
    void reset() {
        fixture.pipeline.reset();
        night = new Night();
        fixture.pipeline.hook(night);
    }

    @AfterAll
    void close() {
        fixture.close();
    }

    /** What Step Functions sent and got back during the night, per task: what a redrive would reuse. */
    static final class Night implements InvocationHook {
        final AtomicBoolean providerDown = new AtomicBoolean(true);
        final Map<Integer, byte[]> lastDeliveryPayload = new ConcurrentHashMap<>();
        final Map<Integer, JsonNode> finishedShards = new ConcurrentHashMap<>();
        volatile JsonNode reconcileTotals;

        @Override
        public InjectedFailure before(LambdaFunction function, int invocation, byte[] payload) {
            if (function != LambdaFunction.DELIVER_COMMANDS) {
                return null;
            }
            int shard = read(payload).path("shard").asInt();
            lastDeliveryPayload.put(shard, payload);
            return shard == DOWN_SHARD && providerDown.get()
                    ? new InjectedFailure(false, 200, ErrorNames.PROVIDER_UNAVAILABLE, "provider down: 503 Service Unavailable for every release")
                    : null;
        }

        @Override
        public InjectedFailure afterSuccess(LambdaFunction function, int invocation, byte[] payload, byte[] result) {
            JsonNode answer = read(result);
            if (function == LambdaFunction.RECONCILE_PAGE) {
                reconcileTotals = answer.path("totals");
            } else if (function == LambdaFunction.DELIVER_COMMANDS && !answer.path("more").asBoolean()) {
                finishedShards.put(read(payload).path("shard").asInt(), answer.path("totals"));
            }
            return null;
        }
    }

    @Test
    void aNightFailedAtDeliveryIsFinishedByARedriveAfterItsLeaseExpiredAndEveryInvariantHolds() {
        SyntheticData.Expected expected = fixture.load(40, 0.1, 11);
        ExecutionFollower.Followed failed = failTheNight();
        assertThat(fixture.effects().size()).as("shard 0's releases were not delivered").isLessThan(expected.releasable());
        assertThat(fixture.audit(true).invariants()).as("the window is incomplete before the redrive").containsEntry("I4", false);

        // The emulated redrive, once the provider is back and the lease has expired (nobody took over).
        night.providerDown.set(false);
        fixture.clock.advance(Timing.LEASE_DURATION.plusMinutes(10));
        Map<Integer, JsonNode> deliveries = new TreeMap<>(night.finishedShards);
        for (int shard : shardsToRedrive()) {
            Invocation last = deliverShard(night.lastDeliveryPayload.get(shard));
            assertThat(last.errorType()).as("the redriven DeliverBatch of shard %d renewed the lease it failed with", shard).isNull();
            deliveries.put(shard, last.result().path("totals"));
        }
        Invocation release = invoke(LambdaFunction.RELEASE_LEASE, releasePayload(failed, deliveries));

        assertThat(release.errorType()).as(String.valueOf(release.result())).isNull();
        assertThat(release.result().path("outcome").asText()).isEqualTo("COMPLETED");
        assertThat(release.result().path("epoch").asLong()).as("the same epoch throughout: no takeover happened").isEqualTo(1);
        assertThat(fixture.effects()).hasSize(expected.releasable()).allSatisfy(e -> assertThat(e.performed()).isEqualTo(1));
        InvariantAudit.Report audit = fixture.audit(true);
        assertThat(audit.violations()).isEmpty();
        assertThat(audit.invariants()).containsOnlyKeys("I1", "I2", "I3", "I4", "I5").doesNotContainValue(false);
        assertThat(leaseItem()).doesNotContainKey(Leases.OWNER);
        assertThat(leaseItem().get(Leases.EPOCH).n()).isEqualTo("1");
    }

    @Test
    void aRedriveAfterARerunTookOverIsFencedAndEndsSupersededWhileTheRerunFinishedTheWindow() {
        SyntheticData.Expected expected = fixture.load(40, 0.1, 12);
        failTheNight();

        // The operator reruns instead; the rerun waits out the failed run's lease, takes over at epoch 2, completes.
        night.providerDown.set(false);
        fixture.clock.advance(Timing.LEASE_DURATION.plusMinutes(1));
        ExecutionFollower.Followed rerun = fixture.run("reconcile-2026-12-01-rerun-1");
        assertThat(rerun.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        long providerRequests = fixture.pipeline.provider().totalRequests();

        // Later, someone redrives the failed night anyway: its DeliverBatch presents epoch 1.
        Invocation redriven = invoke(LambdaFunction.DELIVER_COMMANDS, night.lastDeliveryPayload.get(DOWN_SHARD));

        assertThat(redriven.errorType()).isIn(ErrorNames.SUPERSEDED);
        assertThat(redriven.result().path("errorMessage").asText()).contains("newer epoch 2");
        assertThat(catchTarget("DeliverReleases", redriven.errorType())).as("where the redriven execution goes").isEqualTo(ErrorNames.FAIL_SUPERSEDED);
        assertThat(fixture.pipeline.provider().totalRequests()).as("no provider call after the fence").isEqualTo(providerRequests);
        assertThat(fixture.effects()).hasSize(expected.releasable()).allSatisfy(e -> assertThat(e.performed()).isEqualTo(1));
        assertThat(fixture.audit(true).allHold()).isTrue();
        assertThat(leaseItem().get(Leases.EPOCH).n()).isEqualTo("2");
    }

    /** Runs the night on moto until it fails at delivery, and checks where a redrive would restart it. */
    private ExecutionFollower.Followed failTheNight() {
        ExecutionFollower.Followed failed = fixture.run("reconcile-2026-12-01");
        assertThat(failed.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(failed.error()).as("the task's own error, not a Fail state's").contains(ErrorNames.PROVIDER_UNAVAILABLE);
        assertThat(UnsuccessfulStates.of(failed.events())).as("what the CLI's redrive names as restarting, from moto's history")
                .containsExactly("DeliverReleases", "DeliverBatch");
        assertThat(WorkflowEndToEndTest.failures(failed.events())).containsOnly(ErrorNames.PROVIDER_UNAVAILABLE).hasSize(5);
        assertThat(fixture.pipeline.invocationCounts().get(LambdaFunction.RELEASE_LEASE)).as("the failure path hands nothing back").isZero();
        assertThat(leaseItem().get(Leases.OWNER).s()).as("the failed run still holds the lease").startsWith("reconcile-2026-12-01/");
        assertThat(night.finishedShards).doesNotContainKey(DOWN_SHARD);
        return failed;
    }

    /** The Map's iterations that did not succeed: a redrive runs exactly these again (developer guide, Inline Map). */
    private List<Integer> shardsToRedrive() {
        List<Integer> shards = new ArrayList<>();
        for (int shard = 0; shard < fixture.input().shards(); shard++) {
            if (!night.finishedShards.containsKey(shard)) {
                shards.add(shard);
            }
        }
        assertThat(shards).contains(DOWN_SHARD);
        return shards;
    }

    /** DeliverBatch from its original payload, then MoreInShard's loop: each next call carries the last answer as {@code batch}. */
    private Invocation deliverShard(byte[] original) {
        ObjectNode payload = (ObjectNode) read(original);
        while (true) {
            Invocation call = invoke(LambdaFunction.DELIVER_COMMANDS, bytes(payload));
            if (call.errorType() != null || !call.result().path("more").asBoolean()) {
                return call;
            }
            payload.set("batch", Json.mapper().createObjectNode().put("more", true).set("totals", call.result().path("totals")));
        }
    }

    /** ReleaseLease's Parameters applied to the state the Map would have produced: totals per shard, in shard order. */
    private byte[] releasePayload(ExecutionFollower.Followed failed, Map<Integer, JsonNode> deliveries) {
        JsonNode deliver = read(night.lastDeliveryPayload.get(DOWN_SHARD));
        ObjectNode payload = Json.mapper().createObjectNode();
        payload.set("window", deliver.path("window"));
        payload.set("lease", deliver.path("lease"));
        payload.set("reconcile", night.reconcileTotals);
        ArrayNode perShard = payload.putArray("deliveries");
        deliveries.values().forEach(perShard::add);
        assertThat(failed.executionArn()).isNotBlank();
        return bytes(payload);
    }

    record Invocation(String errorType, JsonNode result) {
    }

    /** The Lambda Invoke call Step Functions makes, to the same local endpoint and handlers. */
    private Invocation invoke(LambdaFunction function, byte[] payload) {
        URI uri = fixture.pipeline.lambdaEndpoint().resolve("/2015-03-31/functions/" + function.logicalName() + "/invocations");
        try {
            HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.ofByteArray(payload)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            JsonNode body = read(response.body());
            boolean failed = response.headers().firstValue("X-Amz-Function-Error").isPresent() || response.statusCode() != 200;
            return new Invocation(failed ? body.path("errorType").asText() : null, body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The Next of the first Catch of {@code state} in the shipped ASL that matches {@code error}. */
    private static String catchTarget(String state, String error) {
        JsonNode definition = WorkflowDefinition.shipped().tree();
        for (JsonNode catcher : definition.path("States").path(state).path("Catch")) {
            Set<String> names = new java.util.HashSet<>();
            catcher.path("ErrorEquals").forEach(n -> names.add(n.asText()));
            if (names.contains(error) || names.contains("States.ALL")) {
                return catcher.path("Next").asText();
            }
        }
        return "(uncaught)";
    }

    private Map<String, AttributeValue> leaseItem() {
        return fixture.pipeline.dynamo().getItem(b -> b.tableName(fixture.pipeline.tables().leases()).consistentRead(true)
                .key(Map.of(Leases.LEASE_NAME, AttributeValue.fromS(EnvVars.DEFAULT_LEASE_NAME)))).item();
    }

    private static JsonNode read(byte[] json) {
        try {
            return Json.mapper().readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] bytes(JsonNode json) {
        try {
            return Json.mapper().writeValueAsBytes(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
