package com.payments.reconciler.ingest;

import com.payments.reconciler.ingest.IngestWrite.AddCapture;
import com.payments.reconciler.ingest.IngestWrite.CompleteEndedAuthorisation;
import com.payments.reconciler.ingest.IngestWrite.IncrementAuthorisation;
import com.payments.reconciler.ingest.IngestWrite.ReduceAuthorisation;
import com.payments.reconciler.ingest.IngestWrite.CompleteSettledAuthorisation;
import com.payments.reconciler.ingest.IngestWrite.LeaveIndexOnSettlement;
import com.payments.reconciler.ingest.IngestWrite.CreateAuthorisation;
import com.payments.reconciler.ingest.IngestWrite.EndAuthorisation;
import com.payments.reconciler.ingest.IngestWrite.RecordEndBesideDecision;
import com.payments.reconciler.ingest.IngestWrite.RecordSettlement;
import com.payments.reconciler.ingest.StoredItem.StoredAuthorisation;
import com.payments.reconciler.ingest.StoredItem.StoredSettlement;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.StoreErrors;
import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.store.Tables.Settlements;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

import static com.payments.reconciler.store.Attr.n;
import static com.payments.reconciler.store.Attr.s;

/**
 * The thin DynamoDB layer of ingestion: one conditional single-item write per {@link IngestWrite}, on
 * Authorisations or Settlements only. A failed condition is an answer: the stored item comes back with it
 * ({@code ReturnValuesOnConditionCheckFailure = ALL_OLD}), so deciding a duplicate costs no read. Every other
 * failure after the SDK's retries is thrown (the handler reports the message for SQS to deliver again).
 */
public final class IngestStore {

    // I3 and the reconciler's Stale check: a create never overwrites anything — not a decision (RELEASE_REQUESTED),
    // not an ended stub, not a platform's own item. The same condition makes a redelivered create a no-op.
    static final String ABSENT = "attribute_not_exists(authorisationId)";
    static final String CREATE_PENDING = ABSENT;

    // Fills in a stub an early end event created; never sets pendingShard, state or version, so the authorisation
    // can never become a candidate again once ended.
    static final String COMPLETE_ENDED = "SET amountMinor = :amount, currency = :currency, merchantId = :merchant, "
            + "authorisedAt = :authorisedAt, createdEventId = :eventId";
    static final String COMPLETE_ENDED_CONDITION = "attribute_exists(authorisationId) AND attribute_not_exists(authorisedAt) AND #state = :observed";

    // Only out of AUTHORISED, before the create, or on a settlement's stub (no state, no create yet): version + 1 and the
    // state change make any release transaction that read the item AUTHORISED fail its "version = observed AND state =
    // AUTHORISED" check (I3's order with a void), and leaving the sparse index keeps it from ever being a candidate
    // again. An item without state that is not our stub (a platform's own item) is not ended here: it is a conflict.
    static final String END = "SET #state = :voided, version = if_not_exists(version, :zero) + :one, endedAt = :endedAt, "
            + "endKind = :kind, endEventId = :eventId REMOVE pendingShard";
    static final String END_CONDITION = "attribute_not_exists(authorisationId) OR #state = :authorised "
            + "OR (attribute_not_exists(#state) AND attribute_exists(settlementSeen) AND attribute_not_exists(authorisedAt))";

    // Never rewinds a decision: state, version and pendingShard are not in the expression, and the condition pins the
    // state that was observed, so the reconciler's RELEASE_REQUESTED (and its command) stay exactly as they are.
    static final String RECORD_END = "SET endedAt = :endedAt, endKind = :kind, endEventId = :eventId";
    static final String RECORD_END_CONDITION = "#state = :observed AND attribute_not_exists(endEventId)";

    // One settlement per authorisation, the first stays: the release transaction's ConditionCheck and delivery's
    // re-read only ask whether one exists (I3), and settledAt must not move once delivery compared against it.
    static final String SETTLE = ABSENT;

    // History-free nights: a settled authorisation can never be released (I3), so it leaves the pending-by-age index
    // once its settlement is stored, and no later night reads it again; before the create it makes a stub without state
    // that tells the create to stay out of the index. Unconditional, so the item ends the same whatever order the events
    // came in: state and version are not in the expression, so a decided or ended item keeps both (and its command)
    // exactly as they are, and a release transaction that read the item AUTHORISED is still stopped by its own
    // Settlements check, which is what enforces I3. A decided or ended item has no pendingShard to remove.
    static final String LEAVE_INDEX = "SET settlementSeen = :eventId REMOVE pendingShard";

    // The create of an authorisation a settlement stub stands for: AUTHORISED at version 1 like any create, but without
    // pendingShard (settled: never a candidate). Only on a stub without state and fields; an end that raced in (VOIDED)
    // makes it fail, and the create then completes the ended stub.
    static final String COMPLETE_SETTLED = "SET #state = :authorised, version = :one, amountMinor = :amount, currency = :currency, "
            + "merchantId = :merchant, authorisedAt = :authorisedAt, createdEventId = :eventId";
    static final String COMPLETE_SETTLED_CONDITION = "attribute_exists(settlementSeen) AND attribute_not_exists(#state) AND attribute_not_exists(authorisedAt)";

    // A version 2 create's provider reference, set with the create's other fields by the same conditional write (so it is
    // stored exactly when the create is); a create without one leaves the attribute absent.
    static final String AND_PROVIDER_REFERENCE = ", providerReference = :providerReference";

    // A version 2 create's or increment's hold validity (holdUntil), set by the same write as the rest of the event.
    static final String AND_HOLD_UNTIL = ", holdUntil = :holdUntil";

    // Increments and partial reversals record their event id in a set, so a redelivery is recognised and never applied
    // twice (a partial reversal subtracts: applied twice it would lose money from the hold).
    static final String RECORD_LIFECYCLE_EVENT = " ADD lifecycleEventIds :eventIds";

    // I3's order with the release transaction, as for an end: only while AUTHORISED, version + 1, so a release that read
    // the smaller amount fails its "version = observed" check and decides again with the new total. Only upwards, in the
    // currency stored, not older than the last change applied (a late, older increment is superseded), never twice.
    static final String INCREMENT = "SET amountMinor = :amount, version = version + :one, lastChangedAt = :at";
    static final String INCREMENT_CONDITION = "#state = :authorised AND currency = :currency AND amountMinor < :amount "
            + "AND (attribute_not_exists(lastChangedAt) OR lastChangedAt <= :at) AND NOT contains(lifecycleEventIds, :eventId)";

    // A partial reversal: only while AUTHORISED (version + 1, as above), only when more remains than it gives back (the
    // rest ends the authorisation through END instead), in the currency stored, never twice.
    static final String REDUCE = "SET amountMinor = amountMinor - :amount, version = version + :one, lastChangedAt = :at";
    static final String REDUCE_CONDITION = "#state = :authorised AND currency = :currency AND amountMinor > :amount "
            + "AND NOT contains(lifecycleEventIds, :eventId)";

    // Version 2's later captures: each sequence is added once to the settled amount (a repeat is answered from the stored
    // map, never summed twice); only on a settlement stored with captures and in its currency. I3 is untouched: the release
    // transaction and delivery only ask whether a settlement exists, and it already does.
    static final String ADD_CAPTURE = "SET captures.#sequence = :amount, amountMinor = amountMinor + :amount, lastSettledAt = :settledAt";
    static final String AND_FINAL_CAPTURE = ", finalCapture = :final";
    static final String ADD_CAPTURE_CONDITION = "attribute_exists(captures) AND attribute_not_exists(captures.#sequence) AND currency = :currency";

    // Feed completeness (docs/design.md): the stored watermark never moves back, so a late, repeated or reordered
    // feed.watermark can never make the gate believe less of the feed was lost than an earlier one said. Put, not
    // Update: IngestEvents may only put on Settlements, and the item holds nothing but the watermark.
    static final String ADVANCE_WATERMARK = "attribute_not_exists(#watermark) OR #watermark < :watermark";

    /** What {@link #authorisation} reads for an item without a state: a settlement's stub, or a platform's item missing it. */
    static final String NO_STATE = "UNKNOWN";

    private static final Map<String, String> STATE_NAME = Map.of("#state", Authorisations.STATE);

    private final DynamoDbClient dynamo;
    private final String authorisations;
    private final String settlements;
    private final Backoff conflicts;
    /** The outbox, read only to tell whether a settled authorisation's release was delivered (capturedAfterRelease). */
    private final Optional<String> releaseCommands;

    public IngestStore(DynamoDbClient dynamo, String authorisations, String settlements, Backoff conflicts) {
        this(dynamo, authorisations, settlements, Optional.empty(), conflicts);
    }

    public IngestStore(DynamoDbClient dynamo, String authorisations, String settlements, Optional<String> releaseCommands, Backoff conflicts) {
        this.dynamo = dynamo;
        this.authorisations = authorisations;
        this.settlements = settlements;
        this.releaseCommands = releaseCommands;
        this.conflicts = conflicts;
    }

    /**
     * {@link #LEAVE_INDEX} for a settlement just stored, answering the authorisation's state before it (ALL_OLD costs no
     * read): RELEASE_REQUESTED means a night decided its release before the settlement came.
     */
    public Optional<String> leaveIndex(LeaveIndexOnSettlement leave) {
        var e = leave.event();
        var response = StoreErrors.call("ingest " + e.eventId(), conflicts, () -> dynamo.updateItem(b -> b.tableName(authorisations)
                .key(key(e.authorisationId()))
                .updateExpression(LEAVE_INDEX)
                .expressionAttributeValues(Map.of(":eventId", s(e.eventId())))
                .returnValues(ReturnValue.ALL_OLD)));
        return response.hasAttributes() ? string(response.attributes(), Authorisations.STATE) : Optional.empty();
    }

    /** The status of the authorisation's release command (one GetItem, only after a decided authorisation settled). */
    public Optional<String> releaseStatus(String authorisationId) {
        if (releaseCommands.isEmpty()) {
            return Optional.empty();
        }
        var item = StoreErrors.call("read the release command of " + authorisationId, () -> dynamo.getItem(b -> b.tableName(releaseCommands.get())
                .key(Map.of(ReleaseCommands.OPERATION_ID, s(Candidate.operationIdFor(authorisationId))))
                .projectionExpression("#status").expressionAttributeNames(Map.of("#status", ReleaseCommands.STATUS)))).item();
        return item == null ? Optional.empty() : string(item, ReleaseCommands.STATUS);
    }

    /** Applies {@code write}: empty when it was applied, or the stored item when its condition did not hold. */
    /**
     * Records a "held for feed" item for a refused settlement-bearing event (docs/design.md, "Held for feed"): an
     * unconditional PutItem, so a redelivered refusal writes the same hold again. Thrown on failure, so the handler
     * reports the message and it is never deleted without its hold recorded.
     */
    public void recordHold(FeedHold hold, Refusal refusal, java.time.Instant at) {
        String key = switch (hold) {
            case FeedHold.One one -> Settlements.heldKey(one.authorisationId());
            case FeedHold.NightWide ignored -> Settlements.NIGHT_WIDE_HOLD_KEY;
            case FeedHold.None ignored -> null;
        };
        if (key == null) {
            return;
        }
        Map<String, AttributeValue> item = Map.of(
                Settlements.AUTHORISATION_ID, AttributeValue.fromS(key),
                Settlements.HELD_AT, AttributeValue.fromN(Long.toString(at.toEpochMilli())),
                // The reason and the field only: a refusal's problem text never carries a value that looked like card data, but the item needs none.
                Settlements.HELD_REASON, AttributeValue.fromS(refusal.reason() + " " + refusal.field()));
        StoreErrors.call("record a hold for feed", () -> dynamo.putItem(b -> b.tableName(settlements).item(item)));
    }

    public Optional<StoredItem> apply(IngestWrite write) {
        String what = "ingest " + write.event().eventId();
        try {
            switch (write) {
                case CreateAuthorisation create -> {
                    var e = create.event();
                    Map<String, AttributeValue> item = new HashMap<>();
                    item.put(Authorisations.AUTHORISATION_ID, s(e.authorisationId()));
                    item.put(Authorisations.STATE, s(Authorisations.STATE_AUTHORISED));
                    item.put(Authorisations.VERSION, n(1));
                    item.put(Authorisations.AMOUNT_MINOR, n(e.amountMinor()));
                    item.put(Authorisations.CURRENCY, s(e.currency()));
                    item.put(Authorisations.MERCHANT_ID, s(e.merchantId()));
                    item.put(Authorisations.AUTHORISED_AT, n(e.authorisedAt().toEpochMilli()));
                    item.put(Authorisations.PENDING_SHARD, s(create.shardKey()));
                    item.put(Authorisations.CREATED_EVENT_ID, s(e.eventId()));
                    e.providerReference().ifPresent(reference -> item.put(Authorisations.PROVIDER_REFERENCE, s(reference)));
                    e.holdUntil().ifPresent(until -> item.put(Authorisations.HOLD_UNTIL, n(until.toEpochMilli())));
                    StoreErrors.call(what, conflicts, () -> dynamo.putItem(b -> b.tableName(authorisations).item(item)
                            .conditionExpression(CREATE_PENDING)
                            .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)));
                }
                case CompleteEndedAuthorisation complete -> {
                    var e = complete.event();
                    Map<String, AttributeValue> values = withReference(e, Map.of(":amount", n(e.amountMinor()), ":currency", s(e.currency()),
                            ":merchant", s(e.merchantId()), ":authorisedAt", n(e.authorisedAt().toEpochMilli()),
                            ":eventId", s(e.eventId()), ":observed", s(complete.observedState())));
                    StoreErrors.call(what, conflicts, () -> dynamo.updateItem(b -> b.tableName(authorisations)
                            .key(key(e.authorisationId()))
                            .updateExpression(COMPLETE_ENDED + createOptions(e))
                            .conditionExpression(COMPLETE_ENDED_CONDITION)
                            .expressionAttributeNames(STATE_NAME)
                            .expressionAttributeValues(values)
                            .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)));
                }
                case EndAuthorisation end -> {
                    var e = end.event();
                    StoreErrors.call(what, conflicts, () -> dynamo.updateItem(b -> b.tableName(authorisations)
                            .key(key(e.authorisationId()))
                            .updateExpression(END)
                            .conditionExpression(END_CONDITION)
                            .expressionAttributeNames(STATE_NAME)
                            .expressionAttributeValues(Map.of(":voided", s(Authorisations.STATE_VOIDED),
                                    ":authorised", s(Authorisations.STATE_AUTHORISED), ":zero", n(0), ":one", n(1),
                                    ":endedAt", n(e.endedAt().toEpochMilli()), ":kind", s(e.kind().name()), ":eventId", s(e.eventId())))
                            .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)));
                }
                case RecordEndBesideDecision record -> {
                    var e = record.event();
                    StoreErrors.call(what, conflicts, () -> dynamo.updateItem(b -> b.tableName(authorisations)
                            .key(key(e.authorisationId()))
                            .updateExpression(RECORD_END)
                            .conditionExpression(RECORD_END_CONDITION)
                            .expressionAttributeNames(STATE_NAME)
                            .expressionAttributeValues(Map.of(":observed", s(record.observedState()),
                                    ":endedAt", n(e.endedAt().toEpochMilli()), ":kind", s(e.kind().name()), ":eventId", s(e.eventId())))
                            .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)));
                }
                case LeaveIndexOnSettlement leave -> {
                    var e = leave.event();
                    StoreErrors.call(what, conflicts, () -> dynamo.updateItem(b -> b.tableName(authorisations)
                            .key(key(e.authorisationId()))
                            .updateExpression(LEAVE_INDEX)
                            .expressionAttributeValues(Map.of(":eventId", s(e.eventId())))));
                }
                case CompleteSettledAuthorisation complete -> {
                    var e = complete.event();
                    Map<String, AttributeValue> values = withReference(e, Map.of(":authorised", s(Authorisations.STATE_AUTHORISED), ":one", n(1),
                            ":amount", n(e.amountMinor()), ":currency", s(e.currency()), ":merchant", s(e.merchantId()),
                            ":authorisedAt", n(e.authorisedAt().toEpochMilli()), ":eventId", s(e.eventId())));
                    StoreErrors.call(what, conflicts, () -> dynamo.updateItem(b -> b.tableName(authorisations)
                            .key(key(e.authorisationId()))
                            .updateExpression(COMPLETE_SETTLED + createOptions(e))
                            .conditionExpression(COMPLETE_SETTLED_CONDITION)
                            .expressionAttributeNames(STATE_NAME)
                            .expressionAttributeValues(values)
                            .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)));
                }
                case IngestWrite.AdvanceWatermark advance -> advanceWatermark(advance);
                case RecordSettlement settle -> {
                    var e = settle.event();
                    Map<String, AttributeValue> item = new HashMap<>(Map.of(
                            Settlements.AUTHORISATION_ID, s(e.authorisationId()),
                            Settlements.SETTLED_AT, n(e.settledAt().toEpochMilli()),
                            Settlements.AMOUNT_MINOR, n(e.amountMinor()),
                            Settlements.CURRENCY, s(e.currency()),
                            Settlements.SETTLEMENT_EVENT_ID, s(e.eventId())));
                    // Version 2: the first capture stored starts the map later captures are added to.
                    e.captureSequence().ifPresent(sequence -> item.put(Settlements.CAPTURES,
                            AttributeValue.fromM(Map.of(Integer.toString(sequence), n(e.amountMinor())))));
                    e.finalCapture().ifPresent(last -> item.put(Settlements.FINAL_CAPTURE, AttributeValue.fromBool(last)));
                    StoreErrors.call(what, conflicts, () -> dynamo.putItem(b -> b.tableName(settlements).item(item)
                            .conditionExpression(SETTLE)
                            .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)));
                }
                case IncrementAuthorisation increment -> {
                    var e = increment.event();
                    Map<String, AttributeValue> values = new HashMap<>(Map.of(":authorised", s(Authorisations.STATE_AUTHORISED), ":one", n(1),
                            ":amount", n(e.amountMinor()), ":currency", s(e.currency()), ":at", n(e.incrementedAt().toEpochMilli()),
                            ":eventId", s(e.eventId()), ":eventIds", AttributeValue.fromSs(List.of(e.eventId()))));
                    e.holdUntil().ifPresent(until -> values.put(":holdUntil", n(until.toEpochMilli())));
                    StoreErrors.call(what, conflicts, () -> dynamo.updateItem(b -> b.tableName(authorisations)
                            .key(key(e.authorisationId()))
                            .updateExpression(INCREMENT + (e.holdUntil().isPresent() ? AND_HOLD_UNTIL : "") + RECORD_LIFECYCLE_EVENT)
                            .conditionExpression(INCREMENT_CONDITION)
                            .expressionAttributeNames(STATE_NAME)
                            .expressionAttributeValues(values)
                            .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)));
                }
                case ReduceAuthorisation reduce -> {
                    var e = reduce.event();
                    StoreErrors.call(what, conflicts, () -> dynamo.updateItem(b -> b.tableName(authorisations)
                            .key(key(e.authorisationId()))
                            .updateExpression(REDUCE + RECORD_LIFECYCLE_EVENT)
                            .conditionExpression(REDUCE_CONDITION)
                            .expressionAttributeNames(STATE_NAME)
                            .expressionAttributeValues(Map.of(":authorised", s(Authorisations.STATE_AUTHORISED), ":one", n(1),
                                    ":amount", n(e.amountMinor()), ":currency", s(e.currency()), ":at", n(e.reversedAt().toEpochMilli()),
                                    ":eventId", s(e.eventId()), ":eventIds", AttributeValue.fromSs(List.of(e.eventId()))))
                            .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)));
                }
                case AddCapture add -> {
                    var e = add.event();
                    Map<String, AttributeValue> values = new HashMap<>(Map.of(":amount", n(e.amountMinor()), ":currency", s(e.currency()),
                            ":settledAt", n(e.settledAt().toEpochMilli())));
                    e.finalCapture().ifPresent(last -> values.put(":final", AttributeValue.fromBool(last)));
                    StoreErrors.call(what, conflicts, () -> dynamo.updateItem(b -> b.tableName(settlements)
                            .key(Map.of(Settlements.AUTHORISATION_ID, s(e.authorisationId())))
                            .updateExpression(ADD_CAPTURE + (e.finalCapture().isPresent() ? AND_FINAL_CAPTURE : ""))
                            .conditionExpression(ADD_CAPTURE_CONDITION)
                            .expressionAttributeNames(Map.of("#sequence", Integer.toString(e.captureSequence().orElseThrow())))
                            .expressionAttributeValues(values)
                            .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)));
                }
            }
            return Optional.empty();
        } catch (ConditionalCheckFailedException refused) {
            Map<String, AttributeValue> old = refused.hasItem() ? refused.item() : Map.of();
            return Optional.of(switch (write) {
                case RecordSettlement ignored -> settlement(old);
                case AddCapture ignored -> settlement(old);
                case IngestWrite.AdvanceWatermark ignored -> watermark(old);
                default -> authorisation(old);
            });
        }
    }

    private static String createOptions(IngestEvent.AuthorisationCreated e) {
        return (e.providerReference().isPresent() ? AND_PROVIDER_REFERENCE : "") + (e.holdUntil().isPresent() ? AND_HOLD_UNTIL : "");
    }

    private static Map<String, AttributeValue> withReference(IngestEvent.AuthorisationCreated e, Map<String, AttributeValue> values) {
        Map<String, AttributeValue> all = new HashMap<>(values);
        e.providerReference().ifPresent(reference -> all.put(":providerReference", s(reference)));
        e.holdUntil().ifPresent(until -> all.put(":holdUntil", n(until.toEpochMilli())));
        return all;
    }

    private void advanceWatermark(IngestWrite.AdvanceWatermark advance) {
        var e = advance.event();
        Map<String, AttributeValue> item = Map.of(
                Settlements.AUTHORISATION_ID, s(e.authorisationId()),
                Settlements.FEED, s(e.feed()),
                Settlements.WATERMARK, n(e.watermark().toEpochMilli()),
                Settlements.WATERMARK_EVENT_ID, s(e.eventId()));
        StoreErrors.call("ingest " + e.eventId(), conflicts, () -> dynamo.putItem(b -> b.tableName(settlements).item(item)
                .conditionExpression(ADVANCE_WATERMARK)
                .expressionAttributeNames(Map.of("#watermark", Settlements.WATERMARK))
                .expressionAttributeValues(Map.of(":watermark", n(e.watermark().toEpochMilli())))
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)));
    }

    static StoredItem.StoredWatermark watermark(Map<String, AttributeValue> item) {
        return new StoredItem.StoredWatermark(string(item, Settlements.WATERMARK_EVENT_ID),
                number(item, Settlements.WATERMARK).map(Instant::ofEpochMilli));
    }

    private static Map<String, AttributeValue> key(String authorisationId) {
        return Map.of(Authorisations.AUTHORISATION_ID, s(authorisationId));
    }

    /** An absent item (a condition that needed one) reads as a state of its own, which no condition pins. */
    static StoredAuthorisation authorisation(Map<String, AttributeValue> item) {
        return new StoredAuthorisation(string(item, Authorisations.STATE).orElse(item.isEmpty() ? IngestionDecision.ABSENT : NO_STATE),
                string(item, Authorisations.CREATED_EVENT_ID), string(item, Authorisations.END_EVENT_ID),
                number(item, Authorisations.AMOUNT_MINOR), string(item, Authorisations.CURRENCY), string(item, Authorisations.MERCHANT_ID),
                number(item, Authorisations.AUTHORISED_AT).map(Instant::ofEpochMilli), string(item, Authorisations.PROVIDER_REFERENCE),
                item.containsKey(Authorisations.LIFECYCLE_EVENT_IDS) && item.get(Authorisations.LIFECYCLE_EVENT_IDS).hasSs()
                        ? Set.copyOf(item.get(Authorisations.LIFECYCLE_EVENT_IDS).ss()) : Set.of(),
                number(item, Authorisations.LAST_CHANGED_AT).map(Instant::ofEpochMilli));
    }

    static StoredSettlement settlement(Map<String, AttributeValue> item) {
        Map<Integer, Long> captures = new HashMap<>();
        AttributeValue map = item.get(Settlements.CAPTURES);
        if (map != null && map.hasM()) {
            map.m().forEach((sequence, amount) -> {
                try {
                    captures.put(Integer.parseInt(sequence), Long.parseLong(amount.n()));
                } catch (NumberFormatException | NullPointerException e) {
                    // Not ours: skipped, so a capture under that sequence reads as new and its write's condition answers.
                }
            });
        }
        return new StoredSettlement(string(item, Settlements.SETTLEMENT_EVENT_ID),
                number(item, Settlements.SETTLED_AT).map(Instant::ofEpochMilli), string(item, Settlements.CURRENCY), Map.copyOf(captures));
    }

    private static Optional<String> string(Map<String, AttributeValue> item, String name) {
        AttributeValue value = item.get(name);
        return value == null || value.s() == null ? Optional.empty() : Optional.of(value.s());
    }

    private static Optional<Long> number(Map<String, AttributeValue> item, String name) {
        AttributeValue value = item.get(name);
        try {
            return value == null || value.n() == null ? Optional.empty() : Optional.of(Long.parseLong(value.n()));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
