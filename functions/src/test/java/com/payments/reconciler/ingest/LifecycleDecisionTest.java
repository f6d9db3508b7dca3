package com.payments.reconciler.ingest;

import com.payments.reconciler.ingest.IngestEvent.AuthorisationEnded;
import com.payments.reconciler.ingest.IngestEvent.AuthorisationIncremented;
import com.payments.reconciler.ingest.IngestEvent.AuthorisationReversed;
import com.payments.reconciler.ingest.IngestEvent.EndKind;
import com.payments.reconciler.ingest.IngestEvent.SettlementPosted;
import com.payments.reconciler.ingest.IngestWrite.AddCapture;
import com.payments.reconciler.ingest.IngestWrite.EndAuthorisation;
import com.payments.reconciler.ingest.IngestWrite.IncrementAuthorisation;
import com.payments.reconciler.ingest.IngestWrite.LeaveIndexOnSettlement;
import com.payments.reconciler.ingest.IngestWrite.RecordEndBesideDecision;
import com.payments.reconciler.ingest.IngestWrite.RecordSettlement;
import com.payments.reconciler.ingest.IngestWrite.ReduceAuthorisation;
import com.payments.reconciler.ingest.IngestionDecision.Next;
import com.payments.reconciler.ingest.StoredItem.StoredAuthorisation;
import com.payments.reconciler.ingest.StoredItem.StoredSettlement;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Contract version 2's idempotency and ordering rules, as a table: increments, partial and full reversals and numbered
 * captures, against what a failed condition returned — before the create, redelivered after a lost response,
 * duplicated under another id, out of order, after the night's decision.
 */
class LifecycleDecisionTest {

    private static final Instant AT = Instant.parse("2026-11-28T13:00:00Z");
    private static final AuthorisationIncremented INCREMENT = new AuthorisationIncremented("evt-i", "auth-1", 4000, "EUR",
            AT.plusSeconds(3600), Optional.of(AT.plus(java.time.Duration.ofDays(31))));
    private static final AuthorisationReversed REVERSAL = new AuthorisationReversed("evt-r", "auth-1", 500, "EUR", AT.plusSeconds(7200));
    private static final SettlementPosted CAPTURE_2 = new SettlementPosted("evt-s2", "auth-1", 700, "EUR", AT.plusSeconds(86_400),
            Optional.of(2), Optional.of(true));

    private final IngestionDecision decision = new IngestionDecision(4);

    private static StoredAuthorisation auth(String state, long amount, String currency, Set<String> applied, Instant lastChangedAt, String endEvent) {
        return new StoredAuthorisation(state, Optional.of("evt-c"), Optional.ofNullable(endEvent), Optional.of(amount), Optional.of(currency),
                Optional.of("m-1"), Optional.of(AT), Optional.empty(), applied, Optional.ofNullable(lastChangedAt));
    }

    private static StoredAuthorisation absent() {
        return new StoredAuthorisation("ABSENT", Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty());
    }

    private static StoredSettlement settlement(String eventId, Map<Integer, Long> captures) {
        return new StoredSettlement(Optional.of(eventId), Optional.of(AT), Optional.of("EUR"), captures);
    }

    @Test
    void eachNewEventsFirstWrite() {
        assertThat(decision.first(INCREMENT)).isEqualTo(new IncrementAuthorisation(INCREMENT));
        assertThat(decision.first(REVERSAL)).isEqualTo(new ReduceAuthorisation(REVERSAL));
        assertThat(decision.first(CAPTURE_2)).isEqualTo(new RecordSettlement(CAPTURE_2));
        // A full reversal ("full": true) decodes as an end: the void's path, REVERSED.
        AuthorisationEnded full = new AuthorisationEnded("evt-f", "auth-1", EndKind.REVERSED, AT);
        assertThat(decision.first(full)).isEqualTo(new EndAuthorisation(full));
    }

    static Stream<Arguments> cases() {
        IngestWrite increment = new IncrementAuthorisation(INCREMENT);
        IngestWrite reduce = new ReduceAuthorisation(REVERSAL);
        IngestWrite firstCapture = new RecordSettlement(CAPTURE_2);
        IngestWrite addCapture = new AddCapture(CAPTURE_2);
        return Stream.of(
                // authorisation.incremented
                arguments("increment before its create: not yet, SQS delivers it again", increment, absent(),
                        new Next.NotYet("authorisation auth-1 is not created yet: the increment waits for its create")),
                arguments("increment redelivered after a lost response", increment, auth("AUTHORISED", 4000, "EUR", Set.of("evt-i"), INCREMENT.incrementedAt(), null),
                        new Next.Duplicate("event already applied")),
                arguments("increment redelivered after the decision", increment, auth("RELEASE_REQUESTED", 4000, "EUR", Set.of("evt-i"), null, null),
                        new Next.Duplicate("event already applied")),
                arguments("increment after the decision: the release asks for the whole hold", increment, auth("RELEASE_REQUESTED", 2599, "EUR", Set.of(), null, null),
                        new Next.Duplicate("the authorisation is no longer pending (state RELEASE_REQUESTED): an increment changes nothing the reconciler decides")),
                arguments("increment after a void", increment, auth("VOIDED", 2599, "EUR", Set.of(), null, "evt-v"),
                        new Next.Duplicate("the authorisation is no longer pending (state VOIDED): an increment changes nothing the reconciler decides")),
                arguments("an older increment after a later change: superseded", increment,
                        auth("AUTHORISED", 5000, "EUR", Set.of("evt-i2"), INCREMENT.incrementedAt().plusSeconds(1), null),
                        new Next.Duplicate("superseded: a later increment or reversal (at 2026-11-28T14:00:01Z) is already applied")),
                arguments("an equal amount under another event id: refused naming amountMinor", increment, auth("AUTHORISED", 4000, "EUR", Set.of(), null, null),
                        new Next.Conflict(new Refusal(Refusal.Reason.CONFLICT, "amountMinor", "must be higher than the stored amount 4000 of "
                                + "authorisation auth-1 (an increment carries the new total); the stored amount stays"))),
                arguments("a lower amount: refused naming amountMinor", increment, auth("AUTHORISED", 5000, "EUR", Set.of(), null, null),
                        new Next.Conflict(new Refusal(Refusal.Reason.CONFLICT, "amountMinor", "must be higher than the stored amount 5000 of "
                                + "authorisation auth-1 (an increment carries the new total); the stored amount stays"))),
                arguments("another currency: refused naming currency", increment, auth("AUTHORISED", 2599, "GBP", Set.of(), null, null),
                        new Next.Conflict(new Refusal(Refusal.Reason.CONFLICT, "currency",
                                "differs from the stored authorisation auth-1 (GBP); an increment keeps its currency"))),
                arguments("AUTHORISED and lower in the answer (a racing write): the increment again", increment, auth("AUTHORISED", 2599, "EUR", Set.of(), null, null),
                        new Next.Write(increment)),
                // authorisation.reversed (partial)
                arguments("reversal before its create: not yet", reduce, absent(),
                        new Next.NotYet("authorisation auth-1 is not created yet: the reversal waits for its create")),
                arguments("reversal redelivered after a lost response: never subtracted twice", reduce, auth("AUTHORISED", 2099, "EUR", Set.of("evt-r"), null, null),
                        new Next.Duplicate("event already applied")),
                arguments("a reversal of all that remains: ends it like a void", reduce, auth("AUTHORISED", 500, "EUR", Set.of(), null, null),
                        new Next.Write(new EndAuthorisation(REVERSAL.asEnd()))),
                arguments("a reversal of more than remains: refused naming amountMinor", reduce, auth("AUTHORISED", 400, "EUR", Set.of(), null, null),
                        new Next.Conflict(new Refusal(Refusal.Reason.CONFLICT, "amountMinor",
                                "more than the remaining amount 400 of authorisation auth-1; the stored amount stays"))),
                arguments("a reversal of all that remains after the decision: recorded as its end, so delivery cancels the command", reduce,
                        auth("RELEASE_REQUESTED", 500, "EUR", Set.of(), null, null),
                        new Next.Write(new RecordEndBesideDecision(REVERSAL.asEnd(), "RELEASE_REQUESTED"))),
                arguments("a partial reversal after the decision: the release gives back the rest", reduce, auth("RELEASE_REQUESTED", 2599, "EUR", Set.of(), null, null),
                        new Next.Duplicate("the authorisation is no longer pending (state RELEASE_REQUESTED): a partial reversal changes nothing the reconciler decides")),
                arguments("a reversal of all after the decision whose end is already recorded", reduce, auth("RELEASE_REQUESTED", 500, "EUR", Set.of(), null, "evt-v"),
                        new Next.Duplicate("the authorisation is no longer pending (state RELEASE_REQUESTED): a partial reversal changes nothing the reconciler decides")),
                arguments("a reversal in another currency: refused naming currency", reduce, auth("AUTHORISED", 2599, "USD", Set.of(), null, null),
                        new Next.Conflict(new Refusal(Refusal.Reason.CONFLICT, "currency",
                                "differs from the stored authorisation auth-1 (USD); a reversal keeps its currency"))),
                arguments("AUTHORISED with more remaining in the answer (a racing write): the reversal again", reduce, auth("AUTHORISED", 2599, "EUR", Set.of(), null, null),
                        new Next.Write(reduce)),
                // settlement.posted with captureSequence
                arguments("capture 2 after capture 1: added", firstCapture, settlement("evt-s1", Map.of(1, 500L)), new Next.Write(addCapture)),
                arguments("capture 2 before capture 1 (stored as the first): capture 1 is added the same way", new RecordSettlement(
                                new SettlementPosted("evt-s1", "auth-1", 500, "EUR", AT, Optional.of(1), Optional.empty())), settlement("evt-s2", Map.of(2, 700L)),
                        new Next.Write(new AddCapture(new SettlementPosted("evt-s1", "auth-1", 500, "EUR", AT, Optional.of(1), Optional.empty())))),
                arguments("capture 2 redelivered after a lost response", addCapture, settlement("evt-s1", Map.of(1, 500L, 2, 700L)),
                        new Next.Duplicate("capture 2 already applied with the same amount")),
                arguments("capture 2 again under another event id, same amount: a duplicate", firstCapture, settlement("evt-s1", Map.of(1, 500L, 2, 700L)),
                        new Next.Duplicate("capture 2 already applied with the same amount")),
                arguments("capture 2 with a different amount: a conflict naming amountMinor", addCapture, settlement("evt-s1", Map.of(1, 500L, 2, 650L)),
                        new Next.Conflict(new Refusal(Refusal.Reason.CONFLICT, "amountMinor",
                                "differs from capture 2 stored for authorisation auth-1 (650); the stored capture stays"))),
                arguments("the first capture redelivered: its authorisation leaves the index again", firstCapture, settlement("evt-s2", Map.of(2, 700L)),
                        new Next.DuplicateAfter(new LeaveIndexOnSettlement(CAPTURE_2), "event already applied")),
                arguments("a capture after a version 1 settlement: the first stays, as in version 1", firstCapture, settlement("evt-s0", Map.of()),
                        new Next.Duplicate("the authorisation already has a settlement (event evt-s0)")),
                // Items a platform wrote itself may lack fields: the rules still decide (nothing read from an absent field).
                arguments("an increment on an item without currency, amount or change time: applied", increment,
                        new StoredAuthorisation("AUTHORISED", Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                                Optional.of(AT), Optional.empty(), Set.of(), Optional.empty()),
                        new Next.Write(increment)),
                arguments("an increment exactly as old as the last change: not superseded", increment,
                        auth("AUTHORISED", 2599, "EUR", Set.of(), INCREMENT.incrementedAt(), null), new Next.Write(increment)),
                arguments("a reversal on an item without currency: applied", reduce,
                        new StoredAuthorisation("AUTHORISED", Optional.empty(), Optional.empty(), Optional.of(2599L), Optional.empty(), Optional.empty(),
                                Optional.of(AT), Optional.empty(), Set.of(), Optional.empty()),
                        new Next.Write(reduce)),
                arguments("a reversal on an item without an amount: applied (the write's condition is the judge)", reduce,
                        new StoredAuthorisation("AUTHORISED", Optional.empty(), Optional.empty(), Optional.empty(), Optional.of("EUR"), Optional.empty(),
                                Optional.of(AT), Optional.empty(), Set.of(), Optional.empty()),
                        new Next.Write(reduce)),
                arguments("a reversal of all on a platform's voided item without an end event: nothing to cancel", reduce,
                        auth("VOIDED", 500, "EUR", Set.of(), null, null),
                        new Next.Duplicate("the authorisation is no longer pending (state VOIDED): a partial reversal changes nothing the reconciler decides")),
                arguments("a reversal of all on a settlement's stub: nothing to cancel", reduce, auth("UNKNOWN", 500, "EUR", Set.of(), null, null),
                        new Next.Duplicate("the authorisation is no longer pending (state UNKNOWN): a partial reversal changes nothing the reconciler decides")),
                arguments("a version 1 settlement after numbered captures: the first stays", new RecordSettlement(
                                new SettlementPosted("evt-s9", "auth-1", 700, "EUR", AT)), settlement("evt-s1", Map.of(1, 500L)),
                        new Next.Duplicate("the authorisation already has a settlement (event evt-s1)")),
                arguments("a capture on captures stored without currency: added", firstCapture,
                        new StoredSettlement(Optional.of("evt-s1"), Optional.of(AT), Optional.empty(), Map.of(1, 500L)), new Next.Write(addCapture)),
                arguments("a capture in another currency: a conflict naming currency", firstCapture,
                        new StoredSettlement(Optional.of("evt-s1"), Optional.of(AT), Optional.of("GBP"), Map.of(1, 500L)),
                        new Next.Conflict(new Refusal(Refusal.Reason.CONFLICT, "currency",
                                "differs from the stored captures of authorisation auth-1 (GBP)"))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void afterAFailedCondition(String name, IngestWrite failed, StoredItem stored, Next expected) {
        assertThat(decision.afterConditionFailed(failed, stored)).isEqualTo(expected);
    }

    /** Nothing here ever writes state back to AUTHORISED, nor changes a decided item's state: only END on an AUTHORISED one. */
    @Test
    void noNewEventEverRewindsADecision() {
        for (String state : new String[] {"RELEASE_REQUESTED", "SETTLED", "VOIDED", "UNKNOWN"}) {
            for (IngestWrite failed : new IngestWrite[] {new IncrementAuthorisation(INCREMENT), new ReduceAuthorisation(REVERSAL)}) {
                Next next = decision.afterConditionFailed(failed, auth(state, 500, "EUR", Set.of(), null, null));
                assertThat(next).as(state + " " + failed).isNotInstanceOf(Next.NotYet.class);
                if (next instanceof Next.Write write) {
                    assertThat(write.write()).as(state).isInstanceOf(RecordEndBesideDecision.class);
                }
            }
        }
    }

    /** providerReference on a repeated create: a differing one is a conflict; one side without it is the same authorisation. */
    @Test
    void aRepeatedCreateComparesProviderReferencesOnlyWhenBothHaveOne() {
        var created = new IngestEvent.AuthorisationCreated("evt-c2", "auth-1", 2599, "EUR", "m-1", AT, Optional.of("pi_b"));
        IngestWrite create = new IngestWrite.CreateAuthorisation(created, "1");
        StoredAuthorisation withA = new StoredAuthorisation("AUTHORISED", Optional.of("evt-c"), Optional.empty(), Optional.of(2599L),
                Optional.of("EUR"), Optional.of("m-1"), Optional.of(AT), Optional.of("pi_a"));
        StoredAuthorisation without = new StoredAuthorisation("AUTHORISED", Optional.of("evt-c"), Optional.empty(), Optional.of(2599L),
                Optional.of("EUR"), Optional.of("m-1"), Optional.of(AT), Optional.empty());
        assertThat(((Next.Conflict) decision.afterConditionFailed(create, withA)).refusal().field()).isEqualTo("providerReference");
        assertThat(decision.afterConditionFailed(create, without)).isInstanceOf(Next.Duplicate.class);
        StoredAuthorisation withB = new StoredAuthorisation("AUTHORISED", Optional.of("evt-c"), Optional.empty(), Optional.of(2599L),
                Optional.of("EUR"), Optional.of("m-1"), Optional.of(AT), Optional.of("pi_b"));
        assertThat(decision.afterConditionFailed(create, withB)).as("the same reference on both").isInstanceOf(Next.Duplicate.class);
        var noReference = new IngestEvent.AuthorisationCreated("evt-c3", "auth-1", 2599, "EUR", "m-1", AT);
        assertThat(decision.afterConditionFailed(new IngestWrite.CreateAuthorisation(noReference, "1"), withA)).isInstanceOf(Next.Duplicate.class);
    }
}
