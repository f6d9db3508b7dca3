package com.payments.reconciler.delivery;

import com.payments.reconciler.ingest.IngestOutcome;

import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.reconcile.DeliveryMark;
import com.payments.reconciler.reconcile.DeliveryRecord;
import com.payments.reconciler.reconcile.FencedWriter;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.workflow.ProviderContractViolation;
import com.payments.reconciler.workflow.Timing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ways a PENDING command ends without a release request reaching the
 * provider. Each is decided before the provider call and recorded through the fenced path.
 */
@ExtendWith(LocalDynamo.class)
class DeliveryEndStatesTest {

    private final TestContext context = new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT);
    private DeliveryWorld world;

    @AfterEach
    void close() {
        if (world != null) {
            world.close();
        }
    }

    /** The decision saw no settlement; by the time of delivery one had arrived. */
    @Test
    void aSettlementArrivingBetweenDecisionAndDeliveryCancelsTheCommandInsteadOfReleasingTheHold(LocalDynamo.Engine engine) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = world.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = world.command(lease, "auth-1", "auth-2", "auth-3");
        world.ingestion.settle("auth-2", world.clock.instant());

        DeliveryBatch result = world.invoke(world.handler(world.fixedGuard(), 2), lease, 0, null, context);

        assertThat(world.provider.effect(ops.get(1)).requests()).as("no provider request for the settled hold").isZero();
        assertThat(world.status(ops.get(1))).isEqualTo(ReleaseCommands.STATUS_CANCELLED_SETTLED);
        assertThat(world.command(ops.get(1))).doesNotContainKey(ReleaseCommands.DELIVERY_SHARD);
        assertThat(world.status(ops.get(0))).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        assertThat(world.status(ops.get(2))).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        assertThat(result.totals().delivered()).isEqualTo(2);
        assertThat(world.metricLines).anySatisfy(line -> assertThat(line).contains("\"DeliveryCancelledSettled\":1"));
    }

    /**
     * The card platform voided the authorisation after the decision: its PENDING command must not reach the provider.
     * It used to be only recorded on the authorisation, and the hold "released" by a request about a hold already gone.
     */
    @Test
    void aVoidArrivingBetweenDecisionAndDeliveryCancelsTheCommandBeforeAnyProviderCall(LocalDynamo.Engine engine) {
        anEndAfterTheDecisionCancelsTheCommand(engine, "authorisation.voided", "VOIDED");
    }

    /** The same for an expiry: the network let the authorisation lapse after the decision. */
    @Test
    void anExpiryArrivingBetweenDecisionAndDeliveryCancelsTheCommandBeforeAnyProviderCall(LocalDynamo.Engine engine) {
        anEndAfterTheDecisionCancelsTheCommand(engine, "authorisation.expired", "EXPIRED");
    }

    /**
     * Contract version 2: a full reversal after the decision ends the authorisation like a void, so its command is
     * cancelled (CANCELLED_ENDED) and the provider performs nothing. Version 1 had no reversal: the event was refused.
     */
    @Test
    void aFullReversalAfterTheDecisionCancelsTheCommandAndTheProviderPerformsNothing(LocalDynamo.Engine engine) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = world.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = world.command(lease, "auth-1", "auth-2", "auth-3");
        Instant reversedAt = world.clock.instant().minusSeconds(30);
        assertThat(world.ingestion.ingest("""
                {"version":2,"type":"authorisation.reversed","eventId":"evt-rev-2","authorisationId":"auth-2","full":true,"reversedAt":"%s"}"""
                .formatted(reversedAt))).isInstanceOf(IngestOutcome.Accepted.class);
        // A reversal of the whole remaining amount (auth-3 was authorised for 1,002) is a full one too.
        assertThat(world.ingestion.ingest("""
                {"version":2,"type":"authorisation.reversed","eventId":"evt-rev-3","authorisationId":"auth-3","amountMinor":1002,                "currency":"EUR","reversedAt":"%s"}""".formatted(reversedAt))).isInstanceOf(IngestOutcome.Accepted.class);

        world.invoke(world.handler(world.fixedGuard(), 2), lease, 0, null, context);

        for (String op : List.of(ops.get(1), ops.get(2))) {
            assertThat(world.provider.effect(op).requests()).as("no provider request for " + op).isZero();
            assertThat(world.status(op)).isEqualTo(ReleaseCommands.STATUS_CANCELLED_ENDED);
            assertThat(world.command(op).get("authorisationEndKind")).isEqualTo(AttributeValue.fromS("REVERSED"));
        }
        assertThat(world.status(ops.get(0))).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        assertThat(world.metricLines).anySatisfy(line -> assertThat(line).contains("\"DeliveryCancelledEnded\":2"));
        assertThat(world.audit(true).violations()).isEmpty();
    }

    /** A partial reversal after the decision changes nothing: the release gives back what remains. */
    @Test
    void aPartialReversalAfterTheDecisionLeavesTheReleaseToGiveBackTheRest(LocalDynamo.Engine engine) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = world.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = world.command(lease, "auth-1");
        assertThat(world.ingestion.ingest("""
                {"version":2,"type":"authorisation.reversed","eventId":"evt-rev-1","authorisationId":"auth-1","amountMinor":10,                "currency":"EUR","reversedAt":"%s"}""".formatted(world.clock.instant().minusSeconds(30)))).isInstanceOf(IngestOutcome.Duplicate.class);

        world.invoke(world.handler(world.fixedGuard(), 2), lease, 0, null, context);

        assertThat(world.status(ops.getFirst())).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
    }

    private void anEndAfterTheDecisionCancelsTheCommand(LocalDynamo.Engine engine, String eventType, String endKind) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = world.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = world.command(lease, "auth-1", "auth-2", "auth-3");
        world.ingestion.end("auth-2", eventType, world.clock.instant().minusSeconds(30));

        world.invoke(world.handler(world.fixedGuard(), 2), lease, 0, null, context);

        assertThat(world.provider.effect(ops.get(1)).requests()).as("no provider request for the ended authorisation").isZero();
        assertThat(world.status(ops.get(1))).isEqualTo("CANCELLED_ENDED");
        Map<String, AttributeValue> cancelled = world.command(ops.get(1));
        assertThat(cancelled).doesNotContainKey(ReleaseCommands.DELIVERY_SHARD);
        assertThat(cancelled.get("authorisationEndKind")).isEqualTo(AttributeValue.fromS(endKind));
        assertThat(cancelled.get("authorisationEndedAt")).isEqualTo(
                AttributeValue.fromN(Long.toString(world.clock.instant().minusSeconds(30).toEpochMilli())));
        assertThat(world.status(ops.get(0))).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        assertThat(world.status(ops.get(2))).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        assertThat(world.metricLines).anySatisfy(line -> assertThat(line).contains("\"DeliveryCancelledEnded\":1"));
        assertThat(world.audit(true).violations()).isEmpty();
    }

    /** A command left PENDING longer than our idempotency records last is not sent again on its own. */
    @Test
    void aCommandLeftPendingPastTheIdempotencyHorizonIsEscalatedNotRedelivered(LocalDynamo.Engine engine) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken old = world.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = world.command(old, "auth-1");
        world.clock.advance(Timing.AUTOMATIC_DELIVERY_HORIZON);
        LeaseToken lease = world.acquire("worker-B", Timing.LEASE_DURATION);

        world.invoke(world.handler(world.fixedGuard(), 2), lease, 0, null, context);

        assertThat(world.provider.effect(ops.getFirst()).requests()).as("not sent automatically").isZero();
        assertThat(world.status(ops.getFirst())).isEqualTo(ReleaseCommands.STATUS_ESCALATED);
        assertThat(world.metricLines).anySatisfy(line -> assertThat(line).contains("\"DeliveryEscalated\":1"));
    }

    /** One answer outside the contract used to stop the call (and, retried, every night). */
    @Test
    void oneMalformedProviderAnswerQuarantinesItsCommandAndTheOthersAreDelivered(LocalDynamo.Engine engine) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = world.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = world.command(lease, "auth-1", "auth-2", "auth-3");
        HttpProviderClient real = world.client();
        ProviderClient answersGarbageForTheFirst = command -> {
            if (command.operationId().equals(ops.getFirst())) {
                throw ProviderContractViolation.ofCommand("provider answered 200 for " + command.operationId()
                        + ": the body is not a JSON object (Content-Type text/html, 17 characters)", 200, "<html>oops</html>");
            }
            return real.release(command);
        };

        DeliveryBatch result = world.invoke(world.handler(world.fixedGuard(), 2, answersGarbageForTheFirst), lease, 0, null, context);

        assertThat(world.status(ops.get(0))).isEqualTo(ReleaseCommands.STATUS_QUARANTINED);
        Map<String, AttributeValue> quarantined = world.command(ops.get(0));
        assertThat(quarantined).doesNotContainKey(ReleaseCommands.DELIVERY_SHARD);
        assertThat(quarantined.get(ReleaseCommands.END_REASON).s()).contains("not a JSON object", "status 200", "<html>oops</html>");
        assertThat(quarantined.get(ReleaseCommands.PARKED_SHARD).n()).isEqualTo("0");
        assertThat(world.status(ops.get(1))).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        assertThat(world.status(ops.get(2))).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        assertThat(result.totals().delivered()).isEqualTo(2);
        assertThat(world.metricLines).anySatisfy(line -> assertThat(line).contains("\"DeliveryQuarantined\":1"));
    }

    /**
     * Most answers outside the contract look like the provider's fault: the call stops within its first few
     * answers, having parked only those, and the rest stay PENDING for after someone has looked.
     */
    @Test
    void aProviderAnsweringMostlyOutsideItsContractStopsTheCallAfterTheBreakersMinimumAndLeavesTheRestPending(LocalDynamo.Engine engine) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = world.acquire("worker-A", Timing.LEASE_DURATION);
        int count = Timing.CONTRACT_BREAKER_WINDOW + 5;
        List<String> ops = world.command(lease, DeliveryWorld.ids("auth", count).toArray(String[]::new));
        ProviderClient alwaysGarbage = command -> {
            throw ProviderContractViolation.ofCommand("provider answered 404 for " + command.operationId() + ": unexpected status", 404, "");
        };

        Throwable failure = org.assertj.core.api.Assertions.catchThrowable(
                () -> world.invoke(world.handler(world.fixedGuard(), 1, alwaysGarbage), lease, 0, null, context));

        int min = Timing.CONTRACT_BREAKER_MIN_VIOLATIONS;
        assertThat(failure).isInstanceOf(ProviderContractViolation.class)
                .hasMessageContaining(min + " of the last " + min + " answers were outside the provider's contract");
        assertThat(ops.stream().map(world::status).filter(ReleaseCommands.STATUS_QUARANTINED::equals)).hasSize(min);
        assertThat(ops.stream().map(world::status).filter(ReleaseCommands.STATUS_PENDING::equals)).hasSize(count - min);
    }

    /**
     * Sparse poison answers (one in five here, far above a real provider's) never stop a call, however many there
     * are in it: a limit counted over the whole call used to fail a large night on its tenth bad answer.
     */
    @Test
    void sparsePoisonAnswersAcrossALargeCallAreQuarantinedAndTheCallFinishes(LocalDynamo.Engine engine) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = world.acquire("worker-A", Timing.LEASE_DURATION);
        int count = 60;
        List<String> ops = world.command(lease, DeliveryWorld.ids("auth", count).toArray(String[]::new));
        HttpProviderClient real = world.client();
        java.util.Set<String> poisoned = new java.util.HashSet<>();
        for (int i = 4; i < count; i += 5) {
            poisoned.add(ops.get(i));
        }
        ProviderClient everyFifthGarbage = command -> {
            if (poisoned.contains(command.operationId())) {
                throw ProviderContractViolation.ofCommand("provider answered 200 for " + command.operationId()
                        + ": the body is not a JSON object", 200, "<html>oops</html>");
            }
            return real.release(command);
        };

        DeliveryBatch result = world.invoke(world.handler(world.fixedGuard(), 1, everyFifthGarbage), lease, 0, null, context);

        assertThat(poisoned).hasSizeGreaterThan(10);
        assertThat(ops.stream().filter(poisoned::contains).map(world::status)).containsOnly(ReleaseCommands.STATUS_QUARANTINED);
        assertThat(ops.stream().filter(op -> !poisoned.contains(op)).map(world::status)).containsOnly(ReleaseCommands.STATUS_DELIVERED);
        assertThat(result.totals().delivered()).isEqualTo(count - poisoned.size());
    }

    /** Refused credentials are about every command: nothing is quarantined, the call stops. */
    @Test
    void refusedCredentialsQuarantineNothingAndStopTheCall(LocalDynamo.Engine engine) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = world.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = world.command(lease, "auth-1", "auth-2");
        ProviderClient refusesOurKey = command -> {
            throw ProviderContractViolation.ofEveryCommand("provider answered 401 for " + command.operationId() + ": refused our API key");
        };

        Throwable failure = org.assertj.core.api.Assertions.catchThrowable(
                () -> world.invoke(world.handler(world.fixedGuard(), 1, refusesOurKey), lease, 0, null, context));

        assertThat(failure).isInstanceOf(ProviderContractViolation.class).hasMessageContaining("401");
        assertThat(ops).allSatisfy(op -> assertThat(world.status(op)).isEqualTo(ReleaseCommands.STATUS_PENDING));
    }

    /** The cancellation is a protected write like any other: a superseded leader's is refused. */
    @Test
    void aSupersededLeadersCancellationIsRefusedByTheFence(LocalDynamo.Engine engine) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken stale = world.acquire("worker-A", Duration.ofMillis(1));
        List<String> ops = world.command(stale, "auth-1");
        world.clock.advance(Duration.ofSeconds(1));
        world.acquire("worker-B", Timing.LEASE_DURATION);
        FencedWriter writer = new FencedWriter(world.dynamo, engine.tables(), DeliveryWorld.NO_WAIT);

        List<DeliveryRecord> outcome = writer.recordDeliveries(stale, List.of(new DeliveryMark(ops.getFirst(),
                new DeliveryRecord.Result.CancelledSettled(world.clock.instant()), 0)), world.clock.instant());

        assertThat(outcome).singleElement().isInstanceOf(DeliveryRecord.Fenced.class);
        assertThat(world.status(ops.getFirst())).isEqualTo(ReleaseCommands.STATUS_PENDING);
    }

    /**
     * Review of 15.2: an earlier attempt had the provider's answer recorded but died before marking; the settlement
     * arrived afterwards. The command was sent and released before the settlement, so it ends DELIVERED with the
     * provider's reference, not "cancelled before delivery".
     */
    @Test
    void aCommandAnsweredInAnEarlierAttemptIsRecordedWithThatAnswerEvenIfItsSettlementArrivedSince(LocalDynamo.Engine engine) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = world.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = world.command(lease, "auth-1");
        PendingCommand command = new PendingCommand(ops.getFirst(), "auth-1", 1_000, "EUR", world.clock.instant());
        OperationGuard guard = world.fixedGuard();
        HttpProviderClient provider = world.client();
        // The earlier attempt: the provider performed and the guard recorded its answer; the mark was never written.
        guard.once(GuardedOperation.of(command), context, ProviderResult.Final.class, () -> (ProviderResult.Final) provider.release(command));
        world.ingestion.settle("auth-1", world.clock.instant());

        DeliveryBatch result = world.invoke(world.handler(guard, 2), lease, 0, null, context);

        assertThat(world.status(ops.getFirst())).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        assertThat(world.command(ops.getFirst()).get(ReleaseCommands.PROVIDER_REFERENCE).s()).matches("PRV-\\d{8}");
        assertThat(world.provider.effect(ops.getFirst()).requests()).as("not sent again").isEqualTo(1);
        assertThat(result.totals().delivered()).isEqualTo(1);
    }
}
