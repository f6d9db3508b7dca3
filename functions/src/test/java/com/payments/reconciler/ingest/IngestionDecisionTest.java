package com.payments.reconciler.ingest;

import com.payments.reconciler.ingest.IngestEvent.AuthorisationCreated;
import com.payments.reconciler.ingest.IngestEvent.AuthorisationEnded;
import com.payments.reconciler.ingest.IngestEvent.EndKind;
import com.payments.reconciler.ingest.IngestEvent.SettlementPosted;
import com.payments.reconciler.ingest.IngestWrite.CompleteEndedAuthorisation;
import com.payments.reconciler.ingest.IngestWrite.CreateAuthorisation;
import com.payments.reconciler.ingest.IngestWrite.EndAuthorisation;
import com.payments.reconciler.ingest.IngestWrite.RecordEndBesideDecision;
import com.payments.reconciler.ingest.IngestWrite.RecordSettlement;
import com.payments.reconciler.ingest.IngestionDecision.Next;
import com.payments.reconciler.ingest.StoredItem.StoredAuthorisation;
import com.payments.reconciler.ingest.StoredItem.StoredSettlement;
import com.payments.reconciler.reconcile.Shards;
import java.time.Instant;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** What each event writes first, and what a failed condition means given the stored item: a table of cases. */
class IngestionDecisionTest {

    private static final Instant AT = Instant.parse("2026-11-28T13:03:07.512Z");
    private static final AuthorisationCreated CREATED = new AuthorisationCreated("evt-c", "auth-1", 2599, "EUR", "m-1", AT);
    private static final AuthorisationEnded VOIDED = new AuthorisationEnded("evt-v", "auth-1", EndKind.VOIDED, AT.plusSeconds(60));
    private static final SettlementPosted SETTLED = new SettlementPosted("evt-s", "auth-1", 2599, "EUR", AT.plusSeconds(3600));

    private final IngestionDecision decision = new IngestionDecision(4);

    @Test
    void eachEventsFirstWrite() {
        assertThat(decision.first(CREATED)).isEqualTo(new CreateAuthorisation(CREATED, Shards.key(Shards.of("auth-1", 4))));
        assertThat(decision.first(VOIDED)).isEqualTo(new EndAuthorisation(VOIDED));
        assertThat(decision.first(SETTLED)).isEqualTo(new RecordSettlement(SETTLED));
    }

    private static StoredAuthorisation auth(String state, String createdEvent, String endEvent, Long amount, String currency,
                                            String merchant, Instant authorisedAt) {
        return new StoredAuthorisation(state, Optional.ofNullable(createdEvent), Optional.ofNullable(endEvent),
                Optional.ofNullable(amount), Optional.ofNullable(currency), Optional.ofNullable(merchant), Optional.ofNullable(authorisedAt));
    }

    static Stream<Arguments> cases() {
        IngestWrite create = new CreateAuthorisation(CREATED, "1");
        IngestWrite end = new EndAuthorisation(VOIDED);
        IngestWrite settle = new RecordSettlement(SETTLED);
        return Stream.of(
                // authorisation.created
                arguments("create redelivered", create, auth("AUTHORISED", "evt-c", null, 2599L, "EUR", "m-1", AT),
                        new Next.Duplicate("event already applied")),
                arguments("create redelivered after the reconciler decided", create, auth("RELEASE_REQUESTED", "evt-c", null, 2599L, "EUR", "m-1", AT),
                        new Next.Duplicate("event already applied")),
                arguments("same authorisation under another event id", create, auth("AUTHORISED", "evt-other", null, 2599L, "EUR", "m-1", AT),
                        new Next.Duplicate("the authorisation is stored with the same fields (another event id)")),
                arguments("platform-written item without event ids, same fields", create, auth("AUTHORISED", null, null, 2599L, "EUR", null, AT),
                        new Next.Duplicate("the authorisation is stored with the same fields (another event id)")),
                arguments("void arrived first: complete the stub, it stays ended", create, auth("VOIDED", null, "evt-v", null, null, null, null),
                        new Next.Write(new CompleteEndedAuthorisation(CREATED, "VOIDED"))),
                arguments("a different amount: conflict naming it", create, auth("AUTHORISED", "evt-other", null, 2600L, "EUR", "m-1", AT),
                        new Next.Conflict(new Refusal(Refusal.Reason.CONFLICT, "amountMinor", "differs from the stored authorisation auth-1 "
                                + "(fields [amountMinor]); the stored one stays, and a second authorisation.created may only repeat it"))),
                // authorisation.voided / expired
                arguments("void redelivered", end, auth("VOIDED", "evt-c", "evt-v", 2599L, "EUR", "m-1", AT),
                        new Next.Duplicate("event already applied")),
                arguments("expired after voided", end, auth("VOIDED", "evt-c", "evt-x", 2599L, "EUR", "m-1", AT),
                        new Next.Duplicate("the authorisation already ended (event evt-x)")),
                arguments("void after the reconciler requested the release: recorded, never rewound", end,
                        auth("RELEASE_REQUESTED", "evt-c", null, 2599L, "EUR", "m-1", AT),
                        new Next.Write(new RecordEndBesideDecision(VOIDED, "RELEASE_REQUESTED"))),
                arguments("void redelivered after it was recorded beside the decision", end,
                        auth("RELEASE_REQUESTED", "evt-c", "evt-v", 2599L, "EUR", "m-1", AT),
                        new Next.Duplicate("event already applied")),
                arguments("a platform's own SETTLED state: recorded beside it", end, auth("SETTLED", null, null, 2599L, "EUR", null, AT),
                        new Next.Write(new RecordEndBesideDecision(VOIDED, "SETTLED"))),
                arguments("AUTHORISED in the answer (a racing write): the end again", end, auth("AUTHORISED", "evt-c", null, 2599L, "EUR", "m-1", AT),
                        new Next.Write(new EndAuthorisation(VOIDED))),
                // settlement.posted
                arguments("settlement redelivered: its authorisation leaves the index again", settle, new StoredSettlement(Optional.of("evt-s"), Optional.of(AT)),
                        new Next.DuplicateAfter(new IngestWrite.LeaveIndexOnSettlement(SETTLED), "event already applied")),
                arguments("a second settlement: the first stays", settle, new StoredSettlement(Optional.of("evt-s0"), Optional.of(AT)),
                        new Next.Duplicate("the authorisation already has a settlement (event evt-s0)")),
                arguments("a settlement the platform wrote itself", settle, new StoredSettlement(Optional.empty(), Optional.of(AT)),
                        new Next.Duplicate("the authorisation already has a settlement (event unrecorded)")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void afterAFailedCondition(String name, IngestWrite failed, StoredItem stored, Next expected) {
        assertThat(decision.afterConditionFailed(failed, stored)).isEqualTo(expected);
    }

    @Test
    void aStubItsSettlementMadeIsCompletedOutOfTheIndexAndAStoredSettlementCallsForTheIndexToBeLeft() {
        IngestWrite create = new CreateAuthorisation(CREATED, "1");
        assertThat(decision.afterConditionFailed(create, auth("UNKNOWN", null, null, null, null, null, null)))
                .isEqualTo(new Next.Write(new IngestWrite.CompleteSettledAuthorisation(CREATED)));
        assertThat(decision.followUp(new RecordSettlement(SETTLED))).contains(new IngestWrite.LeaveIndexOnSettlement(SETTLED));
        assertThat(decision.followUp(create)).isEmpty();
    }

    @Test
    void noDecisionEverMovesAnItemBackIntoAuthorisedOrOutOfADecidedState() {
        // The writes that touch a decided item (RecordEndBesideDecision) pin the observed state; the only write that changes
        // state (EndAuthorisation) only ever comes for an absent or AUTHORISED item.
        for (String state : new String[] {"RELEASE_REQUESTED", "SETTLED", "VOIDED", "SOMETHING_ELSE"}) {
            Next next = decision.afterConditionFailed(new EndAuthorisation(VOIDED), auth(state, "evt-c", null, 2599L, "EUR", "m-1", AT));
            assertThat(next).as(state).isNotEqualTo(new Next.Write(new EndAuthorisation(VOIDED)));
        }
    }
}
