package com.payments.reconciler.delivery;

import com.payments.reconciler.workflow.Timing;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * What happens to a PENDING command just before its provider call, decided from what was read then:
 * its authorisation's settlement and its age. Pure; the handler does the I/O.
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
     * @param settlements the settled authorisations among those read, each with its {@code settledAt} (empty
     *                    when the settlement carries none readable), as {@code SettlementCheck#settlementsOf} returns them
     */
    static DeliveryDecision decide(PendingCommand command, Map<String, Optional<Instant>> settlements, Instant now) {
        if (settlements.containsKey(command.authorisationId())) {
            return settlements.get(command.authorisationId()).<DeliveryDecision>map(CancelSettled::new)
                    .orElseGet(() -> new CancelSettled(now));
        }
        Duration age = Duration.between(command.queuedAt(), now);
        if (age.compareTo(Timing.AUTOMATIC_DELIVERY_HORIZON) >= 0) {
            return new Escalate(age);
        }
        return new Deliver();
    }
}
