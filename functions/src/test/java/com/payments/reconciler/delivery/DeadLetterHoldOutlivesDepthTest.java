package com.payments.reconciler.delivery;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.audit.ProviderRelease;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.reconcile.DeadLetterDepth;
import com.payments.reconciler.reconcile.HeldForFeed;
import com.payments.reconciler.reconcile.NightWideHold;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.LocalAwsClients;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.workflow.Fenced;
import com.payments.reconciler.workflow.Timing;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.sqs.SqsClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The dead-letter queue's hold does not lift by itself (docs/design.md, "Held for feed"), on moto's SQS and DynamoDB. A
 * dead-lettered message expires 14 days after its original enqueue, and a redrive empties the queue while the moved
 * settlements wait in the ingestion queue: either way the depth falls to 0 with nobody having seen them. So a call that
 * reads a non-zero depth records {@code held#*}, fenced; the next call, reading 0, is still held; only the operator's
 * clear (deleting {@code held#*}, as {@code holds clear --night-wide} does) lets the releases through. Known-bad twins:
 * the same nights without the recorded hold ({@link NightWideHold#notRecorded()}, the code before) release the settled
 * hold as soon as the depth is 0.
 */
@ExtendWith(LocalDynamo.class)
class DeadLetterHoldOutlivesDepthTest {

    @Test
    void reconcilePageRecordsTheNightWideHoldAndStaysHeldWhenTheDepthFallsToZeroUntilCleared(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1); SqsClient sqs = sqs(engine)) {
            due(w);
            String dlq = deadLettersWithOneMessage(sqs);
            HeldForFeed held = new HeldForFeed(DeadLetterDepth.queue(sqs, dlq), NightWideHold.stored(w.dynamo, engine.tables().settlements()));
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);

            JsonNode first = DeliveryWorld.page(w.reconcilePage(held), w.window(), lease);
            assertThat(first.get("heldForFeed").asLong()).isEqualTo(2);
            Map<String, AttributeValue> hold = nightWideHold(w);
            assertThat(hold).as("depth 1 -> held#* recorded").isNotEmpty();
            assertThat(hold.get(Settlements.HELD_REASON).s()).contains("dead-letter queue", "about 1 messages", "2026-12-01T02:05:00Z");

            emptyTheQueue(sqs, dlq); // the message expired, or was redriven
            JsonNode second = DeliveryWorld.page(w.reconcilePage(held), w.window(), lease);
            assertThat(second.get("heldForFeed").asLong()).as("depth 0, but held#* is stored").isEqualTo(2);
            assertThat(w.commandedAuthorisations()).isEmpty();

            clearNightWideHold(w);
            JsonNode third = DeliveryWorld.page(w.reconcilePage(held), w.window(), lease);
            assertThat(third.get("heldForFeed").asLong()).isZero();
            assertThat(w.commandedAuthorisations()).as("released after the operator's clear").containsExactly("auth-1", "auth-2");
        }
    }

    @Test
    void knownBadWithoutTheRecordedHoldTheDepthFallingToZeroLetsTheReleaseThrough(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1); SqsClient sqs = sqs(engine)) {
            due(w);
            String dlq = deadLettersWithOneMessage(sqs);
            HeldForFeed held = new HeldForFeed(DeadLetterDepth.queue(sqs, dlq), NightWideHold.notRecorded());
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);

            assertThat(DeliveryWorld.page(w.reconcilePage(held), w.window(), lease).get("heldForFeed").asLong()).isEqualTo(2);
            emptyTheQueue(sqs, dlq);
            DeliveryWorld.page(w.reconcilePage(held), w.window(), lease);

            assertThat(nightWideHold(w)).isEmpty();
            assertThat(w.commandedAuthorisations()).as("nobody saw the dead-lettered settlement, yet the releases are commanded")
                    .containsExactly("auth-1", "auth-2");
        }
    }

    @Test
    void deliverCommandsRecordsTheNightWideHoldAndSendsNothingUntilCleared(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1); SqsClient sqs = sqs(engine)) {
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
            List<String> ops = w.command(lease, "auth-1", "auth-2");
            String dlq = deadLettersWithOneMessage(sqs);
            DeliverCommandsHandler handler = w.handlerBuilder(w.fixedGuard(), 2, w.client()).deadLetters(DeadLetterDepth.queue(sqs, dlq))
                    .nightWide(NightWideHold.stored(w.dynamo, engine.tables().settlements())).build();

            w.invoke(handler, lease, 0, DeliveryBatch.FIRST, new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT));
            assertThat(nightWideHold(w)).as("depth 1 -> held#* recorded").isNotEmpty();
            assertThat(nightWideHold(w).get(Settlements.HELD_REASON).s()).contains("DeliverCommands");

            emptyTheQueue(sqs, dlq);
            DeliveryBatch second = w.invoke(handler, lease, 0, DeliveryBatch.FIRST, new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT));
            assertThat(w.provider.releases()).as("depth 0, but held#* is stored: nothing sent").isEmpty();
            ops.forEach(op -> assertThat(w.status(op)).isEqualTo(ReleaseCommands.STATUS_PENDING));
            assertThat(second.totals().heldForFeed()).isEqualTo(2);

            clearNightWideHold(w);
            w.invoke(handler, lease, 0, DeliveryBatch.FIRST, new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT));
            assertThat(w.releases()).extracting(ProviderRelease::authorisationId).containsExactlyInAnyOrder("auth-1", "auth-2");
        }
    }

    @Test
    void knownBadDeliveryWithoutTheRecordedHoldSendsOnceTheDepthIsZero(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1); SqsClient sqs = sqs(engine)) {
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
            w.command(lease, "auth-1", "auth-2");
            String dlq = deadLettersWithOneMessage(sqs);
            DeliverCommandsHandler handler = w.handlerBuilder(w.fixedGuard(), 2, w.client()).deadLetters(DeadLetterDepth.queue(sqs, dlq))
                    .nightWide(NightWideHold.notRecorded()).build();

            w.invoke(handler, lease, 0, DeliveryBatch.FIRST, new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT));
            emptyTheQueue(sqs, dlq);
            w.invoke(handler, lease, 0, DeliveryBatch.FIRST, new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT));

            assertThat(w.releases()).extracting(ProviderRelease::authorisationId).as("released though nobody saw the dead-lettered message")
                    .contains("auth-1");
        }
    }

    @Test
    void anUnreadableQueueHoldsThatCallOnlyAndRecordsNothing(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1); SqsClient sqs = sqs(engine)) {
            due(w);
            DeadLetterDepth missing = DeadLetterDepth.queue(sqs, sqs.createQueue(b -> b.queueName("gone-" + UUID.randomUUID())).queueUrl() + "-missing");
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);

            JsonNode totals = DeliveryWorld.page(w.reconcilePage(new HeldForFeed(missing, NightWideHold.stored(w.dynamo, engine.tables().settlements()))),
                    w.window(), lease);

            assertThat(totals.get("heldForFeed").asLong()).isEqualTo(2);
            assertThat(nightWideHold(w)).as("a transient AccessDenied must not stick").isEmpty();
        }
    }

    @Test
    void aHoldAlreadyStoredIsReadOnceAndNotWrittenAgain(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1); SqsClient sqs = sqs(engine)) {
            String dlq = deadLettersWithOneMessage(sqs);
            ingestionHeldTheNight(w);
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
            java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
            software.amazon.awssdk.services.dynamodb.DynamoDbClient counted = engine.client(new software.amazon.awssdk.core.interceptor.ExecutionInterceptor() {
                @Override
                public void beforeExecution(software.amazon.awssdk.core.interceptor.Context.BeforeExecution context,
                                            software.amazon.awssdk.core.interceptor.ExecutionAttributes attributes) {
                    calls.incrementAndGet();
                }
            });

            NightWideHold.Outcome outcome = NightWideHold.stored(counted, engine.tables().settlements()).record(DeadLetterDepth.queue(sqs, dlq).read(),
                    new com.payments.reconciler.reconcile.FencedWriter(counted, engine.tables(), DeliveryWorld.NO_WAIT), lease, w.clock.instant(), "ReconcilePage");

            assertThat(outcome).isEqualTo(NightWideHold.Outcome.ALREADY_HELD);
            assertThat(calls.get()).as("one GetItem, no write").isEqualTo(1);
            assertThat(nightWideHold(w).get(Settlements.HELD_REASON).s()).as("IngestEvents' reason kept").isEqualTo("INVALID_JSON body");
        }
    }

    @Test
    void theWriteIsConditionalSoAHoldStoredBetweenTheReadAndTheWriteIsKept(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1); SqsClient sqs = sqs(engine)) {
            String dlq = deadLettersWithOneMessage(sqs);
            ingestionHeldTheNight(w);
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);

            // A presence read that misses it (IngestEvents wrote it just after): the Put's condition keeps the first reason.
            NightWideHold.Outcome outcome = NightWideHold.of(() -> false).record(DeadLetterDepth.queue(sqs, dlq).read(),
                    new com.payments.reconciler.reconcile.FencedWriter(w.dynamo, engine.tables(), DeliveryWorld.NO_WAIT), lease, w.clock.instant(), "ReconcilePage");

            assertThat(outcome).isEqualTo(NightWideHold.Outcome.ALREADY_HELD);
            assertThat(nightWideHold(w).get(Settlements.HELD_REASON).s()).isEqualTo("INVALID_JSON body");
        }
    }

    @Test
    void aStaleLeaseRecordsNoHold(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1); SqsClient sqs = sqs(engine)) {
            LeaseToken stale = w.acquire("worker-A", Timing.LEASE_DURATION);
            // A lease a takeover has moved on from: the same owner, another epoch.
            LeaseToken wrongEpoch = new LeaseToken(stale.leaseName(), stale.ownerId(), stale.epoch() + 7);
            String dlq = deadLettersWithOneMessage(sqs);

            assertThatThrownBy(() -> NightWideHold.stored(w.dynamo, engine.tables().settlements()).record(
                    DeadLetterDepth.queue(sqs, dlq).read(), new com.payments.reconciler.reconcile.FencedWriter(w.dynamo, engine.tables(), DeliveryWorld.NO_WAIT),
                    wrongEpoch, w.clock.instant(), "ReconcilePage")).isInstanceOf(Fenced.class);
            assertThat(nightWideHold(w)).isEmpty();
        }
    }

    /** A dead-letter queue holding one message SQS's redrive moved there. */
    private static String deadLettersWithOneMessage(SqsClient sqs) {
        String dlq = sqs.createQueue(b -> b.queueName("dlq-" + UUID.randomUUID())).queueUrl();
        sqs.sendMessage(b -> b.queueUrl(dlq).messageBody("a settlement SQS moved here"));
        return dlq;
    }

    /** The night-wide hold IngestEvents writes for a body it could not read. */
    private static void ingestionHeldTheNight(DeliveryWorld w) {
        w.dynamo.putItem(b -> b.tableName(w.engine.tables().settlements()).item(Map.of(
                Settlements.AUTHORISATION_ID, AttributeValue.fromS(Settlements.NIGHT_WIDE_HOLD_KEY),
                Settlements.HELD_AT, AttributeValue.fromN("1"), Settlements.HELD_REASON, AttributeValue.fromS("INVALID_JSON body"))));
    }

    private static Map<String, AttributeValue> nightWideHold(DeliveryWorld w) {
        return w.dynamo.getItem(b -> b.tableName(w.engine.tables().settlements()).consistentRead(true)
                .key(Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS(Settlements.NIGHT_WIDE_HOLD_KEY)))).item();
    }

    /** What {@code holds clear --night-wide} does to the hold itself (its cleared-hold record aside). */
    private static void clearNightWideHold(DeliveryWorld w) {
        w.dynamo.deleteItem(b -> b.tableName(w.engine.tables().settlements())
                .key(Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS(Settlements.NIGHT_WIDE_HOLD_KEY))));
    }

    private static void emptyTheQueue(SqsClient sqs, String queue) {
        sqs.receiveMessage(b -> b.queueUrl(queue).maxNumberOfMessages(10)).messages()
                .forEach(m -> sqs.deleteMessage(b -> b.queueUrl(queue).receiptHandle(m.receiptHandle())));
        assertThat(DeadLetterDepth.queue(sqs, queue).read()).isInstanceOf(DeadLetterDepth.Empty.class);
    }

    private static SqsClient sqs(LocalDynamo.Engine engine) {
        return new LocalAwsClients(engine.moto().endpoint()).sqs();
    }

    private static void due(DeliveryWorld w) {
        w.ingestion.watermark("wm-now", w.clock.instant().minus(Duration.ofMinutes(5)));
        List.of("auth-1", "auth-2").forEach(id -> w.ingestion.authorise(id, 1_000, DeliveryWorld.CUTOFF.minus(Duration.ofHours(1))));
    }
}
