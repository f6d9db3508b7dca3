package com.payments.reconciler.delivery;

import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.provider.Fault;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.workflow.ProviderKeyRetention;
import com.payments.reconciler.workflow.ProviderUnavailable;
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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Keys the provider forgets, against moto and the simulated provider keeping keys for 24 h on the run's clock: a release
 * performed whose answer was lost, redelivered the next night after the provider forgot its key. Main's delivery re-sent
 * it blindly, and the provider, meeting a new request for a hold it had released, refused it: the command ended REJECTED
 * though its own first request released the hold (kept below as the known-bad row, with a retention trusted past the
 * night). The status lookup ends it DELIVERED with the provider's reference instead, and decides the other cases.
 */
@ExtendWith(LocalDynamo.class)
class ForgottenKeysDeliveryTest {

    private static final Duration PROVIDER_KEEPS = Duration.ofHours(24);
    /** The next night: 24 h 15 min later (a schedule period and its flexible window). */
    private static final Duration NEXT_NIGHT = Timing.SCHEDULE_PERIOD.plus(Timing.SCHEDULE_FLEXIBLE_WINDOW);

    private final TestContext context = new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT);
    private DeliveryWorld world;

    @AfterEach
    void close() {
        if (world != null) {
            world.close();
        }
    }

    private DeliverCommandsHandler handler(ProviderKeyRetention retention) {
        return world.handlerBuilder(world.fixedGuard(), 2, world.client()).keyRetention(retention).build();
    }

    /** Night 1: the first request meets {@code first}, every retry is answered 503; the call ends ProviderUnavailable. */
    private List<String> nightOneLosesTheAnswer(LocalDynamo.Engine engine, SimulatedProvider.Builder provider, Fault first) {
        world = new DeliveryWorld(engine, provider.keyRetention(PROVIDER_KEEPS), 1);
        LeaseToken night1 = world.acquire("night-1", Timing.LEASE_DURATION);
        List<String> ops = world.command(night1, "auth-1");
        world.provider.forceNext(ops.getFirst(), first);
        for (int i = 1; i < DeliverCommandsHandler.PROVIDER_ATTEMPTS_PER_COMMAND; i++) {
            world.provider.forceNext(ops.getFirst(), Fault.ERROR_5XX);
        }
        assertThatThrownBy(() -> world.invoke(handler(ProviderKeyRetention.DEFAULT), night1, 0, null, context))
                .isInstanceOf(ProviderUnavailable.class);
        assertThat(world.status(ops.getFirst())).isEqualTo(ReleaseCommands.STATUS_PENDING);
        assertThat(world.command(ops.getFirst())).containsKey(ReleaseCommands.FIRST_ATTEMPT_AT);
        world.clock.advance(NEXT_NIGHT);
        return ops;
    }

    @Test
    void aReleasePerformedWhoseAnswerWasLostIsEndedDeliveredByTheStatusLookupAfterTheProviderForgotItsKey(LocalDynamo.Engine engine) {
        List<String> ops = nightOneLosesTheAnswer(engine, SimulatedProvider.builder(), Fault.PERFORM_THEN_DROP);
        String op = ops.getFirst();
        int requestsBefore = world.provider.effect(op).requests();
        LeaseToken night2 = world.acquire("night-2", Timing.LEASE_DURATION);

        DeliveryBatch batch = world.invoke(handler(ProviderKeyRetention.DEFAULT), night2, 0, null, context);

        assertThat(world.status(op)).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        assertThat(world.provider.releasesOf("auth-1")).as("performed once, on night 1").hasSize(1);
        assertThat(world.provider.effect(op).requests()).as("no release request on night 2").isEqualTo(requestsBefore);
        assertThat(world.provider.lookups()).isEqualTo(1);
        assertThat(world.command(op).get(ReleaseCommands.PROVIDER_REFERENCE).s()).startsWith("PRV-");
        assertThat(batch.totals().delivered()).isEqualTo(1);
        assertThat(world.audit(true).violations()).isEmpty();
    }

    /**
     * Known-bad (main's delivery): the same night 2 with a retention trusted past the night re-sends blindly; the provider,
     * having forgotten the key, treats it as a new request for a hold it released, and the command ends REJECTED although
     * its own first request released the hold.
     */
    @Test
    void theSameRedeliverySentBlindlyIsRefusedAsAlreadyReleasedThoughItsOwnFirstRequestReleasedIt(LocalDynamo.Engine engine) {
        List<String> ops = nightOneLosesTheAnswer(engine, SimulatedProvider.builder(), Fault.PERFORM_THEN_DROP);
        LeaseToken night2 = world.acquire("night-2", Timing.LEASE_DURATION);

        world.invoke(handler(new ProviderKeyRetention(ProviderKeyRetention.MAX)), night2, 0, null, context);

        assertThat(world.provider.forgottenKeys()).isEqualTo(1);
        assertThat(world.provider.lookups()).isZero();
        assertThat(world.status(ops.getFirst())).isEqualTo(ReleaseCommands.STATUS_REJECTED);
        assertThat(world.command(ops.getFirst()).get(ReleaseCommands.REJECTION_REASON).s()).startsWith(SimulatedProvider.CODE_HOLD_ALREADY_RELEASED);
        assertThat(world.audit(true).violations()).singleElement().satisfies(v -> assertThat(v.toString())
                .contains("I4").contains("ended REJECTED but the provider performed its release under " + ops.getFirst()));
    }

    @Test
    void aHoldStillActiveAfterTheLostRequestsIsReleasedOnceUnderTheSameKey(LocalDynamo.Engine engine) {
        List<String> ops = nightOneLosesTheAnswer(engine, SimulatedProvider.builder(), Fault.ERROR_5XX);
        String op = ops.getFirst();
        assertThat(world.provider.releasesOf("auth-1")).as("nothing performed on night 1").isEmpty();
        LeaseToken night2 = world.acquire("night-2", Timing.LEASE_DURATION);

        world.invoke(handler(ProviderKeyRetention.DEFAULT), night2, 0, null, context);

        assertThat(world.status(op)).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        assertThat(world.provider.lookups()).isEqualTo(1);
        assertThat(world.provider.releasesOf("auth-1")).singleElement().satisfies(r -> assertThat(r.operationId()).isEqualTo(op));
        assertThat(world.audit(true).violations()).isEmpty();
    }

    @Test
    void aHoldCapturedMeanwhileEndsRejectedWithoutAReleaseRequest(LocalDynamo.Engine engine) {
        List<String> ops = nightOneLosesTheAnswer(engine, SimulatedProvider.builder(), Fault.ERROR_5XX);
        world.provider.capture("auth-1");
        int requestsBefore = world.provider.effect(ops.getFirst()).requests();
        LeaseToken night2 = world.acquire("night-2", Timing.LEASE_DURATION);

        world.invoke(handler(ProviderKeyRetention.DEFAULT), night2, 0, null, context);

        assertThat(world.status(ops.getFirst())).isEqualTo(ReleaseCommands.STATUS_REJECTED);
        assertThat(world.command(ops.getFirst()).get(ReleaseCommands.REJECTION_REASON).s()).startsWith(ForgottenKeys.CODE_CAPTURED);
        assertThat(world.provider.effect(ops.getFirst()).requests()).isEqualTo(requestsBefore);
        assertThat(world.provider.releasesOf("auth-1")).isEmpty();
    }

    @Test
    void withoutAStatusLookupAnOldAttemptIsEscalatedNotSentBlindly(LocalDynamo.Engine engine) {
        List<String> ops = nightOneLosesTheAnswer(engine, SimulatedProvider.builder().statusLookup(false), Fault.PERFORM_THEN_DROP);
        int requestsBefore = world.provider.effect(ops.getFirst()).requests();
        LeaseToken night2 = world.acquire("night-2", Timing.LEASE_DURATION);

        DeliveryBatch batch = world.invoke(handler(ProviderKeyRetention.DEFAULT), night2, 0, null, context);

        Map<String, AttributeValue> command = world.command(ops.getFirst());
        assertThat(command.get(ReleaseCommands.STATUS).s()).isEqualTo(ReleaseCommands.STATUS_ESCALATED);
        assertThat(command.get(ReleaseCommands.END_REASON).s()).contains("no status lookup").contains("commands resolve");
        assertThat(world.provider.effect(ops.getFirst()).requests()).isEqualTo(requestsBefore);
        assertThat(world.provider.releasesOf("auth-1")).hasSize(1);
        assertThat(batch.totals().escalated()).isEqualTo(1);
    }

    /**
     * Commands from before the stamps: an earlier release sent the command without stamping it, and the answer was lost
     * (Powertools deleted its record when the call threw). Its item has neither {@code firstAttemptAt} nor the
     * {@code stampsFirstAttempt} marker a stamping release writes at creation, so it is read as first attempted at its
     * creation: the next night asks the provider instead of sending it blindly.
     */
    @Test
    void aCommandAnEarlierReleaseSentWithoutAStampIsLookedUpFromItsCreationNotSentBlindly(LocalDynamo.Engine engine) {
        List<String> ops = nightOneLosesTheAnswer(engine, SimulatedProvider.builder(), Fault.PERFORM_THEN_DROP);
        String op = ops.getFirst();
        asAnEarlierReleaseLeftIt(op, "REMOVE " + ReleaseCommands.FIRST_ATTEMPT_AT + ", " + ReleaseCommands.STAMPS_FIRST_ATTEMPT);
        int requestsBefore = world.provider.effect(op).requests();
        LeaseToken night2 = world.acquire("night-2", Timing.LEASE_DURATION);

        world.invoke(handler(ProviderKeyRetention.DEFAULT), night2, 0, null, context);

        assertThat(world.status(op)).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        assertThat(world.provider.lookups()).isEqualTo(1);
        assertThat(world.provider.effect(op).requests()).as("no release request on night 2").isEqualTo(requestsBefore);
        assertThat(world.provider.releasesOf("auth-1")).hasSize(1);
        assertThat(world.command(op)).as("its bound is read from createdAt, not written").doesNotContainKey(ReleaseCommands.FIRST_ATTEMPT_AT);
        assertThat(world.audit(true).violations()).isEmpty();
    }

    /**
     * Known-bad: the same command read as "no stamp, never sent" (the marker left on, as if a stamping release had made
     * it) is sent blindly, refused as already released, and ends REJECTED although its own first request released the
     * hold — what every command an earlier release attempted would meet without the rule.
     */
    @Test
    void theSameCommandReadAsNeverAttemptedIsSentBlindlyAndRefusedAsAlreadyReleased(LocalDynamo.Engine engine) {
        List<String> ops = nightOneLosesTheAnswer(engine, SimulatedProvider.builder(), Fault.PERFORM_THEN_DROP);
        String op = ops.getFirst();
        asAnEarlierReleaseLeftIt(op, "REMOVE " + ReleaseCommands.FIRST_ATTEMPT_AT);
        LeaseToken night2 = world.acquire("night-2", Timing.LEASE_DURATION);

        world.invoke(handler(ProviderKeyRetention.DEFAULT), night2, 0, null, context);

        assertThat(world.provider.lookups()).isZero();
        assertThat(world.provider.forgottenKeys()).isEqualTo(1);
        assertThat(world.status(op)).isEqualTo(ReleaseCommands.STATUS_REJECTED);
        // (The set-up's own write, a change of firstAttemptAt alone without a lease check, is an I1 finding here.)
        assertThat(world.audit(true).violations()).filteredOn(v -> v.invariant().equals("I4")).singleElement()
                .satisfies(v -> assertThat(v.detail()).contains("ended REJECTED but the provider performed its release under " + op));
    }

    /** Rewrites the command as stored by an earlier release (test set-up, outside the audit's write log's concern: I1 aside). */
    private void asAnEarlierReleaseLeftIt(String operationId, String update) {
        world.dynamo.updateItem(b -> b.tableName(world.engine.tables().releaseCommands())
                .key(Map.of(ReleaseCommands.OPERATION_ID, AttributeValue.fromS(operationId))).updateExpression(update));
    }

    /** A backlog command never attempted is sent the next night without a lookup: it has no key to forget. */
    @Test
    void aCommandNeverAttemptedIsSentWithoutALookupHoweverOld(LocalDynamo.Engine engine) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder().keyRetention(PROVIDER_KEEPS), 1);
        LeaseToken night1 = world.acquire("night-1", Timing.LEASE_DURATION);
        List<String> ops = world.command(night1, "auth-1");
        world.clock.advance(NEXT_NIGHT);
        Instant night2Start = world.clock.instant();
        LeaseToken night2 = world.acquire("night-2", Timing.LEASE_DURATION);

        world.invoke(handler(ProviderKeyRetention.DEFAULT), night2, 0, null, context);

        assertThat(world.status(ops.getFirst())).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        assertThat(world.provider.lookups()).isZero();
        assertThat(world.command(ops.getFirst()).get(ReleaseCommands.FIRST_ATTEMPT_AT).n()).isEqualTo(Long.toString(night2Start.toEpochMilli()));
        // The stamp was written by night 2's leader (epoch 2) on a command night 1 issued (epoch 1): a fenced write of the
        // current epoch, not a stale one (the audit judged it by the command's epoch before, an I1 finding).
        assertThat(world.audit(true).violations()).isEmpty();
    }
}
