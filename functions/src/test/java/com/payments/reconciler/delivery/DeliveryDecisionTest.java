package com.payments.reconciler.delivery;

import com.payments.reconciler.workflow.Timing;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** What a PENDING command meets just before its provider call, as a table: a settlement or an end after the decision, and its age against the automatic-delivery horizon. */
class DeliveryDecisionTest {

    private static final Instant NOW = Instant.parse("2026-12-20T03:00:00Z");
    private static final long HORIZON_MS = Timing.AUTOMATIC_DELIVERY_HORIZON.toMillis();

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            # case                                         | queued ms before now | settlement           | end                                | expected
            fresh and unsettled                            | 60000                | none                 | none                               | Deliver
            settled after the decision                     | 60000                | 2026-12-20T02:00:00Z | none                               | CancelSettled@2026-12-20T02:00:00Z
            settled, settlement without settledAt          | 60000                | unreadable           | none                               | CancelSettled@2026-12-20T03:00:00Z
            settled and old: the settlement wins           | HORIZON              | 2026-12-01T00:00:00Z | none                               | CancelSettled@2026-12-01T00:00:00Z
            voided after the decision                      | 60000                | none                 | VOIDED@2026-12-20T01:00:00Z        | CancelEnded(VOIDED)@2026-12-20T01:00:00Z
            expired after the decision                     | 60000                | none                 | EXPIRED@2026-12-20T01:00:00Z       | CancelEnded(EXPIRED)@2026-12-20T01:00:00Z
            a kind added later ends it the same way        | 60000                | none                 | REVERSED@2026-12-20T01:00:00Z      | CancelEnded(REVERSED)@2026-12-20T01:00:00Z
            ended, without a readable endedAt              | 60000                | none                 | unreadable                         | CancelEnded(VOIDED)@2026-12-20T03:00:00Z
            settled and voided: the settlement wins        | 60000                | 2026-12-20T02:00:00Z | VOIDED@2026-12-20T01:00:00Z        | CancelSettled@2026-12-20T02:00:00Z
            voided and old: the end wins over escalation   | HORIZON              | none                 | VOIDED@2026-12-01T00:00:00Z        | CancelEnded(VOIDED)@2026-12-01T00:00:00Z
            one millisecond short of the horizon           | HORIZON-1            | none                 | none                               | Deliver
            exactly at the horizon                         | HORIZON              | none                 | none                               | Escalate
            long past the horizon                          | HORIZON+86400000     | none                 | none                               | Escalate
            """)
    void decides(String scenario, String queuedBefore, String settlement, String end, String expected) {
        long before = switch (queuedBefore) {
            case "HORIZON" -> HORIZON_MS;
            case "HORIZON-1" -> HORIZON_MS - 1;
            case "HORIZON+86400000" -> HORIZON_MS + 86_400_000;
            default -> Long.parseLong(queuedBefore);
        };
        Instant queued = NOW.minusMillis(before);
        PendingCommand command = new PendingCommand("release-hold:a-1", "a-1", 100, "EUR", queued.minus(Duration.ofDays(3)), queued);
        Optional<AuthorisationFacts.Settlement> settled = switch (settlement) {
            case "none" -> Optional.empty();
            case "unreadable" -> Optional.of(new AuthorisationFacts.Settlement(Optional.empty()));
            default -> Optional.of(new AuthorisationFacts.Settlement(Optional.of(Instant.parse(settlement))));
        };
        Optional<AuthorisationFacts.End> ended = switch (end) {
            case "none" -> Optional.empty();
            case "unreadable" -> Optional.of(new AuthorisationFacts.End("VOIDED", Optional.empty()));
            default -> Optional.of(new AuthorisationFacts.End(end.substring(0, end.indexOf('@')),
                    Optional.of(Instant.parse(end.substring(end.indexOf('@') + 1)))));
        };

        DeliveryDecision decision = DeliveryDecision.decide(command, new AuthorisationFacts(settled, ended, NOW), NOW);

        assertThat(describe(decision)).as(scenario).isEqualTo(expected);
    }

    /** Before each request after the first only the facts count: the age was judged before the command started. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            # case                                   | settled | ended   | expected
            nothing happened                         | false   | false   | Deliver
            settled during the wait                  | true    | false   | CancelSettled@2026-12-20T02:59:00Z
            voided during the wait                   | false   | true    | CancelEnded(VOIDED)@2026-12-20T02:58:00Z
            both: the settlement wins                | true    | true    | CancelSettled@2026-12-20T02:59:00Z
            """)
    void atTheCallOnlyTheFactsCount(String scenario, boolean settled, boolean ended, String expected) {
        AuthorisationFacts facts = new AuthorisationFacts(
                settled ? Optional.of(new AuthorisationFacts.Settlement(Optional.of(Instant.parse("2026-12-20T02:59:00Z")))) : Optional.empty(),
                ended ? Optional.of(new AuthorisationFacts.End("VOIDED", Optional.of(Instant.parse("2026-12-20T02:58:00Z")))) : Optional.empty(),
                NOW);
        assertThat(describe(DeliveryDecision.atTheCall(facts, NOW))).as(scenario).isEqualTo(expected);
    }

    private static String describe(DeliveryDecision decision) {
        return switch (decision) {
            case DeliveryDecision.Deliver d -> "Deliver";
            case DeliveryDecision.CancelSettled c -> "CancelSettled@" + c.settledAt();
            case DeliveryDecision.CancelEnded e -> "CancelEnded(" + e.kind() + ")@" + e.endedAt();
            case DeliveryDecision.Escalate e -> "Escalate";
            case DeliveryDecision.Unverifiable u -> "Unverifiable";
            case DeliveryDecision.HeldForFeed h -> "HeldForFeed";
        };
    }

    /**
     * A hold for feed (a refused settlement may concern the authorisation): not sent and not parked, it waits PENDING; a
     * stored settlement or an end still ends it, since neither can release the hold by mistake.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            # case                                         | queued ms before now | settled | ended | expected
            held, fresh                                    | 60000                | false   | false | HeldForFeed
            held past the horizon: waits, not escalated    | HORIZON              | false   | false | HeldForFeed
            held and settled: the settlement wins          | 60000                | true    | false | CancelSettled@2026-12-20T02:59:00Z
            held and voided: the end wins                  | 60000                | false   | true  | CancelEnded(VOIDED)@2026-12-20T02:58:00Z
            """)
    void aHeldCommandStaysPending(String scenario, String queuedBefore, boolean settled, boolean ended, String expected) {
        long before = "HORIZON".equals(queuedBefore) ? HORIZON_MS : Long.parseLong(queuedBefore);
        PendingCommand command = new PendingCommand("release-hold:a-1", "a-1", 100, "EUR", NOW.minusMillis(before).minus(Duration.ofDays(3)),
                NOW.minusMillis(before));
        AuthorisationFacts facts = new AuthorisationFacts(
                settled ? Optional.of(new AuthorisationFacts.Settlement(Optional.of(Instant.parse("2026-12-20T02:59:00Z")))) : Optional.empty(),
                ended ? Optional.of(new AuthorisationFacts.End("VOIDED", Optional.of(Instant.parse("2026-12-20T02:58:00Z")))) : Optional.empty(),
                NOW, true);
        assertThat(describe(DeliveryDecision.decide(command, facts, NOW))).as(scenario).isEqualTo(expected);
        assertThat(describe(DeliveryDecision.atTheCall(facts, NOW))).as(scenario + ", at the call").isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            a requeue restarts the age             | 20 | 1 | Deliver
            created long ago, never requeued       | 20 | 20 | Escalate
            """)
    void theAgeCountsFromTheLatestRequeue(String scenario, int createdDaysAgo, int queuedDaysAgo, String expected) {
        PendingCommand command = new PendingCommand("release-hold:a-1", "a-1", 100, "EUR",
                NOW.minus(Duration.ofDays(createdDaysAgo)), NOW.minus(Duration.ofDays(queuedDaysAgo)));
        DeliveryDecision decision = DeliveryDecision.decide(command, AuthorisationFacts.open(NOW), NOW);
        assertThat(decision.getClass().getSimpleName()).as(scenario).isEqualTo(expected);
    }
}
