package com.payments.reconciler.ingest;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.ingest.IngestEvent.AuthorisationCreated;
import com.payments.reconciler.ingest.IngestEvent.AuthorisationEnded;
import com.payments.reconciler.ingest.IngestEvent.AuthorisationIncremented;
import com.payments.reconciler.ingest.IngestEvent.AuthorisationReversed;
import com.payments.reconciler.ingest.IngestEvent.EndKind;
import com.payments.reconciler.ingest.IngestEvent.SettlementPosted;
import com.payments.reconciler.workflow.InvalidInput;
import com.payments.reconciler.workflow.Json;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Turns a message body into an {@link IngestEvent} or a {@link Refusal} naming the field and the accepted form
 * (docs/integration.md). Pure: no clock, no I/O. The card-data screen runs on the whole parsed event before any
 * field is read; a body that is not JSON is screened as text, and Jackson's own message (which quotes the body)
 * is never passed on.
 */
public final class EventDecoder {

    /** The first contract version: still accepted, decoded exactly as before version 2 existed. */
    public static final int VERSION_1 = 1;
    /** Version 2 (docs/integration.md): version 1's types and fields, and more. */
    public static final int VERSION_2 = 2;
    /** The version a producer should send, and the one the harness's synthetic events carry. */
    public static final int VERSION = VERSION_2;

    public static final String TYPE_CREATED = "authorisation.created";
    public static final String TYPE_VOIDED = "authorisation.voided";
    public static final String TYPE_EXPIRED = "authorisation.expired";
    public static final String TYPE_SETTLED = "settlement.posted";
    public static final String TYPE_INCREMENTED = "authorisation.incremented";
    public static final String TYPE_REVERSED = "authorisation.reversed";
    public static final String TYPE_WATERMARK = "feed.watermark";
    /**
     * Internal, not part of the platform's contract (docs/integration.md): the webhook receiver's verdict of an
     * asynchronous provider, version 2 only, decoded as its own case before the platform's types.
     */
    public static final String TYPE_PROVIDER_OUTCOME = "provider.outcome";
    static final List<String> PROVIDER_OUTCOME_REQUIRED = List.of("version", "type", "eventId", "authorisationId", "operationId",
            "provider", "requestReference", "paymentReference", "success");
    static final List<String> PROVIDER_OUTCOME_OPTIONAL = List.of("reason", "occurredAt");
    static final List<String> OUTCOME_PROVIDERS = List.of("adyen");
    static final Pattern REQUEST_REFERENCE = Pattern.compile("[A-Za-z0-9]{1,64}");
    static final int OUTCOME_REASON_LIMIT = 120;

    static final String VERSION_FIELD = "version";
    static final String TYPE = "type";
    static final String EVENT_ID = "eventId";
    static final String AUTHORISATION_ID = "authorisationId";
    static final String AMOUNT_MINOR = "amountMinor";
    static final String CURRENCY = "currency";
    static final String MERCHANT_ID = "merchantId";
    static final String AUTHORISED_AT = "authorisedAt";
    static final String ENDED_AT = "endedAt";
    static final String SETTLED_AT = "settledAt";
    static final String FEED = "feed";
    static final String WATERMARK = "watermark";
    /** The feeds a watermark may name: only the settlement feed's completeness gates a decision. */
    static final List<String> FEEDS = List.of(com.payments.reconciler.store.Tables.Settlements.SETTLEMENTS_FEED);
    static final String PROVIDER_REFERENCE = "providerReference";
    static final String HOLD_UNTIL = "holdUntil";
    static final String INCREMENTED_AT = "incrementedAt";
    static final String REVERSED_AT = "reversedAt";
    static final String FULL = "full";
    static final String CAPTURE_SEQUENCE = "captureSequence";
    static final String FINAL_CAPTURE = "finalCapture";
    /** A capture's number within its authorisation: 1.., at most this (far above any provider's limit on partial captures). */
    public static final int MAX_CAPTURE_SEQUENCE = 9_999;

    /** The fields of one type in one version: the required ones, then the ones it may carry. */
    record Fields(List<String> required, List<String> optional) {
        List<String> all() {
            List<String> all = new ArrayList<>(required);
            all.addAll(optional);
            return List.copyOf(all);
        }

        Fields with(String... more) {
            List<String> also = new ArrayList<>(optional);
            also.addAll(List.of(more));
            return new Fields(required, List.copyOf(also));
        }
    }

    private static Fields required(String... names) {
        return new Fields(List.of(names), List.of());
    }

    /** Version 1, exactly: anything else is refused, since it is how cardholder data would slip in. */
    private static final Map<String, Fields> CONTRACT_V1 = ordered(
            TYPE_CREATED, required(VERSION_FIELD, TYPE, EVENT_ID, AUTHORISATION_ID, AMOUNT_MINOR, CURRENCY, MERCHANT_ID, AUTHORISED_AT),
            TYPE_VOIDED, required(VERSION_FIELD, TYPE, EVENT_ID, AUTHORISATION_ID, ENDED_AT),
            TYPE_EXPIRED, required(VERSION_FIELD, TYPE, EVENT_ID, AUTHORISATION_ID, ENDED_AT),
            TYPE_SETTLED, required(VERSION_FIELD, TYPE, EVENT_ID, AUTHORISATION_ID, AMOUNT_MINOR, CURRENCY, SETTLED_AT),
            // Additive: a platform on version 1 must be able to say its settlement feed is complete, or no night releases.
            TYPE_WATERMARK, required(VERSION_FIELD, TYPE, EVENT_ID, FEED, WATERMARK));

    /** Version 2: version 1's types with their optional fields, and its new types. One entry per type: add a type here. */
    private static final Map<String, Fields> CONTRACT_V2 = ordered(
            TYPE_CREATED, CONTRACT_V1.get(TYPE_CREATED).with(PROVIDER_REFERENCE, HOLD_UNTIL),
            TYPE_VOIDED, CONTRACT_V1.get(TYPE_VOIDED),
            TYPE_EXPIRED, CONTRACT_V1.get(TYPE_EXPIRED),
            TYPE_SETTLED, CONTRACT_V1.get(TYPE_SETTLED).with(CAPTURE_SEQUENCE, FINAL_CAPTURE),
            TYPE_WATERMARK, CONTRACT_V1.get(TYPE_WATERMARK),
            TYPE_INCREMENTED, required(VERSION_FIELD, TYPE, EVENT_ID, AUTHORISATION_ID, AMOUNT_MINOR, CURRENCY, INCREMENTED_AT).with(HOLD_UNTIL),
            // Exactly one of amountMinor (with currency) and "full": true: checked in reversed() below.
            TYPE_REVERSED, required(VERSION_FIELD, TYPE, EVENT_ID, AUTHORISATION_ID, REVERSED_AT).with(AMOUNT_MINOR, CURRENCY, FULL));

    /** Types in the order a refusal lists them (version 1's refusal text is kept exactly). */
    private static Map<String, Fields> ordered(Object... typeThenFields) {
        Map<String, Fields> out = new LinkedHashMap<>();
        for (int i = 0; i < typeThenFields.length; i += 2) {
            out.put((String) typeThenFields[i], (Fields) typeThenFields[i + 1]);
        }
        return Collections.unmodifiableMap(out);
    }

    private static final Map<Integer, Map<String, Fields>> CONTRACT = Map.of(VERSION_1, CONTRACT_V1, VERSION_2, CONTRACT_V2);
    static final List<Integer> VERSIONS = List.of(VERSION_1, VERSION_2);

    /** Every field each type of {@code version} may carry (required and optional). */
    static Map<String, List<String>> fields(int version) {
        Map<String, List<String>> out = new TreeMap<>();
        CONTRACT.get(version).forEach((type, fields) -> out.put(type, fields.all()));
        return out;
    }

    /** The required fields of each type of {@code version}. */
    static Map<String, List<String>> requiredFields(int version) {
        Map<String, List<String>> out = new TreeMap<>();
        CONTRACT.get(version).forEach((type, fields) -> out.put(type, fields.required()));
        return out;
    }


    /** A provider's id (of an authorisation, of a release): also what an operator may record for a release by hand. */
    public static final Pattern PROVIDER_REFERENCE_FORM = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    public static final String PROVIDER_REFERENCE_CHARACTERS = "1-64 characters of A-Z a-z 0-9 _ -";
    static final String PROVIDER_REFERENCE_TEXT = "the provider's id of the authorisation (e.g. a Stripe PaymentIntent id pi_..., "
            + "an Adyen pspReference): " + PROVIDER_REFERENCE_CHARACTERS;

    static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}");
    static final String ID_FORM = "1-128 characters of A-Z a-z 0-9 . _ : -, starting with a letter or digit";
    static final Pattern ISO_4217 = Pattern.compile("[A-Z]{3}");
    /** Eleven digits at most: an amount can never look like a card number, and fits any currency's holds. */
    public static final long MAX_AMOUNT_MINOR = 99_999_999_999L;
    static final Instant EARLIEST = Instant.parse("2000-01-01T00:00:00Z");
    static final Instant LATEST = Instant.parse("2100-01-01T00:00:00Z");
    /** Shown in a refusal: enough to recognise a value, never a whole long one. */
    private static final int SHOWN_CHARS = 40;

    private static final ObjectMapper JSON = Json.mapper();

    /** Either a valid event or why it was refused. */
    public sealed interface Decoded {
        record Valid(IngestEvent event) implements Decoded {
        }

        record Refused(Refusal refusal) implements Decoded {
        }
    }

    public Decoded decode(String body) {
        if (body == null || body.isBlank()) {
            return malformed("event", "required, a JSON object (docs/integration.md)");
        }
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            if (CardDataScreen.containsCardNumber(body)) {
                return cardData("(the event)");
            }
            JsonLocation at = e.getLocation();
            return malformed("event", "not valid JSON" + (at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")")
                    + "; one JSON object per message (docs/integration.md)");
        }
        Optional<String> cardData = CardDataScreen.find(root);
        if (cardData.isPresent()) {
            return cardData(cardData.get());
        }
        if (root == null || !root.isObject()) {
            return malformed("event", "must be a JSON object (docs/integration.md)");
        }
        try {
            return new Decoded.Valid(event(root));
        } catch (InvalidInput bad) {
            return new Decoded.Refused(new Refusal(Refusal.Reason.MALFORMED, bad.field(), problemOf(bad)));
        }
    }

    private static IngestEvent event(JsonNode root) {
        JsonNode version = root.get(VERSION_FIELD);
        if (version == null || !version.isIntegralNumber() || !version.canConvertToInt() || !VERSIONS.contains(version.intValue())) {
            throw new InvalidInput(VERSION_FIELD, "must be the integer " + VERSION_1 + " or " + VERSION_2
                    + " (the contract versions accepted), was " + shown(version));
        }
        JsonNode typeNode = root.get(TYPE);
        if (version.intValue() == VERSION_2 && typeNode != null && TYPE_PROVIDER_OUTCOME.equals(typeNode.textValue())) {
            return providerOutcome(root);
        }
        Map<String, Fields> contract = CONTRACT.get(version.intValue());
        String type = typeNode != null && typeNode.isTextual() ? typeNode.textValue() : null;
        List<String> fields = type == null || !contract.containsKey(type) ? null : contract.get(type).all();
        if (fields == null) {
            throw new InvalidInput(TYPE, "must be one of " + String.join(", ", contract.keySet()) + ", was " + shown(typeNode));
        }
        Set<String> unknown = new LinkedHashSet<>();
        root.fieldNames().forEachRemaining(name -> {
            if (!fields.contains(name)) {
                unknown.add(name);
            }
        });
        if (!unknown.isEmpty()) {
            throw new InvalidInput(unknown.iterator().next(), "unknown field for " + type + "; accepted fields are " + fields);
        }
        String eventId = id(root, EVENT_ID);
        if (type.equals(TYPE_WATERMARK)) {
            return watermark(root, eventId);
        }
        String authorisationId = id(root, AUTHORISATION_ID);
        // One case per type; an optional field absent from a version's list never reaches here (refused as unknown above).
        return switch (type) {
            case TYPE_CREATED -> {
                Instant authorisedAt = instant(root, AUTHORISED_AT);
                yield new AuthorisationCreated(eventId, authorisationId, amount(root), currency(root),
                        id(root, MERCHANT_ID), authorisedAt, providerReference(root), holdUntil(root, authorisedAt, AUTHORISED_AT));
            }
            case TYPE_VOIDED -> new AuthorisationEnded(eventId, authorisationId, EndKind.VOIDED, instant(root, ENDED_AT));
            case TYPE_EXPIRED -> new AuthorisationEnded(eventId, authorisationId, EndKind.EXPIRED, instant(root, ENDED_AT));
            case TYPE_SETTLED -> new SettlementPosted(eventId, authorisationId, amount(root), currency(root), instant(root, SETTLED_AT),
                    captureSequence(root), finalCapture(root));
            case TYPE_INCREMENTED -> {
                Instant incrementedAt = instant(root, INCREMENTED_AT);
                yield new AuthorisationIncremented(eventId, authorisationId, amount(root), currency(root), incrementedAt,
                        holdUntil(root, incrementedAt, INCREMENTED_AT));
            }
            case TYPE_REVERSED -> reversed(root, eventId, authorisationId);
            default -> throw new IllegalStateException("type " + type + " has fields but no decoder");
        };
    }

    /** {@code feed.watermark}: no authorisation id; the feed must be one whose completeness the reconciler reads. */
    private static IngestEvent watermark(JsonNode root, String eventId) {
        String feed = text(root, FEED, "one of " + FEEDS);
        if (!FEEDS.contains(feed)) {
            throw new InvalidInput(FEED, "must be one of " + FEEDS + ", was " + shown(root.get(FEED)));
        }
        return new IngestEvent.FeedWatermark(eventId, feed, instant(root, WATERMARK));
    }

    private static IngestEvent.ProviderOutcome providerOutcome(JsonNode root) {
        List<String> accepted = new ArrayList<>(PROVIDER_OUTCOME_REQUIRED);
        accepted.addAll(PROVIDER_OUTCOME_OPTIONAL);
        root.fieldNames().forEachRemaining(name -> {
            if (!accepted.contains(name)) {
                throw new InvalidInput(name, "unknown field for " + TYPE_PROVIDER_OUTCOME + "; accepted fields are " + accepted);
            }
        });
        String eventId = id(root, EVENT_ID);
        String authorisationId = id(root, AUTHORISATION_ID);
        String operationId = text(root, "operationId", "the release command's operation id");
        if (!operationId.equals(com.payments.reconciler.reconcile.Candidate.operationIdFor(authorisationId))) {
            throw new InvalidInput("operationId", "must be " + com.payments.reconciler.reconcile.Candidate.operationIdFor(authorisationId)
                    + " (the operation of its authorisationId), was " + shown(root.get("operationId")));
        }
        String provider = text(root, "provider", "one of " + OUTCOME_PROVIDERS);
        if (!OUTCOME_PROVIDERS.contains(provider)) {
            throw new InvalidInput("provider", "must be one of " + OUTCOME_PROVIDERS + ", was " + shown(root.get("provider")));
        }
        String reference = text(root, "requestReference", "1-64 characters of A-Z a-z 0-9");
        if (!REQUEST_REFERENCE.matcher(reference).matches()) {
            throw new InvalidInput("requestReference", "must be 1-64 characters of A-Z a-z 0-9, was " + shown(root.get("requestReference")));
        }
        String payment = text(root, "paymentReference", "1-64 characters of A-Za-z0-9_- (the payment's provider reference)");
        if (!com.payments.reconciler.reconcile.Candidate.PROVIDER_REFERENCE.matcher(payment).matches()) {
            throw new InvalidInput("paymentReference", "must be 1-64 characters of A-Z a-z 0-9 _ - (the payment's provider reference), was "
                    + shown(root.get("paymentReference")));
        }
        JsonNode success = root.get("success");
        if (success == null || !success.isBoolean()) {
            throw new InvalidInput("success", "required, true or false (a JSON boolean), was " + shown(success));
        }
        Optional<String> reason = Optional.empty();
        if (root.has("reason")) {
            String text = text(root, "reason", "at most " + OUTCOME_REASON_LIMIT + " printable characters");
            if (text.length() > OUTCOME_REASON_LIMIT || !text.matches("[\\x20-\\x7E]*")) {
                throw new InvalidInput("reason", "must be at most " + OUTCOME_REASON_LIMIT + " printable ASCII characters, was " + shown(root.get("reason")));
            }
            reason = Optional.of(text);
        }
        Optional<Instant> occurredAt = root.has("occurredAt") ? Optional.of(instant(root, "occurredAt")) : Optional.empty();
        return new IngestEvent.ProviderOutcome(eventId, authorisationId, operationId, provider, reference, payment, success.booleanValue(),
                reason, occurredAt);
    }

    private static String id(JsonNode root, String field) {
        String text = text(root, field, ID_FORM);
        if (!ID.matcher(text).matches()) {
            throw new InvalidInput(field, "must be " + ID_FORM + ", was " + shown(root.get(field)));
        }
        return text;
    }

    /** Optional, never before the instant the event happened at ({@code after}): a hold valid until before it was made is a typo. */
    private static Optional<Instant> holdUntil(JsonNode root, Instant after, String afterField) {
        if (!root.has(HOLD_UNTIL)) {
            return Optional.empty();
        }
        Instant holdUntil = instant(root, HOLD_UNTIL);
        if (holdUntil.isBefore(after)) {
            throw new InvalidInput(HOLD_UNTIL, "must not be before " + afterField + " (the hold's validity, an instant after the event), was "
                    + shown(root.get(HOLD_UNTIL)));
        }
        return Optional.of(holdUntil);
    }

    /** Optional (version 2): an integer 1..MAX_CAPTURE_SEQUENCE. */
    private static Optional<Integer> captureSequence(JsonNode root) {
        JsonNode node = root.get(CAPTURE_SEQUENCE);
        if (node == null) {
            return Optional.empty();
        }
        if (!node.isIntegralNumber() || !node.canConvertToInt() || node.intValue() < 1 || node.intValue() > MAX_CAPTURE_SEQUENCE) {
            throw new InvalidInput(CAPTURE_SEQUENCE, "must be an integer from 1 to " + MAX_CAPTURE_SEQUENCE
                    + " (this capture's number within its authorisation), or absent; was " + shown(node));
        }
        return Optional.of(node.intValue());
    }

    /** Optional (version 2): a JSON boolean. */
    private static Optional<Boolean> finalCapture(JsonNode root) {
        JsonNode node = root.get(FINAL_CAPTURE);
        if (node == null) {
            return Optional.empty();
        }
        if (!node.isBoolean()) {
            throw new InvalidInput(FINAL_CAPTURE, "must be true or false (a JSON boolean: no more captures follow), or absent; was " + shown(node));
        }
        return Optional.of(node.booleanValue());
    }

    /** Partial ({@code amountMinor} and {@code currency}) or full ({@code "full": true}), never both. */
    private static IngestEvent reversed(JsonNode root, String eventId, String authorisationId) {
        Instant reversedAt = instant(root, REVERSED_AT);
        JsonNode full = root.get(FULL);
        if (full != null) {
            if (!full.isBoolean() || !full.booleanValue()) {
                throw new InvalidInput(FULL, "must be true (the whole remaining hold reversed), or absent with amountMinor for a partial reversal; was "
                        + shown(full));
            }
            if (root.has(AMOUNT_MINOR) || root.has(CURRENCY)) {
                throw new InvalidInput(root.has(AMOUNT_MINOR) ? AMOUNT_MINOR : CURRENCY,
                        "must be absent with \"full\": true (a full reversal gives back whatever remains); send one or the other");
            }
            return new AuthorisationEnded(eventId, authorisationId, EndKind.REVERSED, reversedAt);
        }
        if (!root.has(AMOUNT_MINOR)) {
            throw new InvalidInput(AMOUNT_MINOR, "required for a partial reversal (the amount given back), or send \"full\": true instead");
        }
        return new AuthorisationReversed(eventId, authorisationId, amount(root), currency(root), reversedAt);
    }

    /** Optional (version 2): absent is empty; present, it must have the form, and null is refused like any other wrong value. */
    private static Optional<String> providerReference(JsonNode root) {
        JsonNode node = root.get(PROVIDER_REFERENCE);
        if (node == null) {
            return Optional.empty();
        }
        if (!node.isTextual() || !PROVIDER_REFERENCE_FORM.matcher(node.textValue()).matches()) {
            throw new InvalidInput(PROVIDER_REFERENCE, "must be " + PROVIDER_REFERENCE_TEXT + " (a JSON string), or absent; was " + shown(node));
        }
        return Optional.of(node.textValue());
    }

    private static long amount(JsonNode root) {
        JsonNode node = root.get(AMOUNT_MINOR);
        String form = "an integer from 1 to " + MAX_AMOUNT_MINOR + " (minor units: cents, pence; a JSON number, not a string)";
        if (node == null || node.isNull()) {
            throw new InvalidInput(AMOUNT_MINOR, "required, " + form);
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong() || node.longValue() < 1 || node.longValue() > MAX_AMOUNT_MINOR) {
            throw new InvalidInput(AMOUNT_MINOR, "must be " + form + ", was " + shown(node));
        }
        return node.longValue();
    }

    private static String currency(JsonNode root) {
        String form = "an ISO 4217 code of three capital letters such as EUR";
        String text = text(root, CURRENCY, form);
        if (!ISO_4217.matcher(text).matches()) {
            throw new InvalidInput(CURRENCY, "must be " + form + ", was " + shown(root.get(CURRENCY)));
        }
        return text;
    }

    private static Instant instant(JsonNode root, String field) {
        String form = "an ISO 8601 date-time with an offset (Z or +hh:mm) and at most millisecond precision, "
                + "e.g. 2026-11-28T14:03:07.512+01:00";
        String text = text(root, field, form);
        Instant instant;
        try {
            instant = OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
        } catch (DateTimeException e) {
            throw new InvalidInput(field, "must be " + form + ", was " + shown(root.get(field)));
        }
        if (instant.getNano() % 1_000_000 != 0) {
            // Stored as epoch milliseconds: rounding would move a settlement across a release.
            throw new InvalidInput(field, "must be " + form + " (finer than a millisecond is refused, not rounded), was " + shown(root.get(field)));
        }
        if (instant.isBefore(EARLIEST) || !instant.isBefore(LATEST)) {
            throw new InvalidInput(field, "must be from " + EARLIEST + " to before " + LATEST + ", was " + shown(root.get(field)));
        }
        return instant;
    }

    private static String text(JsonNode root, String field, String form) {
        JsonNode node = root.get(field);
        if (node == null || node.isNull()) {
            throw new InvalidInput(field, "required, " + form);
        }
        if (!node.isTextual()) {
            throw new InvalidInput(field, "must be a JSON string: " + form + ", was " + shown(node));
        }
        return node.textValue();
    }

    /** A value for a refusal. Only ever called after the card-data screen passed the whole event. */
    private static String shown(JsonNode node) {
        if (node == null || node.isMissingNode()) {
            return "absent";
        }
        String text = node.toString();
        return text.length() <= SHOWN_CHARS ? text : text.substring(0, SHOWN_CHARS) + "...(" + text.length() + " characters)";
    }

    private static String problemOf(InvalidInput bad) {
        String prefix = bad.field() + ": ";
        return bad.getMessage().startsWith(prefix) ? bad.getMessage().substring(prefix.length()) : bad.getMessage();
    }

    private static Decoded malformed(String field, String problem) {
        return new Decoded.Refused(new Refusal(Refusal.Reason.MALFORMED, field, problem));
    }

    private static Decoded cardData(String where) {
        return new Decoded.Refused(new Refusal(Refusal.Reason.CARDHOLDER_DATA, where,
                "looks like cardholder data (a Luhn-valid run of 12-19 digits, or a cardholder-data field name); the reconciler "
                        + "accepts none, so the event is refused and neither stored nor logged (docs/integration.md)"));
    }
}
