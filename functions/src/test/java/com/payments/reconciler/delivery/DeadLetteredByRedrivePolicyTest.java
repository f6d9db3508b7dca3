package com.payments.reconciler.delivery;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.audit.InvariantAudit;
import com.payments.reconciler.audit.ProviderRelease;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.reconcile.DeadLetterDepth;
import com.payments.reconciler.reconcile.HeldForFeed;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.LocalAwsClients;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.workflow.Timing;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario "a message SQS itself moved to the ingestion dead-letter queue" (throttling, a bad deploy of IngestEvents:
 * {@code maxReceiveCount} receives without a delete), on moto's SQS and DynamoDB: the message never reached our code as
 * a refusal, so no hold item names it. While the dead-letter queue holds it, ReconcilePage commands no release (counted
 * {@code heldForFeed}) and DeliverCommands sends nothing already commanded (its commands stay PENDING, counted
 * {@code heldForFeed}); a queue that cannot be read holds the same. The known-bad twins are the same nights with the
 * queue not read (the code before: {@link DeadLetterDepth#empty()}): the release of the settled hold is commanded, and
 * sent.
 */
@ExtendWith(LocalDynamo.class)
class DeadLetteredByRedrivePolicyTest {

    /** auth-1's settlement: it is what sits in the dead-letter queue. */
    private static final String SETTLEMENT = """
            {"version":1,"type":"settlement.posted","eventId":"evt-settle-auth-1","authorisationId":"auth-1",\
            "amountMinor":1000,"currency":"EUR","settledAt":"2026-11-30T10:00:00Z"}""";

    @Test
    void aSettlementTheRedrivePolicyDeadLetteredHoldsTheWholeNight(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1); SqsClient sqs = sqs(engine)) {
            due(w);
            String deadLetters = redriveOneSettlement(sqs);

            JsonNode totals = DeliveryWorld.page(w.reconcilePage(new HeldForFeed(DeadLetterDepth.queue(sqs, deadLetters))), w.window(),
                    w.acquire("worker-A", Timing.LEASE_DURATION));

            assertThat(totals.get("heldForFeed").asLong()).isEqualTo(2);
            assertThat(totals.get("releaseRequested").asLong()).isZero();
            assertThat(w.commandedAuthorisations()).as("no release commanded while the dead-letter queue holds a message").isEmpty();

            // I4 counts them held, not lost, when the audit is told the queue held the night; told it did not (known-bad), it
            // names each due authorisation as lost.
            InvariantAudit audit = new InvariantAudit(engine.tables());
            assertThat(audit.audit(engine.snapshot(), engine.writes(), w.releases(),
                    new InvariantAudit.Completion(DeliveryWorld.CUTOFF, true, 0, true)).violations()).isEmpty();
            assertThat(audit.audit(engine.snapshot(), engine.writes(), w.releases(),
                    new InvariantAudit.Completion(DeliveryWorld.CUTOFF, true, 0, false)).violations())
                    .extracting(InvariantAudit.Violation::detail).contains("auth-1 is AUTHORISED with command none");
        }
    }

    @Test
    void knownBadTheNightThatDoesNotReadTheDeadLetterQueueCommandsTheSettledHoldsRelease(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1); SqsClient sqs = sqs(engine)) {
            due(w);
            redriveOneSettlement(sqs);

            JsonNode totals = DeliveryWorld.page(w.reconcilePage(new HeldForFeed(DeadLetterDepth.empty())), w.window(), w.acquire("worker-A", Timing.LEASE_DURATION));

            assertThat(totals.get("heldForFeed").asLong()).isZero();
            assertThat(w.commandedAuthorisations()).as("the platform settled auth-1, yet its release is commanded")
                    .containsExactly("auth-1", "auth-2");
        }
    }

    @Test
    void commandsDecidedBeforeTheMessageWasDeadLetteredAreNotSentAndStayPending(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1); SqsClient sqs = sqs(engine)) {
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
            List<String> ops = w.command(lease, "auth-1", "auth-2");
            String deadLetters = redriveOneSettlement(sqs);

            DeliveryBatch batch = w.invoke(w.handler(w.fixedGuard(), 2, DeadLetterDepth.queue(sqs, deadLetters)), lease, 0, DeliveryBatch.FIRST,
                    new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT));

            assertThat(w.provider.releases()).as("no provider call").isEmpty();
            ops.forEach(op -> assertThat(w.status(op)).isEqualTo(ReleaseCommands.STATUS_PENDING));
            assertThat(batch.more()).isFalse();
            assertThat(batch.totals().heldForFeed()).isEqualTo(2);
            assertThat(batch.totals().backlogLeft()).isEqualTo(2);
            assertThat(w.metricLines).anyMatch(line -> line.contains("\"HeldForFeed\":2"));
        }
    }

    @Test
    void knownBadTheDeliveryThatDoesNotReadTheDeadLetterQueueSendsTheSettledHoldsRelease(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1); SqsClient sqs = sqs(engine)) {
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
            w.command(lease, "auth-1", "auth-2");
            redriveOneSettlement(sqs);

            w.invoke(w.handler(w.fixedGuard(), 2, DeadLetterDepth.empty()), lease, 0, DeliveryBatch.FIRST, new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT));

            assertThat(w.releases()).extracting(ProviderRelease::authorisationId).as("auth-1's settlement is dead-lettered, yet it is released")
                    .contains("auth-1");
        }
    }

    @Test
    void anUnreadableDeadLetterQueueHoldsTheNightAndItsDelivery(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1); SqsClient sqs = sqs(engine)) {
            due(w);
            // A queue that does not exist answers like one the role may not read: an error, never a count.
            DeadLetterDepth missing = DeadLetterDepth.queue(sqs, sqs.createQueue(b -> b.queueName("gone-" + UUID.randomUUID())).queueUrl() + "-missing");
            assertThat(missing.read()).isInstanceOf(DeadLetterDepth.Unreadable.class);

            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
            JsonNode totals = DeliveryWorld.page(w.reconcilePage(new HeldForFeed(missing)), w.window(), lease);
            assertThat(totals.get("heldForFeed").asLong()).isEqualTo(2);
            assertThat(w.commandedAuthorisations()).isEmpty();

            List<String> ops = w.command(lease, "auth-3");
            DeliveryBatch batch = w.invoke(w.handler(w.fixedGuard(), 2, missing), lease, 0, DeliveryBatch.FIRST,
                    new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT));
            assertThat(w.provider.releases()).isEmpty();
            assertThat(w.status(ops.getFirst())).isEqualTo(ReleaseCommands.STATUS_PENDING);
            assertThat(batch.totals().heldForFeed()).isEqualTo(1);
        }
    }

    @Test
    void anEmptyDeadLetterQueueHoldsNothing(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1); SqsClient sqs = sqs(engine)) {
            due(w);
            String empty = sqs.createQueue(b -> b.queueName("dlq-" + UUID.randomUUID())).queueUrl();
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);

            JsonNode totals = DeliveryWorld.page(w.reconcilePage(new HeldForFeed(DeadLetterDepth.queue(sqs, empty))), w.window(), lease);

            assertThat(totals.get("heldForFeed").asLong()).isZero();
            assertThat(w.commandedAuthorisations()).containsExactly("auth-1", "auth-2");
            w.invoke(w.handler(w.fixedGuard(), 2, DeadLetterDepth.queue(sqs, empty)), lease, 0, DeliveryBatch.FIRST,
                    new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT));
            assertThat(w.releases()).extracting(ProviderRelease::authorisationId).containsExactlyInAnyOrder("auth-1", "auth-2");
        }
    }

    /**
     * The redrive policy at work on moto's SQS: an ingestion queue with {@code maxReceiveCount} 1 whose consumer receives
     * auth-1's settlement and never deletes it (a bad deploy); the next receive moves it to the dead-letter queue.
     * Returns the dead-letter queue's URL, after checking the message left the ingestion queue.
     */
    private static String redriveOneSettlement(SqsClient sqs) {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String dlq = sqs.createQueue(b -> b.queueName("ingest-dlq-" + suffix)).queueUrl();
        String dlqArn = sqs.getQueueAttributes(b -> b.queueUrl(dlq).attributeNames(QueueAttributeName.QUEUE_ARN))
                .attributes().get(QueueAttributeName.QUEUE_ARN);
        String queue = sqs.createQueue(b -> b.queueName("ingest-" + suffix).attributes(Map.of(QueueAttributeName.REDRIVE_POLICY,
                "{\"deadLetterTargetArn\":\"" + dlqArn + "\",\"maxReceiveCount\":\"1\"}"))).queueUrl();
        sqs.sendMessage(b -> b.queueUrl(queue).messageBody(SETTLEMENT));
        assertThat(sqs.receiveMessage(b -> b.queueUrl(queue).visibilityTimeout(0)).messages()).hasSize(1);
        assertThat(sqs.receiveMessage(b -> b.queueUrl(queue).visibilityTimeout(0)).messages()).as("moved, not received again").isEmpty();
        assertThat(sqs.getQueueAttributes(b -> b.queueUrl(dlq).attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES))
                .attributes().get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES)).isEqualTo("1");
        return dlq;
    }

    private static SqsClient sqs(LocalDynamo.Engine engine) {
        return new LocalAwsClients(engine.moto().endpoint()).sqs();
    }

    private static void due(DeliveryWorld w) {
        w.ingestion.watermark("wm-now", w.clock.instant().minus(Duration.ofMinutes(5)));
        List.of("auth-1", "auth-2").forEach(id -> w.ingestion.authorise(id, 1_000, DeliveryWorld.CUTOFF.minus(Duration.ofHours(1))));
    }
}
