package com.payments.reconciler.delivery;

import com.payments.reconciler.ingest.IngestOutcome;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.workflow.Timing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.Optional;
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
    private String op;

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

    /**
     * An error Adyen stored under the key (IOEXCEPTION_RECEIVED) acknowledges the command without naming a request, so
     * the CANCELLATION notification that names the cancel's own reference ends it. Known-bad twin: the acknowledgement
     * recording a made-up reference in requestReference (as it once did) makes ingestion refuse that notification, and
     * the command would wait ACKNOWLEDGED for the timeout's escalation although Adyen said what happened.
     */
    @Test
    void aStoredErrorsAcknowledgementIsEndedByTheNotificationThatFollows(LocalDynamo.Engine engine) {
        assertThat(notificationAfter(engine, ProviderResult.Acknowledged.ofStoredError("500 errorCode '000'")))
                .isInstanceOf(IngestOutcome.Accepted.class);
        assertThat(world.status(op)).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        assertThat(world.command(op).get(ReleaseCommands.REQUEST_REFERENCE).s()).isEqualTo("CANCEL1");
        assertThat(world.command(op).get(ReleaseCommands.STORED_ERROR).s()).isEqualTo("500 errorCode '000'");
    }

    @Test
    void knownBadAStoredErrorRecordedAsARequestReferenceLeavesTheNotificationRefused(LocalDynamo.Engine engine) {
        assertThat(notificationAfter(engine, new ProviderResult.Acknowledged("storederror500")))
                .isInstanceOf(IngestOutcome.Refused.class);
        assertThat(world.status(op)).isEqualTo(ReleaseCommands.STATUS_ACKNOWLEDGED);
    }

    /** One command for auth-1 acknowledged with {@code answer}, then Adyen's CANCELLATION for its cancel CANCEL1 ingested. */
    private IngestOutcome notificationAfter(LocalDynamo.Engine engine, ProviderResult answer) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = world.acquire("worker-A", Timing.LEASE_DURATION);
        op = world.command(lease, id -> Optional.of("PAY1"), "auth-1").getFirst();
        world.invoke(world.handler(world.fixedGuard(), 1, command -> answer), lease, 0, null, context);
        assertThat(world.status(op)).isEqualTo(ReleaseCommands.STATUS_ACKNOWLEDGED);
        return world.outcomeIngestion().ingest("""
                {"version":2,"type":"provider.outcome","eventId":"adyen-CANCEL1-success","authorisationId":"auth-1",\
                "operationId":"%s","provider":"adyen","requestReference":"CANCEL1","paymentReference":"PAY1",\
                "success":true,"occurredAt":"2026-12-06T04:00:00+01:00"}""".formatted(op));
    }
}
