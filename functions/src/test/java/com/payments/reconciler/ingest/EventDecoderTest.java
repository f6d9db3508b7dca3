package com.payments.reconciler.ingest;

import com.payments.reconciler.ingest.EventDecoder.Decoded;
import com.payments.reconciler.ingest.IngestEvent.AuthorisationCreated;
import com.payments.reconciler.ingest.IngestEvent.AuthorisationEnded;
import com.payments.reconciler.ingest.IngestEvent.AuthorisationIncremented;
import com.payments.reconciler.ingest.IngestEvent.AuthorisationReversed;
import com.payments.reconciler.ingest.IngestEvent.EndKind;
import com.payments.reconciler.ingest.IngestEvent.SettlementPosted;
import java.time.Instant;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class EventDecoderTest {

    private static final String CREATED = """
            {"version":1,"type":"authorisation.created","eventId":"evt-1","authorisationId":"auth-1",\
            "amountMinor":2599,"currency":"EUR","merchantId":"merchant-17","authorisedAt":"2026-11-28T14:03:07.512+01:00"}""";

    /** Version 2's create with the provider's id of the authorisation (a Stripe PaymentIntent id). */
    static final String V2_CREATED = CREATED.replace("\"version\":1", "\"version\":2")
            .replace("\"authorisedAt\"", "\"providerReference\":\"pi_3MtwBwLkdIwHu7ix28a3tqPa\",\"authorisedAt\"");

    private final EventDecoder decoder = new EventDecoder();

    static Stream<Arguments> goodEvents() {
        return Stream.of(
                arguments(CREATED, new AuthorisationCreated("evt-1", "auth-1", 2599, "EUR", "merchant-17",
                        Instant.parse("2026-11-28T13:03:07.512Z"))),
                arguments("""
                        {"version":1,"type":"authorisation.voided","eventId":"e:2","authorisationId":"A.2","endedAt":"2026-11-28T15:00:00Z"}""",
                        new AuthorisationEnded("e:2", "A.2", EndKind.VOIDED, Instant.parse("2026-11-28T15:00:00Z"))),
                arguments("""
                        {"version":1,"type":"authorisation.expired","eventId":"e_3","authorisationId":"a-3","endedAt":"2026-12-05T00:00:00-05:00"}""",
                        new AuthorisationEnded("e_3", "a-3", EndKind.EXPIRED, Instant.parse("2026-12-05T05:00:00Z"))),
                arguments("""
                        {"type":"settlement.posted","version":1,"eventId":"evt-4","authorisationId":"auth-1",\
                        "amountMinor":99999999999,"currency":"JPY","settledAt":"2026-11-30T02:10:00.000Z"}""",
                        new SettlementPosted("evt-4", "auth-1", 99_999_999_999L, "JPY", Instant.parse("2026-11-30T02:10:00Z"))),
                // A UUID-style id: digit groups shorter than 12, dash-separated, is not card data.
                arguments(CREATED.replace("\"evt-1\"", "\"550e8400-e29b-41d4-a716-44665544abcd\""),
                        new AuthorisationCreated("550e8400-e29b-41d4-a716-44665544abcd", "auth-1", 2599, "EUR", "merchant-17",
                                Instant.parse("2026-11-28T13:03:07.512Z"))),
                arguments(V2_CREATED, new AuthorisationCreated("evt-1", "auth-1", 2599, "EUR", "merchant-17",
                        Instant.parse("2026-11-28T13:03:07.512Z"), Optional.of("pi_3MtwBwLkdIwHu7ix28a3tqPa"))),
                // An Adyen pspReference: sixteen characters, letters and digits.
                arguments(V2_CREATED.replace("pi_3MtwBwLkdIwHu7ix28a3tqPa", "G7Q9ZK2MXBZN8V65"), new AuthorisationCreated("evt-1", "auth-1",
                        2599, "EUR", "merchant-17", Instant.parse("2026-11-28T13:03:07.512Z"), Optional.of("G7Q9ZK2MXBZN8V65"))),
                // Optional in version 2: the same create without it.
                arguments(CREATED.replace("\"version\":1", "\"version\":2"), new AuthorisationCreated("evt-1", "auth-1", 2599, "EUR",
                        "merchant-17", Instant.parse("2026-11-28T13:03:07.512Z"))),
                arguments(V2_CREATED.replace("\"authorisedAt\"", "\"holdUntil\":\"2026-12-29T00:00:00Z\",\"authorisedAt\""),
                        new AuthorisationCreated("evt-1", "auth-1", 2599, "EUR", "merchant-17", Instant.parse("2026-11-28T13:03:07.512Z"),
                                Optional.of("pi_3MtwBwLkdIwHu7ix28a3tqPa"), Optional.of(Instant.parse("2026-12-29T00:00:00Z")))),
                arguments(INCREMENTED, new AuthorisationIncremented("evt-i", "auth-1", 4000, "EUR", Instant.parse("2026-11-29T10:00:00Z"),
                        Optional.of(Instant.parse("2026-12-29T10:00:00Z")))),
                arguments(INCREMENTED.replace(",\"holdUntil\":\"2026-12-29T10:00:00Z\"", ""),
                        new AuthorisationIncremented("evt-i", "auth-1", 4000, "EUR", Instant.parse("2026-11-29T10:00:00Z"), Optional.empty())),
                arguments(PARTLY_REVERSED, new AuthorisationReversed("evt-r", "auth-1", 500, "EUR", Instant.parse("2026-11-29T11:00:00Z"))),
                arguments(FULLY_REVERSED, new AuthorisationEnded("evt-f", "auth-1", EndKind.REVERSED, Instant.parse("2026-11-29T11:00:00Z"))),
                arguments(CAPTURE, new SettlementPosted("evt-s2", "auth-1", 700, "EUR", Instant.parse("2026-11-30T02:10:00Z"),
                        Optional.of(2), Optional.of(true))),
                arguments(CAPTURE.replace(",\"finalCapture\":true", ""), new SettlementPosted("evt-s2", "auth-1", 700, "EUR",
                        Instant.parse("2026-11-30T02:10:00Z"), Optional.of(2), Optional.empty())),
                // The bounds of captureSequence, and a final capture that says more follow.
                arguments(CAPTURE.replace("\"captureSequence\":2", "\"captureSequence\":1").replace("\"finalCapture\":true", "\"finalCapture\":false"),
                        new SettlementPosted("evt-s2", "auth-1", 700, "EUR", Instant.parse("2026-11-30T02:10:00Z"), Optional.of(1), Optional.of(false))),
                arguments(CAPTURE.replace("\"captureSequence\":2", "\"captureSequence\":9999"), new SettlementPosted("evt-s2", "auth-1", 700, "EUR",
                        Instant.parse("2026-11-30T02:10:00Z"), Optional.of(9999), Optional.of(true))),
                // holdUntil equal to the event's own time is accepted (not before it).
                arguments(INCREMENTED.replace("2026-12-29T10:00:00Z", "2026-11-29T10:00:00Z"), new AuthorisationIncremented("evt-i", "auth-1", 4000,
                        "EUR", Instant.parse("2026-11-29T10:00:00Z"), Optional.of(Instant.parse("2026-11-29T10:00:00Z")))));
    }

    static final String INCREMENTED = """
            {"version":2,"type":"authorisation.incremented","eventId":"evt-i","authorisationId":"auth-1","amountMinor":4000,\
            "currency":"EUR","incrementedAt":"2026-11-29T10:00:00Z","holdUntil":"2026-12-29T10:00:00Z"}""";
    static final String PARTLY_REVERSED = """
            {"version":2,"type":"authorisation.reversed","eventId":"evt-r","authorisationId":"auth-1","amountMinor":500,\
            "currency":"EUR","reversedAt":"2026-11-29T11:00:00Z"}""";
    static final String FULLY_REVERSED = """
            {"version":2,"type":"authorisation.reversed","eventId":"evt-f","authorisationId":"auth-1","full":true,\
            "reversedAt":"2026-11-29T11:00:00Z"}""";
    static final String CAPTURE = """
            {"version":2,"type":"settlement.posted","eventId":"evt-s2","authorisationId":"auth-1","amountMinor":700,"currency":"EUR",\
            "settledAt":"2026-11-30T02:10:00Z","captureSequence":2,"finalCapture":true}""";

    @ParameterizedTest
    @MethodSource("goodEvents")
    void decodesEveryEventOfTheContract(String body, IngestEvent expected) {
        assertThat(decoder.decode(body)).isEqualTo(new Decoded.Valid(expected));
    }

    /** Bad events: the field named, the accepted form said, and the reason class. */
    static Stream<Arguments> badEvents() {
        return Stream.of(
                bad(null, Refusal.Reason.MALFORMED, "event", "required, a JSON object"),
                bad("", Refusal.Reason.MALFORMED, "event", "required, a JSON object"),
                bad("{\"version\":1,", Refusal.Reason.MALFORMED, "event", "not valid JSON"),
                bad("[1,2]", Refusal.Reason.MALFORMED, "event", "must be a JSON object"),
                bad(CREATED.replace("\"version\":1", "\"version\":3"), Refusal.Reason.MALFORMED, "version", "must be the integer 1 or 2"),
                bad(CREATED.replace("\"version\":1", "\"version\":\"1\""), Refusal.Reason.MALFORMED, "version", "must be the integer 1"),
                bad(CREATED.replace("\"version\":1,", ""), Refusal.Reason.MALFORMED, "version", "was absent"),
                bad(CREATED.replace("authorisation.created", "authorisation.captured"), Refusal.Reason.MALFORMED, "type",
                        "must be one of authorisation.created, authorisation.voided, authorisation.expired, settlement.posted"),
                bad(CREATED.replace("\"merchantId\"", "\"note\":\"x\",\"merchantId\""), Refusal.Reason.MALFORMED, "note",
                        "unknown field for authorisation.created; accepted fields are [version, type"),
                bad(CREATED.replace("\"eventId\":\"evt-1\",", ""), Refusal.Reason.MALFORMED, "eventId", "required, 1-128 characters"),
                bad(CREATED.replace("\"evt-1\"", "\"-evt\""), Refusal.Reason.MALFORMED, "eventId", "starting with a letter or digit"),
                bad(CREATED.replace("\"auth-1\"", "\"auth 1\""), Refusal.Reason.MALFORMED, "authorisationId", "1-128 characters of A-Z"),
                bad(CREATED.replace("\"auth-1\"", "\"" + "a".repeat(129) + "\""), Refusal.Reason.MALFORMED, "authorisationId", "...(131 characters)"),
                bad(CREATED.replace("\"auth-1\"", "7"), Refusal.Reason.MALFORMED, "authorisationId", "must be a JSON string"),
                bad(CREATED.replace("2599", "\"2599\""), Refusal.Reason.MALFORMED, "amountMinor", "a JSON number, not a string"),
                bad(CREATED.replace("2599", "25.99"), Refusal.Reason.MALFORMED, "amountMinor", "an integer from 1 to 99999999999"),
                bad(CREATED.replace("2599", "0"), Refusal.Reason.MALFORMED, "amountMinor", "an integer from 1"),
                bad(CREATED.replace("2599", "-5"), Refusal.Reason.MALFORMED, "amountMinor", "an integer from 1"),
                bad(CREATED.replace("2599", "100000000000"), Refusal.Reason.MALFORMED, "amountMinor", "to 99999999999"),
                bad(CREATED.replace("\"EUR\"", "\"eur\""), Refusal.Reason.MALFORMED, "currency", "ISO 4217 code of three capital letters such as EUR, was \"eur\""),
                bad(CREATED.replace("\"EUR\"", "\"EURO\""), Refusal.Reason.MALFORMED, "currency", "ISO 4217"),
                bad(CREATED.replace("+01:00", ""), Refusal.Reason.MALFORMED, "authorisedAt", "with an offset (Z or +hh:mm)"),
                bad(CREATED.replace("\"2026-11-28T14:03:07.512+01:00\"", "1764335000000"), Refusal.Reason.MALFORMED, "authorisedAt", "must be a JSON string"),
                bad(CREATED.replace("07.512", "07.512345"), Refusal.Reason.MALFORMED, "authorisedAt", "finer than a millisecond is refused, not rounded"),
                bad(CREATED.replace("2026-11-28", "1999-12-31"), Refusal.Reason.MALFORMED, "authorisedAt", "must be from 2000-01-01T00:00:00Z"),
                bad("""
                        {"version":1,"type":"authorisation.voided","eventId":"e","authorisationId":"a","settledAt":"2026-11-28T15:00:00Z"}""",
                        Refusal.Reason.MALFORMED, "settledAt", "accepted fields are [version, type, eventId, authorisationId, endedAt]"),
                bad("""
                        {"version":1,"type":"settlement.posted","eventId":"e","authorisationId":"a","currency":"EUR","settledAt":"2026-11-28T15:00:00Z"}""",
                        Refusal.Reason.MALFORMED, "amountMinor", "required, an integer"),
                bad(CREATED.replace("\"version\":1,", "\"version\":1,\"version\":1,"), Refusal.Reason.MALFORMED, "event", "not valid JSON"),
                // Cardholder data: refused whatever else the event holds, and the value never in the reason.
                bad(CREATED.replace("\"merchantId\"", "\"pan\":\"4111111111111111\",\"merchantId\""), Refusal.Reason.CARDHOLDER_DATA, "pan",
                        "looks like cardholder data"),
                bad(CREATED.replace("\"merchantId\"", "\"cvv\":\"123\",\"merchantId\""), Refusal.Reason.CARDHOLDER_DATA, "cvv",
                        "looks like cardholder data"),
                bad(CREATED.replace("\"merchantId\"", "\"4111111111111111\":1,\"merchantId\""), Refusal.Reason.CARDHOLDER_DATA, "(a field name)",
                        "looks like cardholder data"),
                bad(CREATED.replace("\"auth-1\"", "\"4111-1111-1111-1111\""), Refusal.Reason.CARDHOLDER_DATA, "authorisationId",
                        "neither stored nor logged"),
                bad(CREATED.replace("\"merchant-17\"", "\"m 5500 0000 0000 0004\""), Refusal.Reason.CARDHOLDER_DATA, "merchantId",
                        "Luhn-valid run of 12-19 digits"),
                // Version 2's new fields and types.
                bad(INCREMENTED.replace("\"version\":2", "\"version\":1"), Refusal.Reason.MALFORMED, "type", "must be one of"),
                bad(INCREMENTED.replace("2026-12-29T10:00:00Z", "2026-11-29T09:59:59Z"), Refusal.Reason.MALFORMED, "holdUntil", "must not be before incrementedAt"),
                bad(INCREMENTED.replace("2026-12-29T10:00:00Z", "soon"), Refusal.Reason.MALFORMED, "holdUntil", "ISO 8601"),
                bad(INCREMENTED.replace(",\"incrementedAt\":\"2026-11-29T10:00:00Z\"", ""), Refusal.Reason.MALFORMED, "incrementedAt", "required"),
                bad(PARTLY_REVERSED.replace(",\"reversedAt\"", ",\"full\":true,\"reversedAt\""), Refusal.Reason.MALFORMED, "amountMinor", "must be absent with"),
                bad(FULLY_REVERSED.replace("\"full\":true", "\"full\":true,\"currency\":\"EUR\""), Refusal.Reason.MALFORMED, "currency", "must be absent with"),
                bad(FULLY_REVERSED.replace("\"full\":true", "\"full\":true,\"amountMinor\":5"), Refusal.Reason.MALFORMED, "amountMinor", "must be absent with"),
                bad(FULLY_REVERSED.replace("\"full\":true", "\"full\":false"), Refusal.Reason.MALFORMED, "full", "must be true"),
                bad(FULLY_REVERSED.replace("\"full\":true", "\"full\":\"true\""), Refusal.Reason.MALFORMED, "full", "must be true"),
                bad(FULLY_REVERSED.replace("\"full\":true,", ""), Refusal.Reason.MALFORMED, "amountMinor", "required for a partial reversal"),
                bad(PARTLY_REVERSED.replace(",\"currency\":\"EUR\"", ""), Refusal.Reason.MALFORMED, "currency", "required"),
                bad(PARTLY_REVERSED.replace(",\"reversedAt\":\"2026-11-29T11:00:00Z\"", ""), Refusal.Reason.MALFORMED, "reversedAt", "required"),
                bad(CAPTURE.replace("\"captureSequence\":2", "\"captureSequence\":0"), Refusal.Reason.MALFORMED, "captureSequence", "from 1 to 9999"),
                bad(CAPTURE.replace("\"captureSequence\":2", "\"captureSequence\":10000"), Refusal.Reason.MALFORMED, "captureSequence", "from 1 to 9999"),
                bad(CAPTURE.replace("\"captureSequence\":2", "\"captureSequence\":\"2\""), Refusal.Reason.MALFORMED, "captureSequence", "an integer"),
                bad(CAPTURE.replace("\"captureSequence\":2", "\"captureSequence\":2.5"), Refusal.Reason.MALFORMED, "captureSequence", "an integer"),
                bad(CAPTURE.replace("\"captureSequence\":2", "\"captureSequence\":4294967298"), Refusal.Reason.MALFORMED, "captureSequence", "an integer"),
                bad(CAPTURE.replace("\"finalCapture\":true", "\"finalCapture\":\"true\""), Refusal.Reason.MALFORMED, "finalCapture", "true or false"),
                bad(V2_CREATED.replace("\"pi_3MtwBwLkdIwHu7ix28a3tqPa\"", "42"), Refusal.Reason.MALFORMED, "providerReference",
                        "1-64 characters of A-Z a-z 0-9 _ - (a JSON string), or absent; was 42"),
                bad(V2_CREATED.replace("\"pi_3MtwBwLkdIwHu7ix28a3tqPa\"", "null"), Refusal.Reason.MALFORMED, "providerReference", "or absent"),
                bad(V2_CREATED.replace("pi_3MtwBwLkdIwHu7ix28a3tqPa", ""), Refusal.Reason.MALFORMED, "providerReference", "1-64 characters"),
                bad(V2_CREATED.replace("pi_3MtwBwLkdIwHu7ix28a3tqPa", "pi 3Mtw"), Refusal.Reason.MALFORMED, "providerReference", "1-64 characters"),
                bad(V2_CREATED.replace("pi_3MtwBwLkdIwHu7ix28a3tqPa", "p".repeat(65)), Refusal.Reason.MALFORMED, "providerReference",
                        "1-64 characters"),
                // A provider's outcome exists in version 2 only, and an event without a type is no outcome.
                bad("""
                        {"version":1,"type":"provider.outcome","eventId":"adyen-X-success","authorisationId":"a","operationId":"release-hold:a",\
                        "provider":"adyen","requestReference":"X","success":true}""", Refusal.Reason.MALFORMED, "type", "must be one of"),
                bad(CREATED.replace("\"type\":\"authorisation.created\",", ""), Refusal.Reason.MALFORMED, "type", "must be one of"),
                bad(CREATED.replace("\"version\":1", "\"version\":2").replace("\"type\":\"authorisation.created\",", ""),
                        Refusal.Reason.MALFORMED, "type", "must be one of"),
                bad(CREATED.replace("2599", "4111111111111111"), Refusal.Reason.CARDHOLDER_DATA, "amountMinor", "looks like cardholder data"),
                bad("{\"version\":1, 4111111111111111", Refusal.Reason.CARDHOLDER_DATA, "(the event)", "looks like cardholder data"));
    }

    private static Arguments bad(String body, Refusal.Reason reason, String field, String problemPart) {
        return arguments(body, reason, field, problemPart);
    }

    @ParameterizedTest
    @MethodSource("badEvents")
    void refusesABadEventNamingTheFieldAndTheAcceptedForm(String body, Refusal.Reason reason, String field, String problemPart) {
        Decoded decoded = decoder.decode(body);
        assertThat(decoded).isInstanceOf(Decoded.Refused.class);
        Refusal refusal = ((Decoded.Refused) decoded).refusal();
        assertThat(refusal.reason()).isEqualTo(reason);
        assertThat(refusal.field()).isEqualTo(field);
        assertThat(refusal.problem()).contains(problemPart);
        if (body != null) {
            // Whatever the refusal, it never repeats a card-number-like value of the event.
            assertThat(CardDataScreen.containsCardNumber(refusal.message())).isFalse();
        }
    }

    @Test
    void aJsonSyntaxErrorNeverQuotesTheBody() {
        Refusal refusal = ((Decoded.Refused) decoder.decode("{\"version\":1,\"type\":secret-token-xyz}")).refusal();
        assertThat(refusal.message()).doesNotContain("secret-token-xyz").contains("line 1, column");
    }
}
