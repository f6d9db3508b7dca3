package com.payments.reconciler.delivery;

import com.payments.reconciler.ingest.IngestEvent;
import com.payments.reconciler.ingest.ProviderOutcomes;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.reconcile.FencedWriter;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.workflow.Fenced;
import com.payments.reconciler.workflow.ProviderOutcomeTimeout;
import com.payments.reconciler.workflow.Timing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The providerOutcomeTimeout sweep through the real delivery call against the local engines: commands ACKNOWLEDGED
 * longer than the timeout without an outcome are ESCALATED by the next delivery of their shard (fenced, parked with
 * their shard, out of the awaiting-outcome index, counted as escalated and in DeliveryOutcomeOverdue, never sent again);
 * one that waited exactly the timeout stays, and one whose outcome was ingested keeps it. Known-bad proofs: a delivery
 * under a superseded lease escalates nothing ({@link #aSupersededDeliveryEscalatesNothing}), and an outcome arriving
 * after the escalation finds the command parked and changes nothing ({@link #anOutcomeAfterTheEscalationChangesNothing}).
 */
@ExtendWith(LocalDynamo.class)
class OutcomeTimeoutSweepTest {

    private static final ProviderOutcomeTimeout TIMEOUT = new ProviderOutcomeTimeout(Duration.ofHours(2));
    private final TestContext context = new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT);
    private DeliveryWorld world;

    @AfterEach
    void close() {
        if (world != null) {
            world.close();
        }
    }

    private DeliverCommandsHandler handler(ProviderClient client) {
        return world.handlerBuilder(world.fixedGuard(), 2, client)
                .facts(new FactsReader(world.dynamo, world.engine.tables(), Backoff.standard(1), world.clock))
                .writer(new FencedWriter(world.dynamo, world.engine.tables(), Backoff.standard(1)))
                .providerRetry(Backoff.standard(1)).outcomeTimeout(TIMEOUT).build();
    }

    private static ProviderClient acknowledging(List<String> sent) {
        return command -> {
            sent.add(command.operationId());
            return new ProviderResult.Acknowledged("CANCEL" + command.authorisationId().replace("-", ""));
        };
    }

    private IngestEvent.ProviderOutcome outcome(String op, String auth) {
        return new IngestEvent.ProviderOutcome("outcome-" + auth, auth, op, "adyen", "CANCEL" + auth.replace("-", ""),
                "PAY" + auth.replace("-", ""), true, Optional.empty(), Optional.empty());
    }

    @Test
    void overdueAcknowledgementsAreEscalatedByTheNextDeliveryAndOutcomesWin(LocalDynamo.Engine engine) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = world.acquire("worker-A", Duration.ofDays(1));
        List<String> ops = world.command(lease, id -> Optional.of("PAY" + id.replace("-", "")), "auth-1", "auth-2", "auth-3");
        List<String> sent = new java.util.ArrayList<>();
        world.invoke(handler(acknowledging(sent)), lease, 0, null, context);
        assertThat(ops).allSatisfy(op -> assertThat(world.status(op)).isEqualTo(ReleaseCommands.STATUS_ACKNOWLEDGED));
        new ProviderOutcomes(world.dynamo, world.engine.tables().releaseCommands(), Backoff.standard(1), world.clock)
                .apply(outcome(ops.get(0), "auth-1"));

        world.clock.advance(TIMEOUT.timeout());
        DeliveryBatch atTheTimeout = world.invoke(handler(acknowledging(sent)), lease, 0, null, context);
        assertThat(atTheTimeout.totals().escalated()).as("exactly the timeout is not overdue").isZero();
        assertThat(world.status(ops.get(1))).isEqualTo(ReleaseCommands.STATUS_ACKNOWLEDGED);

        world.clock.advance(Duration.ofMillis(1));
        DeliveryBatch past = world.invoke(handler(acknowledging(sent)), lease, 0, null, context);

        assertThat(world.status(ops.get(0))).as("its outcome arrived: kept").isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        for (String op : ops.subList(1, 3)) {
            assertThat(world.status(op)).isEqualTo(ReleaseCommands.STATUS_ESCALATED);
            assertThat(world.command(op).get(ReleaseCommands.PARKED_STATUS).s()).isEqualTo(ReleaseCommands.STATUS_ESCALATED);
            assertThat(world.command(op).get(ReleaseCommands.END_REASON).s()).contains("providerOutcomeTimeout PT2H");
            assertThat(world.command(op)).doesNotContainKey(ReleaseCommands.AWAITING_SHARD)
                    .containsKey(ReleaseCommands.PARKED_SHARD);
        }
        assertThat(world.command(ops.get(0))).doesNotContainKey(ReleaseCommands.AWAITING_SHARD);
        assertThat(past.totals().escalated()).isEqualTo(2);
        assertThat(world.metricLines).anySatisfy(line -> assertThat(line).contains("\"DeliveryOutcomeOverdue\":2"));
        assertThat(sent).as("each sent once, never again").containsExactlyInAnyOrderElementsOf(ops);

        DeliveryBatch again = world.invoke(handler(acknowledging(sent)), lease, 0, null, context);
        assertThat(again.totals().escalated()).as("escalated once: out of the index").isZero();
    }

    @Test
    void aSupersededDeliveryEscalatesNothing(LocalDynamo.Engine engine) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken stale = world.acquire("worker-A", Duration.ofHours(1));
        List<String> ops = world.command(stale, "auth-1");
        world.invoke(handler(acknowledging(new java.util.ArrayList<>())), stale, 0, null, context);
        world.clock.advance(TIMEOUT.timeout().plusHours(1));
        world.acquire("worker-B", Duration.ofHours(1));

        assertThatThrownBy(() -> world.invoke(handler(acknowledging(new java.util.ArrayList<>())), stale, 0, null, context))
                .isInstanceOfAny(Fenced.class, com.payments.reconciler.workflow.LeaseLost.class);
        assertThat(world.status(ops.get(0))).isEqualTo(ReleaseCommands.STATUS_ACKNOWLEDGED);
    }

    @Test
    void anOutcomeAfterTheEscalationChangesNothing(LocalDynamo.Engine engine) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = world.acquire("worker-A", Duration.ofDays(1));
        List<String> ops = world.command(lease, id -> Optional.of("PAY" + id.replace("-", "")), "auth-1");
        world.invoke(handler(acknowledging(new java.util.ArrayList<>())), lease, 0, null, context);
        world.clock.advance(TIMEOUT.timeout().plusMinutes(1));
        world.invoke(handler(acknowledging(new java.util.ArrayList<>())), lease, 0, null, context);
        assertThat(world.status(ops.get(0))).isEqualTo(ReleaseCommands.STATUS_ESCALATED);

        new ProviderOutcomes(world.dynamo, world.engine.tables().releaseCommands(), Backoff.standard(1), world.clock)
                .apply(outcome(ops.get(0), "auth-1"));
        assertThat(world.status(ops.get(0))).as("parked for a person: the late outcome is kept aside").isEqualTo(ReleaseCommands.STATUS_ESCALATED);
    }
}
