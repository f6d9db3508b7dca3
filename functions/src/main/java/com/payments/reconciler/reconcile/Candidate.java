package com.payments.reconciler.reconcile;

import com.payments.reconciler.store.Attr;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.workflow.InvalidInput;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * An authorisation that looked pending when we read it. The version is a hint (the index is
 * eventually consistent); the transaction's condition on it is the truth.
 */
public record Candidate(String authorisationId, long observedVersion, long amountMinor, String currency,
                        Instant authorisedAt, String shard, Optional<String> providerReference, Optional<Instant> holdUntil) {

    public Candidate {
        Objects.requireNonNull(providerReference, "providerReference");
        Objects.requireNonNull(holdUntil, "holdUntil");
    }

    /** A candidate without a provider reference or a hold validity. */
    public Candidate(String authorisationId, long observedVersion, long amountMinor, String currency, Instant authorisedAt, String shard) {
        this(authorisationId, observedVersion, amountMinor, currency, authorisedAt, shard, Optional.empty(), Optional.empty());
    }

    /** A candidate with a provider reference and no hold validity. */
    public Candidate(String authorisationId, long observedVersion, long amountMinor, String currency, Instant authorisedAt, String shard,
                     Optional<String> providerReference) {
        this(authorisationId, observedVersion, amountMinor, currency, authorisedAt, shard, providerReference, Optional.empty());
    }

    /** The business operation: every retry, redelivery and rerun reuses it (docs/design.md §4). */
    public String operationId() {
        return operationIdFor(authorisationId);
    }

    public static String operationIdFor(String authorisationId) {
        return "release-hold:" + authorisationId;
    }

    /** The provider's reference of a hold, as ingestion accepts it (EventDecoder); a stored one of another form is malformed. */
    public static final Pattern PROVIDER_REFERENCE = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    /** Reads an optional {@code providerReference} attribute (same name on both tables); a malformed one names the attribute. */
    public static Optional<String> providerReference(Map<String, AttributeValue> item, String what) {
        AttributeValue value = item.get(Authorisations.PROVIDER_REFERENCE);
        if (value == null) {
            return Optional.empty();
        }
        if (value.s() == null || !PROVIDER_REFERENCE.matcher(value.s()).matches()) {
            throw new InvalidInput(what + "." + Authorisations.PROVIDER_REFERENCE, "must be a string of 1-64 characters of A-Z a-z 0-9 _ -");
        }
        return Optional.of(value.s());
    }

    /** Reads an index item; a malformed one is an {@link InvalidInput} naming the attribute. */
    public static Candidate fromItem(Map<String, AttributeValue> item) {
        String id = Attr.string(item, Authorisations.AUTHORISATION_ID, "authorisation");
        String what = "authorisation[" + id + "]";
        String currency = Attr.string(item, Authorisations.CURRENCY, what);
        if (!currency.matches("[A-Z]{3}")) {
            throw new InvalidInput(what + "." + Authorisations.CURRENCY, "must be an ISO-4217 code of three capital letters, was " + currency);
        }
        long amount = Attr.number(item, Authorisations.AMOUNT_MINOR, what);
        if (amount <= 0) {
            throw new InvalidInput(what + "." + Authorisations.AMOUNT_MINOR, "must be a positive integer (minor units), was " + amount);
        }
        return new Candidate(id,
                Attr.number(item, Authorisations.VERSION, what),
                amount,
                currency,
                Instant.ofEpochMilli(Attr.number(item, Authorisations.AUTHORISED_AT, what)),
                Attr.string(item, Authorisations.PENDING_SHARD, what),
                providerReference(item, what),
                item.containsKey(Authorisations.HOLD_UNTIL)
                        ? Optional.of(Instant.ofEpochMilli(Attr.number(item, Authorisations.HOLD_UNTIL, what))) : Optional.empty());
    }
}
