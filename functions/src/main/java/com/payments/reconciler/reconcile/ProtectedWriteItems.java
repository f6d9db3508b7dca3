package com.payments.reconciler.reconcile;

import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.store.Tables.Settlements;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.Update;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static com.payments.reconciler.store.Attr.n;
import static com.payments.reconciler.store.Attr.s;

/**
 * The items of the protected write (docs/design.md §4), built as values: the lease check first, then three items
 * per release or one per delivery mark. {@link Cancellations} reads the cancellation reasons by the same layout.
 * There is no way to build a transaction without the lease check: the negative controls remove it in the harness,
 * on the wire, never here.
 */
final class ProtectedWriteItems {

    /** DynamoDB's limit on the actions of one TransactWriteItems. */
    static final int TRANSACTION_ITEM_LIMIT = 100;
    /** Where the lease check sits in every transaction. */
    static final int LEASE_CHECK = 0;
    static final int FIRST_BATCH_ITEM = LEASE_CHECK + 1;
    static final int ITEMS_PER_RELEASE = 3;
    /** Offsets of a release's items from its first one. */
    static final int AUTHORISATION_ITEM = 0;
    static final int SETTLEMENT_ITEM = 1;
    static final int COMMAND_ITEM = 2;

    // I1: a write commits only while the lease is held by this owner at this epoch.
    static final String LEASE_HELD_BY_US = "#owner = :owner AND epoch = :epoch";
    // Optimistic concurrency: the decision was made on this version, and it must still be AUTHORISED.
    static final String STILL_AS_OBSERVED = "version = :observed AND #state = :authorised";
    static final String REQUEST_RELEASE = "SET #state = :releaseRequested, version = version + :one REMOVE pendingShard";
    // I3: never release an authorisation that has a settlement.
    static final String NOT_SETTLED = "attribute_not_exists(authorisationId)";
    // History-free nights (the cleanup of items a settlement left in the index): only an item still AUTHORISED at the
    // version the night read, still in the index. State and version are not written: nothing is decided, the item only
    // stops being read by every later night. Fenced like every write of the night (I1 covers decisions; this keeps a
    // stale worker from writing at all).
    static final String STILL_PENDING_AS_OBSERVED = "version = :observed AND #state = :authorised AND attribute_exists(pendingShard)";
    static final String LEAVE_INDEX = "REMOVE pendingShard";
    // I4: only an authorisation whose settlement is still stored leaves the index. The night's read of Settlements is
    // outside the transaction; on tables a platform writes itself a settlement may be deleted meanwhile, and an unsettled
    // authorisation out of the index would never be released.
    static final String STILL_SETTLED = "attribute_exists(authorisationId)";
    /** Items per settled candidate in a cleanup transaction: its update and its settlement's check, behind the lease check. */
    static final int ITEMS_PER_CLEANUP = 2;
    /** Offsets of a cleanup's items from its first one. */
    static final int CLEANUP_UPDATE_ITEM = 0;
    static final int CLEANUP_SETTLEMENT_ITEM = 1;
    // I2: one command per business operation, whoever issues it.
    static final String NEW_COMMAND = "attribute_not_exists(operationId)";
    // A command is finalised once: a second leader's delivery of the same operation leaves the first record.
    static final String STILL_PENDING = "#status = :pending";
    static final String RECORD_DELIVERY =
            "SET #status = :final, deliveredAt = :now, deliveredEpoch = :epoch, attempts = attempts + :attempts, #detail = :detail REMOVE deliveryShard";
    // An asynchronous provider took the request: the command leaves the delivery index (sending again could only be
    // answered the same) but is not ended; the provider's outcome ends it (ingestion, ReleaseCommandOutcome).
    // It enters the sparse awaiting-outcome index (awaitingShard), where the providerOutcomeTimeout sweep finds it.
    static final String ACKNOWLEDGE =
            "SET #status = :final, acknowledgedAt = :now, acknowledgedEpoch = :epoch, attempts = attempts + :attempts, "
                    + "#detail = :detail, awaitingShard = :awaitingShard REMOVE deliveryShard";
    // The providerOutcomeTimeout sweep escalates only a command still ACKNOWLEDGED: an outcome ingested meanwhile (which
    // ends it DELIVERED or REJECTED) is never overwritten by a person's queue.
    static final String STILL_ACKNOWLEDGED = "#status = :acknowledged";
    // Parked like PARK, and out of the awaiting-outcome index so no later sweep reads it again.
    static final String PARK_OVERDUE =
            "SET #status = :final, parkedStatus = :final, endedAt = :now, endedEpoch = :epoch, #detail = :detail, "
                    + "parkedShard = :shard REMOVE awaitingShard";
    // I3 at the provider call: a command whose authorisation settled ends unsent, with the settlement it saw.
    // Requests made before the settlement was seen (unanswered ones) stay counted in attempts.
    static final String END_UNSENT =
            "SET #status = :final, endedAt = :now, endedEpoch = :epoch, settledAt = :settledAt, attempts = attempts + :attempts, "
                    + "#detail = :detail REMOVE deliveryShard";
    // Its authorisation ended at the platform (void, expiry): no hold left, so no release request; the end it saw is kept.
    static final String END_ENDED =
            "SET #status = :final, endedAt = :now, endedEpoch = :epoch, authorisationEndKind = :endKind, "
                    + "authorisationEndedAt = :authorisationEndedAt, attempts = attempts + :attempts, #detail = :detail REMOVE deliveryShard";
    // Parked for a person: out of the pending index, into the parked one; parkedShard is where a requeue puts it back.
    static final String PARK =
            "SET #status = :final, parkedStatus = :final, endedAt = :now, endedEpoch = :epoch, attempts = attempts + :attempts, #detail = :detail, "
                    + "parkedShard = :shard REMOVE deliveryShard";

    // Keys the provider forgets: the first attempt's time is written once, before the first request, and never moved
    // later (a later stamp would make an old attempt look young, and its key trusted past the provider's retention).
    static final String FIRST_ATTEMPT = "SET firstAttemptAt = if_not_exists(firstAttemptAt, :at)";
    // Commands are never deleted: an update must not create an item from a stale operation id.
    static final String COMMAND_EXISTS = "attribute_exists(operationId)";
    // A hold lifts only by an operator's `holds clear`: a night that read a non-empty dead-letter queue records the
    // night-wide hold only where none is, never over one already there (IngestEvents' or an earlier call's keeps its
    // first reason and time).
    static final String NO_HOLD_YET = "attribute_not_exists(authorisationId)";
    /** Where the night-wide hold's Put sits in its transaction, behind the lease check. */
    static final int NIGHT_WIDE_HOLD_ITEM = FIRST_BATCH_ITEM;

    private final TableNames tables;

    ProtectedWriteItems(TableNames tables) {
        this.tables = tables;
    }

    /** The lease check, then each candidate's decision: RELEASE_REQUESTED, no settlement, a new PENDING command. */
    List<TransactWriteItem> releases(LeaseToken lease, List<Candidate> round, String windowId, Instant now) {
        List<TransactWriteItem> items = new ArrayList<>(FIRST_BATCH_ITEM + ITEMS_PER_RELEASE * round.size());
        items.add(leaseCheck(lease));
        round.forEach(candidate -> items.addAll(release(lease, candidate, windowId, now)));
        return items;
    }

    /**
     * The lease check, then per settled candidate a conditional update (out of the pending index, nothing else) and
     * the check that its settlement is still stored.
     */
    List<TransactWriteItem> leaveIndex(LeaseToken lease, List<Candidate> settled) {
        List<TransactWriteItem> items = new ArrayList<>(FIRST_BATCH_ITEM + ITEMS_PER_CLEANUP * settled.size());
        items.add(leaseCheck(lease));
        for (Candidate candidate : settled) {
            Map<String, AttributeValue> key = Map.of(Authorisations.AUTHORISATION_ID, s(candidate.authorisationId()));
            items.add(TransactWriteItem.builder().update(Update.builder()
                    .tableName(tables.authorisations())
                    .key(key)
                    .conditionExpression(STILL_PENDING_AS_OBSERVED)
                    .updateExpression(LEAVE_INDEX)
                    .expressionAttributeNames(Map.of("#state", Authorisations.STATE))
                    .expressionAttributeValues(Map.of(":observed", n(candidate.observedVersion()), ":authorised", s(Authorisations.STATE_AUTHORISED)))
                    .build()).build());
            items.add(TransactWriteItem.builder().conditionCheck(ConditionCheck.builder()
                    .tableName(tables.settlements())
                    .key(Map.of(Settlements.AUTHORISATION_ID, s(candidate.authorisationId())))
                    .conditionExpression(STILL_SETTLED)
                    .build()).build());
        }
        return items;
    }

    /** The lease check, then one conditional update per mark. */
    List<TransactWriteItem> marks(LeaseToken lease, List<DeliveryMark> round, Instant now) {
        List<TransactWriteItem> items = new ArrayList<>(FIRST_BATCH_ITEM + round.size());
        items.add(leaseCheck(lease));
        round.forEach(mark -> items.add(mark(lease, mark, now)));
        return items;
    }

    /** The lease check, then the first-attempt stamp of each command (kept when it has one). */
    List<TransactWriteItem> firstAttempts(LeaseToken lease, List<String> operationIds, Instant at) {
        List<TransactWriteItem> items = new ArrayList<>(FIRST_BATCH_ITEM + operationIds.size());
        items.add(leaseCheck(lease));
        operationIds.forEach(operationId -> items.add(TransactWriteItem.builder().update(Update.builder()
                .tableName(tables.releaseCommands())
                .key(Map.of(ReleaseCommands.OPERATION_ID, s(operationId)))
                .conditionExpression(COMMAND_EXISTS)
                .updateExpression(FIRST_ATTEMPT)
                .expressionAttributeValues(Map.of(":at", n(at.toEpochMilli())))
                .build()).build()));
        return items;
    }

    /** The lease check, then the night-wide hold {@code held#*}, written only where none is. */
    List<TransactWriteItem> nightWideHold(LeaseToken lease, String reason, Instant at) {
        Map<String, AttributeValue> item = new LinkedHashMap<>();
        item.put(Settlements.AUTHORISATION_ID, s(Settlements.NIGHT_WIDE_HOLD_KEY));
        item.put(Settlements.HELD_AT, n(at.toEpochMilli()));
        item.put(Settlements.HELD_REASON, s(reason));
        return List.of(leaseCheck(lease), TransactWriteItem.builder().put(Put.builder()
                .tableName(tables.settlements())
                .item(item)
                .conditionExpression(NO_HOLD_YET)
                .build()).build());
    }

    private TransactWriteItem leaseCheck(LeaseToken lease) {
        return TransactWriteItem.builder().conditionCheck(ConditionCheck.builder()
                .tableName(tables.leases())
                .key(Map.of(Leases.LEASE_NAME, s(lease.leaseName())))
                .conditionExpression(LEASE_HELD_BY_US)
                .expressionAttributeNames(Map.of("#owner", Leases.OWNER))
                .expressionAttributeValues(Map.of(":owner", s(lease.ownerId()), ":epoch", n(lease.epoch())))
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build()).build();
    }

    private List<TransactWriteItem> release(LeaseToken lease, Candidate candidate, String windowId, Instant now) {
        List<TransactWriteItem> items = new ArrayList<>(ITEMS_PER_RELEASE);
        items.add(TransactWriteItem.builder().update(Update.builder()
                .tableName(tables.authorisations())
                .key(Map.of(Authorisations.AUTHORISATION_ID, s(candidate.authorisationId())))
                .conditionExpression(STILL_AS_OBSERVED)
                .updateExpression(REQUEST_RELEASE)
                .expressionAttributeNames(Map.of("#state", Authorisations.STATE))
                .expressionAttributeValues(Map.of(":observed", n(candidate.observedVersion()),
                        ":authorised", s(Authorisations.STATE_AUTHORISED),
                        ":releaseRequested", s(Authorisations.STATE_RELEASE_REQUESTED), ":one", n(1)))
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build()).build());
        items.add(TransactWriteItem.builder().conditionCheck(ConditionCheck.builder()
                .tableName(tables.settlements())
                .key(Map.of(Settlements.AUTHORISATION_ID, s(candidate.authorisationId())))
                .conditionExpression(NOT_SETTLED)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build()).build());
        Map<String, AttributeValue> command = new LinkedHashMap<>();
        command.put(ReleaseCommands.OPERATION_ID, s(candidate.operationId()));
        command.put(ReleaseCommands.AUTHORISATION_ID, s(candidate.authorisationId()));
        command.put(ReleaseCommands.STATUS, s(ReleaseCommands.STATUS_PENDING));
        command.put(ReleaseCommands.EPOCH, n(lease.epoch()));
        command.put(ReleaseCommands.ISSUED_BY, s(lease.ownerId()));
        command.put(ReleaseCommands.WINDOW_ID, s(windowId));
        command.put(ReleaseCommands.CREATED_AT, n(now.toEpochMilli()));
        command.put(ReleaseCommands.ATTEMPTS, n(0));
        // Delivery stamps this command's first attempt before its first request: absent, firstAttemptAt means "never sent".
        command.put(ReleaseCommands.STAMPS_FIRST_ATTEMPT, AttributeValue.fromBool(true));
        command.put(ReleaseCommands.AMOUNT_MINOR, n(candidate.amountMinor()));
        command.put(ReleaseCommands.CURRENCY, s(candidate.currency()));
        command.put(ReleaseCommands.DELIVERY_SHARD, s(candidate.shard()));
        // The provider's id of the hold travels with the command, so delivery never reads the authorisation for it.
        candidate.providerReference().ifPresent(reference -> command.put(ReleaseCommands.PROVIDER_REFERENCE, s(reference)));
        items.add(TransactWriteItem.builder().put(Put.builder()
                .tableName(tables.releaseCommands())
                .item(command)
                .conditionExpression(NEW_COMMAND)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build()).build());
        return items;
    }

    private TransactWriteItem mark(LeaseToken lease, DeliveryMark mark, Instant now) {
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":pending", s(ReleaseCommands.STATUS_PENDING),
                ":now", n(now.toEpochMilli()), ":epoch", n(lease.epoch())));
        String expression;
        String condition = STILL_PENDING;
        String status;
        String detailAttribute;
        String detail;
        switch (mark.result()) {
            case DeliveryRecord.Result.Delivered d -> {
                expression = RECORD_DELIVERY;
                status = ReleaseCommands.STATUS_DELIVERED;
                values.put(":attempts", n(mark.attempts()));
                detailAttribute = ReleaseCommands.PROVIDER_REFERENCE;
                detail = d.providerReference();
            }
            case DeliveryRecord.Result.Acknowledged a -> {
                expression = ACKNOWLEDGE;
                status = ReleaseCommands.STATUS_ACKNOWLEDGED;
                values.put(":attempts", n(mark.attempts()));
                // A stored error names no request: requestReference stays absent, so the outcome that names the
                // cancel's own reference still meets ProviderOutcomes' condition.
                detailAttribute = a.requestReference().isPresent() ? ReleaseCommands.REQUEST_REFERENCE : ReleaseCommands.STORED_ERROR;
                detail = a.requestReference().or(a::storedError).orElseThrow();
                values.put(":awaitingShard", s(Shards.key(a.shard())));
            }
            case DeliveryRecord.Result.Rejected r -> {
                expression = RECORD_DELIVERY;
                status = ReleaseCommands.STATUS_REJECTED;
                values.put(":attempts", n(mark.attempts()));
                detailAttribute = ReleaseCommands.REJECTION_REASON;
                detail = r.code() + ": " + r.reason();
            }
            case DeliveryRecord.Result.CancelledSettled c -> {
                expression = END_UNSENT;
                status = ReleaseCommands.STATUS_CANCELLED_SETTLED;
                detailAttribute = ReleaseCommands.END_REASON;
                detail = "its authorisation settled at " + c.settledAt() + ", before delivery";
                values.put(":settledAt", n(c.settledAt().toEpochMilli()));
                values.put(":attempts", n(mark.attempts()));
            }
            case DeliveryRecord.Result.CancelledEnded e -> {
                expression = END_ENDED;
                status = ReleaseCommands.STATUS_CANCELLED_ENDED;
                detailAttribute = ReleaseCommands.END_REASON;
                detail = "its authorisation ended (" + e.endKind() + ") at " + e.endedAt() + ", before delivery";
                values.put(":endKind", s(e.endKind()));
                values.put(":authorisationEndedAt", n(e.endedAt().toEpochMilli()));
                values.put(":attempts", n(mark.attempts()));
            }
            case DeliveryRecord.Result.Quarantined q -> {
                expression = PARK;
                status = ReleaseCommands.STATUS_QUARANTINED;
                detailAttribute = ReleaseCommands.END_REASON;
                detail = q.answer();
                values.put(":shard", n(q.shard()));
                values.put(":attempts", n(mark.attempts()));
            }
            case DeliveryRecord.Result.OutcomeOverdue o -> {
                expression = PARK_OVERDUE;
                condition = STILL_ACKNOWLEDGED;
                values.remove(":pending");
                values.put(":acknowledged", s(ReleaseCommands.STATUS_ACKNOWLEDGED));
                status = ReleaseCommands.STATUS_ESCALATED;
                detailAttribute = ReleaseCommands.END_REASON;
                detail = o.reason();
                values.put(":shard", n(o.shard()));
            }
            case DeliveryRecord.Result.Escalated e -> {
                expression = PARK;
                status = ReleaseCommands.STATUS_ESCALATED;
                detailAttribute = ReleaseCommands.END_REASON;
                detail = e.reason();
                values.put(":shard", n(e.shard()));
                values.put(":attempts", n(mark.attempts()));
            }
        }
        values.put(":final", s(status));
        values.put(":detail", s(detail));
        return TransactWriteItem.builder().update(Update.builder()
                .tableName(tables.releaseCommands())
                .key(Map.of(ReleaseCommands.OPERATION_ID, s(mark.operationId())))
                .conditionExpression(condition)
                .updateExpression(expression)
                .expressionAttributeNames(Map.of("#status", ReleaseCommands.STATUS, "#detail", detailAttribute))
                .expressionAttributeValues(values)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build()).build();
    }
}
