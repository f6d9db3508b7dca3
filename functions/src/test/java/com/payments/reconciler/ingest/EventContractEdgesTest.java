package com.payments.reconciler.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.payments.reconciler.ingest.EventDecoder.Decoded;
import com.payments.reconciler.ingest.IngestEvent.AuthorisationCreated;
import com.payments.reconciler.ingest.IngestEvent.AuthorisationEnded;
import com.payments.reconciler.ingest.IngestEvent.EndKind;
import com.payments.reconciler.ingest.IngestWrite.CreateAuthorisation;
import com.payments.reconciler.ingest.IngestWrite.EndAuthorisation;
import com.payments.reconciler.ingest.IngestionDecision.Next;
import com.payments.reconciler.ingest.StoredItem.StoredAuthorisation;
import java.time.Instant;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The edges of the event contract (docs/integration.md) as tables: each bound of a field accepted on its inside and
 * refused just outside with the whole problem text, values that a lenient reading would wrap into range, and the
 * stored items a repeated create or end meets.
 */
class EventContractEdgesTest {

    private static final String CREATED = """
            {"version":1,"type":"authorisation.created","eventId":"evt-1","authorisationId":"auth-1",\
            "amountMinor":2599,"currency":"EUR","merchantId":"merchant-17","authorisedAt":"2026-11-28T14:03:07.512+01:00"}""";
    private static final Instant AUTHORISED_AT = Instant.parse("2026-11-28T13:03:07.512Z");

    private final EventDecoder decoder = new EventDecoder();

    private static AuthorisationCreated created(long amount, Instant at) {
        return new AuthorisationCreated("evt-1", "auth-1", amount, "EUR", "merchant-17", at);
    }

    static Stream<Arguments> accepted() {
        return Stream.of(
                arguments("the smallest amount", CREATED.replace("2599", "1"), created(1, AUTHORISED_AT)),
                arguments("the last millisecond before 2100", CREATED.replace("2026-11-28T14:03:07.512+01:00", "2099-12-31T23:59:59.999Z"),
                        created(2599, Instant.parse("2099-12-31T23:59:59.999Z"))),
                arguments("the first instant of 2000", CREATED.replace("2026-11-28T14:03:07.512+01:00", "2000-01-01T00:00:00Z"),
                        created(2599, Instant.parse("2000-01-01T00:00:00Z"))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("accepted")
    void valuesOnTheInsideOfEachBoundAreAccepted(String name, String body, IngestEvent expected) {
        assertThat(decoder.decode(body)).isEqualTo(new Decoded.Valid(expected));
        assertThat(((Decoded.Valid) decoder.decode(body)).event()).isEqualTo(expected);
    }

    static Stream<Arguments> refused() {
        String amountForm = "an integer from 1 to 99999999999 (minor units: cents, pence; a JSON number, not a string)";
        String instantForm = "an ISO 8601 date-time with an offset (Z or +hh:mm) and at most millisecond precision, e.g. 2026-11-28T14:03:07.512+01:00";
        return Stream.of(
                arguments("a fractional version", CREATED.replace("\"version\":1", "\"version\":1.0"), "version",
                        "must be the integer 1 or 2 (the contract versions accepted), was 1.0"),
                arguments("a version that wraps to 1 as an int", CREATED.replace("\"version\":1", "\"version\":4294967297"), "version",
                        "must be the integer 1 or 2 (the contract versions accepted), was 4294967297"),
                arguments("no type", CREATED.replace("\"type\":\"authorisation.created\",", ""), "type",
                        "must be one of authorisation.created, authorisation.voided, authorisation.expired, settlement.posted, was absent"),
                arguments("a type that is not a string", CREATED.replace("\"authorisation.created\"", "7"), "type",
                        "must be one of authorisation.created, authorisation.voided, authorisation.expired, settlement.posted, was 7"),
                arguments("an amount of null", CREATED.replace("2599", "null"), "amountMinor", "required, " + amountForm),
                arguments("an amount that wraps to 274 as a long (3 x 2^64 + 274, no Luhn-valid run in it)", CREATED.replace("2599", "55340232221128655122"), "amountMinor",
                        "must be " + amountForm + ", was 55340232221128655122"),
                arguments("an event id of null", CREATED.replace("\"evt-1\"", "null"), "eventId",
                        "required, " + EventDecoder.ID_FORM),
                arguments("the first instant of 2100", CREATED.replace("2026-11-28T14:03:07.512+01:00", "2100-01-01T00:00:00Z"), "authorisedAt",
                        "must be from 2000-01-01T00:00:00Z to before 2100-01-01T00:00:00Z, was \"2100-01-01T00:00:00Z\""),
                arguments("the last millisecond before 2000", CREATED.replace("2026-11-28T14:03:07.512+01:00", "1999-12-31T23:59:59.999Z"), "authorisedAt",
                        "must be from 2000-01-01T00:00:00Z to before 2100-01-01T00:00:00Z, was \"1999-12-31T23:59:59.999Z\""),
                arguments("a local time", CREATED.replace("+01:00", ""), "authorisedAt",
                        "must be " + instantForm + ", was \"2026-11-28T14:03:07.512\""),
                // A shown value is the JSON text in full up to 40 characters (here 38 and its quotes), then cut.
                arguments("a bad id of 40 characters shown whole", CREATED.replace("\"auth-1\"", "\"-" + "a".repeat(37) + "\""), "authorisationId",
                        "must be " + EventDecoder.ID_FORM + ", was \"-" + "a".repeat(37) + "\""),
                arguments("a bad id of 41 characters cut", CREATED.replace("\"auth-1\"", "\"-" + "a".repeat(38) + "\""), "authorisationId",
                        "must be " + EventDecoder.ID_FORM + ", was \"-" + "a".repeat(38) + "...(41 characters)"));
    }

    /** The whole problem: the field is named once, in the refusal's field, not again at the start of its problem. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void valuesJustOutsideEachBoundAreRefusedWithTheWholeProblem(String name, String body, String field, String problem) {
        Decoded decoded = decoder.decode(body);
        assertThat(decoded).isInstanceOf(Decoded.Refused.class);
        Refusal refusal = ((Decoded.Refused) decoded).refusal();
        assertThat(refusal).isEqualTo(new Refusal(Refusal.Reason.MALFORMED, field, problem));
    }

    // ---- a repeated create or end meets the stored item --------------------------------------------------------

    private static final AuthorisationCreated CREATE_EVENT = new AuthorisationCreated("evt-c", "auth-1", 2599, "EUR", "m-1", AUTHORISED_AT);
    private static final AuthorisationEnded VOID_EVENT = new AuthorisationEnded("evt-v", "auth-1", EndKind.VOIDED, AUTHORISED_AT.plusSeconds(60));

    private static StoredAuthorisation stored(String state, String endEvent, Long amount, String currency, String merchant, Instant at) {
        return new StoredAuthorisation(state, Optional.of("evt-other"), Optional.ofNullable(endEvent), Optional.ofNullable(amount),
                Optional.ofNullable(currency), Optional.ofNullable(merchant), Optional.ofNullable(at));
    }

    private static Next conflict(String first, String fields) {
        return new Next.Conflict(new Refusal(Refusal.Reason.CONFLICT, first, "differs from the stored authorisation auth-1 (fields "
                + fields + "); the stored one stays, and a second authorisation.created may only repeat it"));
    }

    static Stream<Arguments> repeats() {
        IngestWrite create = new CreateAuthorisation(CREATE_EVENT, "1");
        IngestWrite end = new EndAuthorisation(VOID_EVENT);
        return Stream.of(
                arguments("another currency", create, stored("AUTHORISED", null, 2599L, "GBP", "m-1", AUTHORISED_AT),
                        conflict("currency", "[currency]")),
                arguments("another authorisation time", create, stored("AUTHORISED", null, 2599L, "EUR", "m-1", AUTHORISED_AT.plusMillis(1)),
                        conflict("authorisedAt", "[authorisedAt]")),
                arguments("another merchant", create, stored("AUTHORISED", null, 2599L, "EUR", "m-2", AUTHORISED_AT),
                        conflict("merchantId", "[merchantId]")),
                arguments("everything differs: named in the contract's order", create, stored("AUTHORISED", null, 1L, "GBP", "m-2", AUTHORISED_AT.plusSeconds(1)),
                        conflict("amountMinor", "[amountMinor, currency, authorisedAt, merchantId]")),
                arguments("voided by the platform without an event id", end, stored("VOIDED", null, 2599L, "EUR", "m-1", AUTHORISED_AT),
                        new Next.Duplicate("the authorisation already ended (event unrecorded)")),
                arguments("an end already recorded beside the reconciler's decision", end, stored("RELEASE_REQUESTED", "evt-x", 2599L, "EUR", "m-1", AUTHORISED_AT),
                        new Next.Duplicate("the authorisation already ended (event evt-x)")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("repeats")
    void aRepeatedCreateOrEndMeetsTheStoredItem(String name, IngestWrite failed, StoredItem stored, Next expected) {
        Next next = new IngestionDecision(4).afterConditionFailed(failed, stored);
        assertThat(next).isEqualTo(expected);
        // What the caller reads off the step: the refusal to report, or why nothing was written.
        switch (next) {
            case Next.Conflict c -> assertThat(c.refusal().problem()).startsWith("differs from the stored authorisation auth-1 (fields [");
            case Next.Duplicate d -> assertThat(d.why()).startsWith("the authorisation already ended (event ");
            case Next.Write w -> throw new AssertionError("a repeat writes nothing here: " + w);
            case Next.DuplicateAfter d -> throw new AssertionError("only a repeated settlement repeats its follow-up: " + d);
            case Next.NotYet n -> throw new AssertionError("only an increment or a partial reversal waits for its create: " + n);
        }
    }

    @Test
    void aCreateAfterAnEndOnlyFillsInTheStub() {
        Next next = new IngestionDecision(4).afterConditionFailed(new CreateAuthorisation(CREATE_EVENT, "1"),
                new StoredAuthorisation("EXPIRED", Optional.empty(), Optional.of("evt-x"), Optional.empty(), Optional.empty(),
                        Optional.empty(), Optional.empty()));
        assertThat(((Next.Write) next).write()).isEqualTo(new IngestWrite.CompleteEndedAuthorisation(CREATE_EVENT, "EXPIRED"));
    }
}
