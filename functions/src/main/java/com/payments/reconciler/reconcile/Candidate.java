package com.payments.reconciler.reconcile;

import com.payments.reconciler.store.Attr;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.workflow.InvalidInput;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.time.Instant;
import java.util.Map;

/**
 * An authorisation that looked pending when we read it. The version is a hint (the index is
 * eventually consistent); the transaction's condition on it is the truth.
 */
public record Candidate(String authorisationId, long observedVersion, long amountMinor, String currency,
                        Instant authorisedAt, String shard) {

    /** The business operation: every retry, redelivery and rerun reuses it (docs/design.md §4). */
    public String operationId() {
        return operationIdFor(authorisationId);
    }

    public static String operationIdFor(String authorisationId) {
        return "release-hold:" + authorisationId;
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
                Attr.string(item, Authorisations.PENDING_SHARD, what));
    }
}
