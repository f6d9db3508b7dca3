package com.payments.reconciler.delivery;

import com.payments.reconciler.workflow.Timing;

import java.time.Duration;
import java.time.Instant;

/**
 * What happens to a PENDING command just before its provider call, decided from what was read then:
 * its authorisation's settlement and end, and its age. Pure; the delivery call does the I/O.
 */
public sealed interface DeliveryDecision {

    /** Call the provider. */
    record Deliver() implements DeliveryDecision {
    }

    /**
     * Its authorisation settled: I3 forbids releasing the hold, whatever was decided before. A settlement
     * without a readable {@code settledAt} is settled all the same, at the latest when it was read.
     */
    record CancelSettled(Instant settledAt) implements DeliveryDecision {
    }

    /**
     * Its authorisation ended at the card platform (a void or an expiry recorded by ingestion): there is no hold left
     * to release. A settlement wins over an end (the capture is what happened to the money). An end without a readable
     * {@code endedAt} is an end all the same, at the latest when it was read.
     */
    record CancelEnded(String kind, Instant endedAt) implements DeliveryDecision {
    }

    /**
     * A hold for feed stands for its authorisation (a settlement IngestEvents refused may concern it): not sent, not
     * marked: it stays PENDING for a later night, after the operator cleared the hold (or its settlement was stored,
     * which cancels it). Counted as {@code heldForFeed}.
     */
    record HeldForFeed() implements DeliveryDecision {
    }

    /**
     * Older than automatic delivery may be: our idempotency record of an earlier attempt may have expired,
     * so a person decides (after asking the provider) whether to requeue it.
     */
    record Escalate(Duration age) implements DeliveryDecision {
        public String reason() {
            return "PENDING for " + age.toHours() + " h, longer than automatic delivery may wait ("
                    + Timing.AUTOMATIC_DELIVERY_HORIZON.toHours() + " h): ask the provider whether it released the hold, then requeue it (bin/reconciler commands requeue)";
        }
    }

    /**
     * First attempted longer ago than the provider keeps its key, and no status lookup could say what became of the hold
     * ({@link ForgottenKeys}): parked ESCALATED for a person, never sent blindly.
     */
    record Unverifiable(String reason) implements DeliveryDecision {
    }

    /** Before the command's first request: its facts, then its age. */
    static DeliveryDecision decide(PendingCommand command, AuthorisationFacts facts, Instant now) {
        DeliveryDecision byFacts = atTheCall(facts, now);
        if (!(byFacts instanceof Deliver)) {
            return byFacts;
        }
        Duration age = Duration.between(command.queuedAt(), now);
        if (age.compareTo(Timing.AUTOMATIC_DELIVERY_HORIZON) >= 0) {
            return new Escalate(age);
        }
        return byFacts;
    }

    /** Before each request, the first and every one after a wait: the facts alone (the age was judged before the first). */
    static DeliveryDecision atTheCall(AuthorisationFacts facts, Instant now) {
        if (facts.settlement().isPresent()) {
            return new CancelSettled(facts.settlement().get().settledAt().orElse(now));
        }
        if (facts.end().isPresent()) {
            return new CancelEnded(facts.end().get().kind(), facts.end().get().endedAt().orElse(now));
        }
        // After settlement and end (each ends the command for good, safely), before the age: a held command is not sent
        // and not parked either; it waits, PENDING, for the hold to be cleared.
        if (facts.heldForFeed()) {
            return new HeldForFeed();
        }
        return new Deliver();
    }
}
