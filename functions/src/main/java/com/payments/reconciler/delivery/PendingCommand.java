package com.payments.reconciler.delivery;

import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.store.Attr;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.workflow.InvalidInput;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A command still PENDING in the outbox, as read from the {@code pending-delivery} index: what the
 * provider is asked to do, keyed on the business operation.
 *
 * @param queuedAt when it became PENDING: its creation, or an operator's latest requeue; its age for
 *                 {@link com.payments.reconciler.workflow.Timing#AUTOMATIC_DELIVERY_HORIZON} counts from here
 * @param firstAttemptAt when its first provider request was about to leave, if one ever was (a requeue keeps it): the
 *                       age {@link ForgottenKeys} judges the provider's memory of its idempotency key by
 * @param providerReference the provider's id of the authorisation (a Stripe PaymentIntent id, an Adyen pspReference),
 *                          copied from the authorisation when the night decided; empty when the platform sent none
 */
public record PendingCommand(String operationId, String authorisationId, long amountMinor, String currency,
                             Instant createdAt, Instant queuedAt, Optional<Instant> firstAttemptAt, Optional<String> providerReference) {

    public PendingCommand {
        Objects.requireNonNull(firstAttemptAt, "firstAttemptAt");
        Objects.requireNonNull(providerReference, "providerReference");
    }

    /** A command without the provider's reference of its hold. */
    public PendingCommand(String operationId, String authorisationId, long amountMinor, String currency,
                          Instant createdAt, Instant queuedAt, Optional<Instant> firstAttemptAt) {
        this(operationId, authorisationId, amountMinor, currency, createdAt, queuedAt, firstAttemptAt, Optional.empty());
    }

    /** A command never requeued and never attempted. */
    public PendingCommand(String operationId, String authorisationId, long amountMinor, String currency, Instant createdAt) {
        this(operationId, authorisationId, amountMinor, currency, createdAt, createdAt, Optional.empty());
    }

    /** A command requeued at {@code queuedAt}, never attempted. */
    public PendingCommand(String operationId, String authorisationId, long amountMinor, String currency, Instant createdAt,
                          Instant queuedAt) {
        this(operationId, authorisationId, amountMinor, currency, createdAt, queuedAt, Optional.empty());
    }

    /** This command with its first attempt at {@code at}, unless it already had one. */
    public PendingCommand attemptedFrom(Instant at) {
        return firstAttemptAt.isPresent() ? this
                : new PendingCommand(operationId, authorisationId, amountMinor, currency, createdAt, queuedAt, Optional.of(at), providerReference);
    }

    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

    /**
     * What defines the operation beyond its id: a repeat of the operation id with a different
     * fingerprint is a different request under the same key, refused by both idempotency layers.
     */
    public String fingerprint() {
        return authorisationId + "|" + amountMinor + "|" + currency;
    }

    /** Reads an index item; a malformed one is an {@link InvalidInput} naming the attribute. */
    public static PendingCommand fromItem(Map<String, AttributeValue> item) {
        String operationId = Attr.string(item, ReleaseCommands.OPERATION_ID, "command");
        String what = "command[" + operationId + "]";
        String authorisationId = Attr.string(item, ReleaseCommands.AUTHORISATION_ID, what);
        if (!operationId.equals(Candidate.operationIdFor(authorisationId))) {
            throw new InvalidInput(what + "." + ReleaseCommands.OPERATION_ID,
                    "must be " + Candidate.operationIdFor(authorisationId) + " (the business operation of its authorisation)");
        }
        long amount = Attr.number(item, ReleaseCommands.AMOUNT_MINOR, what);
        if (amount <= 0) {
            throw new InvalidInput(what + "." + ReleaseCommands.AMOUNT_MINOR, "must be a positive integer (minor units), was " + amount);
        }
        String currency = Attr.string(item, ReleaseCommands.CURRENCY, what);
        if (!CURRENCY.matcher(currency).matches()) {
            throw new InvalidInput(what + "." + ReleaseCommands.CURRENCY, "must be an ISO-4217 code of three capital letters, was " + currency);
        }
        Instant createdAt = Instant.ofEpochMilli(Attr.number(item, ReleaseCommands.CREATED_AT, what));
        Instant queuedAt = item.containsKey(ReleaseCommands.REQUEUED_AT)
                ? Instant.ofEpochMilli(Math.max(createdAt.toEpochMilli(), Attr.number(item, ReleaseCommands.REQUEUED_AT, what)))
                : createdAt;
        Optional<Instant> firstAttemptAt = item.containsKey(ReleaseCommands.FIRST_ATTEMPT_AT)
                ? Optional.of(Instant.ofEpochMilli(Attr.number(item, ReleaseCommands.FIRST_ATTEMPT_AT, what)))
                : Optional.empty();
        return new PendingCommand(operationId, authorisationId, amount, currency, createdAt, queuedAt, firstAttemptAt,
                Candidate.providerReference(item, what));
    }
}
