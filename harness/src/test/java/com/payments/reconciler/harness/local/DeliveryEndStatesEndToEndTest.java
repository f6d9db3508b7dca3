package com.payments.reconciler.harness.local;

import com.payments.reconciler.cli.operator.ExecutionFollower;

import static com.payments.reconciler.store.Attr.n;
import static com.payments.reconciler.store.Attr.s;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.audit.InvariantAudit;
import com.payments.reconciler.audit.ProviderRelease;
import com.payments.reconciler.harness.HarnessCli;
import com.payments.reconciler.local.provider.Fault;
import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.store.Attr;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.LambdaFunction;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;

/**
 * Delivery's end states, on the shipped ASL in moto with the real handlers: settlements arriving
 * between decision and delivery are never released (I3 checked at the provider call from the provider's effect
 * log and the Settlements table), and answers outside the provider's contract quarantine their commands while the
 * night still succeeds; an operator requeues them and a rerun delivers them, released once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeliveryEndStatesEndToEndTest {

    private final PipelineFixture fixture = new PipelineFixture("end-states");

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
    void settlementsArrivingBetweenDecisionAndDeliveryAreNeverReleased() throws Exception {
        SyntheticData.Expected expected = fixture.load(60, 0.0, 11);
        List<String> settledLate = new ArrayList<>();
        Object gate = new Object();
        fixture.pipeline.hook(new InvocationHook() {
            @Override
            public InjectedFailure before(LambdaFunction function, int invocation, byte[] payload) {
                if (function != LambdaFunction.DELIVER_COMMANDS) {
                    return null;
                }
                // Every shard's first delivery waits here until the settlements are in: none can read before them.
                synchronized (gate) {
                    if (settledLate.isEmpty()) {
                        for (Map<String, AttributeValue> command : pendingCommands().subList(0, 5)) {
                            String id = command.get(ReleaseCommands.AUTHORISATION_ID).s();
                            fixture.pipeline.dynamo().putItem(b -> b.tableName(fixture.pipeline.tables().settlements()).item(Map.of(
                                    Settlements.AUTHORISATION_ID, s(id), Settlements.SETTLED_AT, n(fixture.clock.millis()))));
                            settledLate.add(id);
                        }
                    }
                }
                return null;
            }
        });

        ExecutionFollower.Followed run = fixture.run("reconcile-2026-12-01");

        assertThat(run.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(settledLate).hasSize(5);
        for (String id : settledLate) {
            assertThat(status(Candidate.operationIdFor(id))).isEqualTo(ReleaseCommands.STATUS_CANCELLED_SETTLED);
            assertThat(fixture.pipeline.provider().effect(Candidate.operationIdFor(id)).requests()).as("%s never sent", id).isZero();
        }
        JsonNode summary = Json.mapper().readTree(run.output().orElseThrow());
        assertThat(summary.at("/delivery/cancelledSettled").asLong()).isEqualTo(5);
        assertThat(summary.at("/delivery/delivered").asLong()).isEqualTo(expected.releasable() - 5);
        InvariantAudit.Report audit = fixture.audit(true);
        assertThat(audit.violations()).isEmpty();

        // The same check fails on a provider that released one of them after its settlement (a known-bad effect log).
        PipelineEvidence evidence = PipelineEvidence.of(fixture.pipeline);
        List<ProviderRelease> doctored = new ArrayList<>(evidence.releases());
        String victim = settledLate.getFirst();
        doctored.add(new ProviderRelease(victim, Candidate.operationIdFor(victim), fixture.clock.millis() + 1));
        InvariantAudit.Report bad = evidence.withReleases(doctored).audit(null);
        assertThat(bad.violations()).anySatisfy(v -> {
            assertThat(v.invariant()).isEqualTo("I3");
            assertThat(v.detail()).contains(victim, "after its settlement");
        });
    }

    @Test
    void answersOutsideTheContractQuarantineTheirCommandsTheNightSucceedsAndARequeueDeliversThemOnce() throws Exception {
        SyntheticData.Expected expected = fixture.load(40, 0.0, 12);
        List<String> garbled = List.of(1, 2, 3).stream().map(i -> Candidate.operationIdFor(String.format("auth-%08d", i))).toList();
        garbled.forEach(op -> fixture.pipeline.provider().forceNext(op, Fault.MALFORMED));

        ExecutionFollower.Followed night = fixture.run("reconcile-2026-12-01");

        assertThat(night.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        garbled.forEach(op -> assertThat(status(op)).as(op).isEqualTo(ReleaseCommands.STATUS_QUARANTINED));
        JsonNode summary = Json.mapper().readTree(night.output().orElseThrow());
        assertThat(summary.at("/delivery/quarantined").asLong()).isEqualTo(3);
        assertThat(summary.at("/delivery/delivered").asLong()).isEqualTo(expected.releasable() - 3);
        InvariantAudit.Report audit = fixture.audit(true);
        assertThat(audit.violations()).isEmpty();
        assertThat(audit.parkedCommands()).isEqualTo(3);

        String table = fixture.pipeline.tables().releaseCommands();
        String endpoint = fixture.pipeline.engineEndpoint().toString();
        Cli list = cli("commands", "list", "--status", "QUARANTINED", "--commands-table", table, "--endpoint-url", endpoint, "--region", StateMachineDeployer.LOCAL_REGION);
        assertThat(list.exit()).as(list.err()).isZero();
        assertThat(list.out()).contains(garbled.toArray(String[]::new)).contains("3 parked commands", "status 200", "502 Bad Gateway");
        for (String op : garbled) {
            Cli requeue = cli("commands", "requeue", "--operation-id", op, "--note", "provider: released, answer lost behind its proxy",
                    "--commands-table", table, "--endpoint-url", endpoint, "--region", StateMachineDeployer.LOCAL_REGION);
            assertThat(requeue.exit()).as(requeue.err()).isZero();
            assertThat(requeue.out()).contains("requeued " + op + " to PENDING");
        }
        Cli again = cli("commands", "requeue", "--operation-id", garbled.getFirst(), "--note", "twice",
                "--commands-table", table, "--endpoint-url", endpoint, "--region", StateMachineDeployer.LOCAL_REGION);
        assertThat(again.exit()).isEqualTo(1);
        assertThat(again.err()).contains("is not parked (PENDING)", "nothing was written");

        ExecutionFollower.Followed rerun = fixture.run("reconcile-2026-12-01-rerun-1");

        assertThat(rerun.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        for (String op : garbled) {
            assertThat(status(op)).as(op).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
            // MALFORMED performed the release the first time; the resend under the same key is answered, not performed.
            assertThat(fixture.pipeline.provider().effect(op).performed()).as(op).isEqualTo(1);
            assertThat(fixture.pipeline.provider().effect(op).requests()).as(op).isEqualTo(2);
        }
    }

    @Test
    void badOperatorInputIsRefusedNamingTheFieldAndWritesNothing() {
        String endpoint = fixture.pipeline.engineEndpoint().toString();
        Cli status = cli("commands", "list", "--status", "PENDING", "--commands-table", "t-ReleaseCommands", "--endpoint-url", endpoint, "--region", StateMachineDeployer.LOCAL_REGION);
        assertThat(status.exit()).isEqualTo(2);
        assertThat(status.err()).contains("--status must be one of QUARANTINED, ESCALATED, ACKNOWLEDGED, was PENDING");
        Cli id = cli("commands", "requeue", "--operation-id", "auth-1", "--note", "x", "--commands-table", "t-ReleaseCommands",
                "--endpoint-url", endpoint, "--region", StateMachineDeployer.LOCAL_REGION);
        assertThat(id.exit()).isEqualTo(2);
        assertThat(id.err()).contains("--operation-id must be release-hold:{authorisationId}, was auth-1");
        Cli unknown = cli("commands", "requeue", "--operation-id", "release-hold:nobody", "--note", "x",
                "--commands-table", fixture.pipeline.tables().releaseCommands(), "--endpoint-url", endpoint, "--region", StateMachineDeployer.LOCAL_REGION);
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.err()).contains("--operation-id: no command release-hold:nobody");
    }

    private List<Map<String, AttributeValue>> pendingCommands() {
        return fixture.pipeline.dynamo().scan(b -> b.tableName(fixture.pipeline.tables().releaseCommands()).consistentRead(true))
                .items().stream().filter(c -> ReleaseCommands.STATUS_PENDING.equals(Attr.stringOr(c, ReleaseCommands.STATUS, "")))
                .sorted(java.util.Comparator.comparing(c -> c.get(ReleaseCommands.OPERATION_ID).s())).toList();
    }

    private String status(String operationId) {
        return fixture.pipeline.dynamo().getItem(b -> b.tableName(fixture.pipeline.tables().releaseCommands()).consistentRead(true)
                .key(Map.of(ReleaseCommands.OPERATION_ID, s(operationId)))).item().get(ReleaseCommands.STATUS).s();
    }

    private record Cli(int exit, String out, String err) {
    }

    private static Cli cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = HarnessCli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Cli(exit, out.toString(), err.toString());
    }
}
