package com.payments.reconciler.delivery;

import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.workflow.Timing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An asynchronous provider's {@code received} through the real delivery call: each command is marked ACKNOWLEDGED by the
 * fenced mark (with the cancel's reference, out of the delivery index), counted in the totals and the metric, and a
 * second delivery call sends nothing again. Known-bad proof: a provider answering {@code Released} instead ends the
 * commands DELIVERED and counts none acknowledged ({@link #aSynchronousAnswerIsNotCountedAsAcknowledged}).
 */
@ExtendWith(LocalDynamo.class)
class AcknowledgedCommandsTest {

    private final TestContext context = new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT);
    private DeliveryWorld world;

    @AfterEach
    void close() {
        if (world != null) {
            world.close();
        }
    }

    @Test
    void receivedMarksTheCommandsAcknowledgedOnceAndTheyAreNotSentAgain(LocalDynamo.Engine engine) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = world.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = world.command(lease, "auth-1", "auth-2", "auth-3");
        AtomicInteger requests = new AtomicInteger();
        ProviderClient adyenLike = command -> {
            requests.incrementAndGet();
            return new ProviderResult.Acknowledged("CANCEL" + command.authorisationId().replace("-", ""));
        };

        DeliveryBatch first = world.invoke(world.handler(world.fixedGuard(), 2, adyenLike), lease, 0, null, context);

        for (String op : ops) {
            assertThat(world.status(op)).isEqualTo(ReleaseCommands.STATUS_ACKNOWLEDGED);
            assertThat(world.command(op)).doesNotContainKey(ReleaseCommands.DELIVERY_SHARD)
                    .containsKey(ReleaseCommands.ACKNOWLEDGED_AT);
        }
        assertThat(world.command(ops.get(0)).get(ReleaseCommands.REQUEST_REFERENCE).s()).isEqualTo("CANCELauth1");
        assertThat(first.totals().acknowledged()).isEqualTo(3);
        assertThat(first.totals().delivered()).isZero();
        assertThat(world.metricLines).anySatisfy(line -> assertThat(line).contains("\"DeliveryAcknowledged\":3"));
        assertThat(requests).hasValue(3);

        world.invoke(world.handler(world.fixedGuard(), 2, adyenLike), lease, 0, null, context);
        assertThat(requests).as("an ACKNOWLEDGED command is out of the delivery index: not sent again").hasValue(3);
    }

    @Test
    void aSynchronousAnswerIsNotCountedAsAcknowledged(LocalDynamo.Engine engine) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = world.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = world.command(lease, "auth-1");
        ProviderClient released = command -> new ProviderResult.Released("PRV-1");

        DeliveryBatch result = world.invoke(world.handler(world.fixedGuard(), 2, released), lease, 0, null, context);

        assertThat(world.status(ops.get(0))).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        assertThat(result.totals().acknowledged()).isZero();
    }
}
