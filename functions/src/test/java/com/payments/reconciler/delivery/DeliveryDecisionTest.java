package com.payments.reconciler.delivery;

import com.payments.reconciler.workflow.Timing;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Issues 15.2 and 15.3 as a table: what a PENDING command meets just before its provider call. */
class DeliveryDecisionTest {

    private static final Instant NOW = Instant.parse("2026-12-20T03:00:00Z");
    private static final long HORIZON_MS = Timing.AUTOMATIC_DELIVERY_HORIZON.toMillis();

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            # case                                         | queued ms before now | settlement       | expected
            fresh and unsettled                            | 60000                | none             | Deliver
            settled after the decision                     | 60000                | 2026-12-20T02:00:00Z | CancelSettled@2026-12-20T02:00:00Z
            settled, settlement without settledAt          | 60000                | unreadable       | CancelSettled@2026-12-20T03:00:00Z
            settled and old: the settlement wins           | HORIZON              | 2026-12-01T00:00:00Z | CancelSettled@2026-12-01T00:00:00Z
            one millisecond short of the horizon           | HORIZON-1            | none             | Deliver
            exactly at the horizon                         | HORIZON              | none             | Escalate
            long past the horizon                          | HORIZON+86400000     | none             | Escalate
            """)
    void decides(String scenario, String queuedBefore, String settlement, String expected) {
        long before = switch (queuedBefore) {
            case "HORIZON" -> HORIZON_MS;
            case "HORIZON-1" -> HORIZON_MS - 1;
            case "HORIZON+86400000" -> HORIZON_MS + 86_400_000;
            default -> Long.parseLong(queuedBefore);
        };
        Instant queued = NOW.minusMillis(before);
        PendingCommand command = new PendingCommand("release-hold:a-1", "a-1", 100, "EUR", queued.minus(Duration.ofDays(3)), queued);
        Map<String, Optional<Instant>> settlements = switch (settlement) {
            case "none" -> Map.of();
            case "unreadable" -> Map.of("a-1", Optional.empty());
            default -> Map.of("a-1", Optional.of(Instant.parse(settlement)));
        };

        DeliveryDecision decision = DeliveryDecision.decide(command, settlements, NOW);

        String actual = switch (decision) {
            case DeliveryDecision.Deliver d -> "Deliver";
            case DeliveryDecision.CancelSettled c -> "CancelSettled@" + c.settledAt();
            case DeliveryDecision.Escalate e -> "Escalate";
        };
        assertThat(actual).as(scenario).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            a requeue restarts the age             | 20 | 1 | Deliver
            created long ago, never requeued       | 20 | 20 | Escalate
            """)
    void theAgeCountsFromTheLatestRequeue(String scenario, int createdDaysAgo, int queuedDaysAgo, String expected) {
        PendingCommand command = new PendingCommand("release-hold:a-1", "a-1", 100, "EUR",
                NOW.minus(Duration.ofDays(createdDaysAgo)), NOW.minus(Duration.ofDays(queuedDaysAgo)));
        DeliveryDecision decision = DeliveryDecision.decide(command, Map.of(), NOW);
        assertThat(decision.getClass().getSimpleName()).as(scenario).isEqualTo(expected);
    }
}
