package com.payments.reconciler.ingest;

/**
 * Why an event was refused: the field and the accepted form, safe to log (it never holds a value that looked
 * like cardholder data, and never the event's body).
 *
 * @param reason the class of refusal, a metric and log field
 * @param field the field's path, {@code event} for the event as a whole
 * @param problem what is wrong and what is accepted
 */
public record Refusal(Reason reason, String field, String problem) {

    public enum Reason {
        /** Something that looks like a card number or other cardholder data: refused, never stored or logged. */
        CARDHOLDER_DATA,
        /** Not the contract: missing, mistyped, out of range or unknown field, another version. */
        MALFORMED,
        /** Valid, but contradicts what is stored for its authorisation: the stored one stays, a person decides. */
        CONFLICT
    }

    public String message() {
        return field + ": " + problem;
    }
}
