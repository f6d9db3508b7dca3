package com.payments.reconciler.ingest;

import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.StoreErrors;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static com.payments.reconciler.store.Attr.n;
import static com.payments.reconciler.store.Attr.s;

/**
 * Applies a {@code provider.outcome} to its release command: one conditional UpdateItem on ReleaseCommands, no lease.
 * An outcome is the provider's fact about a request already made, not a decision, so it is not fenced by the night's
 * lease (it arrives at any hour, between nights or during one); what keeps it safe is the condition, which lets it end
 * only a command that is still PENDING or ACKNOWLEDGED and, once the cancel's pspReference is recorded, only for that
 * cancel. A night's fenced mark is conditional on PENDING in turn, so neither overwrites the other, in whichever order
 * they come: an outcome before the 201 was recorded ends the PENDING command and the mark then finds it ended; a
 * duplicate or a second outcome finds it ended and changes nothing.
 */
public final class ProviderOutcomes {

    // The outcome ends only a command still waiting for it (PENDING: the 201 not yet recorded; ACKNOWLEDGED), only for the
    // payment the command cancels (the notification's originalReference = the command's providerReference: merchantReference
    // alone is ours to choose and could be echoed for another payment), and only for the cancel it names once that is
    // known: never an end a night, an operator or an earlier outcome wrote.
    static final String STILL_AWAITING = "attribute_exists(operationId) AND #status IN (:pending, :acknowledged) "
            + "AND providerReference = :payment "
            + "AND (attribute_not_exists(requestReference) OR requestReference = :reference)";
    // DELIVERED by the provider's word: out of the delivery index; the payment's providerReference stays as it was.
    static final String DELIVER = "SET #status = :delivered, deliveredAt = :now, requestReference = :reference, "
            + "outcomeEventId = :eventId, outcomeAt = :at REMOVE deliveryShard, awaitingShard";
    // REJECTED with the provider's reason (a captured payment's cancel ends here: nothing left to release).
    static final String REJECT = "SET #status = :rejected, rejectionReason = :reason, deliveredAt = :now, "
            + "requestReference = :reference, outcomeEventId = :eventId, outcomeAt = :at REMOVE deliveryShard, awaitingShard";
    static final String OUTCOME_CODE = "PROVIDER_OUTCOME";

    private final DynamoDbClient dynamo;
    private final String releaseCommands;
    private final Backoff conflicts;
    private final Clock clock;

    public ProviderOutcomes(DynamoDbClient dynamo, String releaseCommands, Backoff conflicts, Clock clock) {
        this.dynamo = dynamo;
        this.releaseCommands = releaseCommands;
        this.conflicts = conflicts;
        this.clock = clock;
    }

    public IngestOutcome apply(IngestEvent.ProviderOutcome event) {
        long now = clock.millis();
        Map<String, AttributeValue> values = new HashMap<>(Map.of(
                ":pending", s(ReleaseCommands.STATUS_PENDING), ":acknowledged", s(ReleaseCommands.STATUS_ACKNOWLEDGED),
                ":reference", s(event.requestReference()), ":payment", s(event.paymentReference()), ":now", n(now),
                ":eventId", s(event.eventId()),
                ":at", n(event.occurredAt().map(java.time.Instant::toEpochMilli).orElse(now))));
        if (event.success()) {
            values.put(":delivered", s(ReleaseCommands.STATUS_DELIVERED));
        } else {
            values.put(":rejected", s(ReleaseCommands.STATUS_REJECTED));
            values.put(":reason", s(OUTCOME_CODE + ": " + event.provider() + " refused the cancel: "
                    + event.reason().orElse("(no reason given)")));
        }
        try {
            StoreErrors.call("provider outcome " + event.eventId(), conflicts, () -> dynamo.updateItem(b -> b.tableName(releaseCommands)
                    .key(Map.of(ReleaseCommands.OPERATION_ID, s(event.operationId())))
                    .conditionExpression(STILL_AWAITING)
                    .updateExpression(event.success() ? DELIVER : REJECT)
                    .expressionAttributeNames(Map.of("#status", ReleaseCommands.STATUS))
                    .expressionAttributeValues(values)
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)));
            return new IngestOutcome.Accepted(event.eventId(), event.success() ? "DeliverOnOutcome" : "RejectOnOutcome", 1);
        } catch (ConditionalCheckFailedException refused) {
            return afterConditionFailed(event, refused.hasItem() ? refused.item() : Map.of());
        }
    }

    private static IngestOutcome afterConditionFailed(IngestEvent.ProviderOutcome event, Map<String, AttributeValue> stored) {
        if (stored.isEmpty()) {
            return new IngestOutcome.Refused(new Refusal(Refusal.Reason.CONFLICT, "operationId",
                    "no release command " + event.operationId() + " for this provider outcome (kept for a person)"), 1);
        }
        String status = Optional.ofNullable(stored.get(ReleaseCommands.STATUS)).map(AttributeValue::s).orElse("");
        Optional<String> outcome = Optional.ofNullable(stored.get(ReleaseCommands.OUTCOME_EVENT_ID)).map(AttributeValue::s);
        if (outcome.equals(Optional.of(event.eventId()))) {
            return new IngestOutcome.Duplicate(event.eventId(), "outcome already applied", 1);
        }
        if (List.of(ReleaseCommands.STATUS_DELIVERED, ReleaseCommands.STATUS_REJECTED).contains(status) && outcome.isPresent()) {
            return new IngestOutcome.Duplicate(event.eventId(), "the command already has its outcome (" + status + ")", 1);
        }
        Optional<String> payment = Optional.ofNullable(stored.get(ReleaseCommands.PROVIDER_REFERENCE)).map(AttributeValue::s);
        if (!payment.equals(Optional.of(event.paymentReference()))) {
            return new IngestOutcome.Refused(new Refusal(Refusal.Reason.CONFLICT, "paymentReference",
                    "the outcome is about another payment than the command's providerReference (kept for a person)"), 1);
        }
        Optional<String> reference = Optional.ofNullable(stored.get(ReleaseCommands.REQUEST_REFERENCE)).map(AttributeValue::s);
        if (reference.isPresent() && !reference.get().equals(event.requestReference())) {
            return new IngestOutcome.Refused(new Refusal(Refusal.Reason.CONFLICT, "requestReference",
                    "the command awaits the outcome of another request (kept for a person)"), 1);
        }
        // Ended otherwise (settled, ended, parked or delivered by a night): the provider's word is kept for a person.
        return new IngestOutcome.Refused(new Refusal(Refusal.Reason.CONFLICT, "operationId",
                "the command is " + status + ", not awaiting an outcome (kept for a person)"), 1);
    }
}
