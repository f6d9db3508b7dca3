package com.payments.reconciler.cli.operator;

import com.payments.reconciler.store.Tables.Settlements;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * The holds for feed in the Settlements table (docs/decisions.md, "Held for feed") and the operator's one change to them:
 * clearing a hold once its refused settlement is accounted for. A clear deletes the {@code held#} item and, in the same
 * transaction, writes a {@code cleared-hold#} record with who, when and why and the hold's own attributes: the night reads
 * only {@code held#} keys, so the record keeps the history without holding anything.
 *
 * <p>Not a worker's write and no lease: the holds are written by IngestEvents (an unconditional put per refusal) and read
 * by the nights; no worker changes one.
 */
public final class FeedHolds {

    // Only the hold items: their keys begin held# (a settlement's key is an authorisation id, which has no '#').
    static final String HOLD_ITEMS = "begins_with(authorisationId, :held)";
    // The hold is deleted only as the operator saw it: a refusal that recorded it again since (a new heldAt) is not cleared.
    static final String STILL_HELD_AS_READ = "attribute_exists(authorisationId) AND heldAt = :heldAt";
    // One record per clearing: a clock that repeats a millisecond does not overwrite an earlier record.
    static final String NEW_RECORD = "attribute_not_exists(authorisationId)";

    /** A hold as listed: its key, the authorisation it names ({@code *} for the night-wide hold), when and why. */
    public record Hold(String key, String authorisationId, Instant heldAt, String reason) {
    }

    /** What a clear found. */
    public sealed interface Clear {
        record Cleared(String key, String recordKey) implements Clear {
        }

        /** No such hold (never recorded, or cleared already): nothing written. */
        record NoHold(String key) implements Clear {
        }

        /** Recorded again (a new refusal) between the read and the delete: nothing written, list and clear again. */
        record Changed(String key) implements Clear {
        }
    }

    private final DynamoDbClient dynamo;
    private final String table;

    public FeedHolds(DynamoDbClient dynamo, String table) {
        this.dynamo = dynamo;
        this.table = table;
    }

    /**
     * Every hold, the night-wide one first, then oldest first. A Scan of the Settlements table filtered to the hold keys
     * (no index holds them): it reads the whole table, so it costs a table's worth of read capacity each run.
     */
    public List<Hold> list() {
        List<Hold> holds = new ArrayList<>();
        Map<String, AttributeValue> startKey = null;
        do {
            Map<String, AttributeValue> from = startKey;
            ScanResponse page = dynamo.scan(b -> {
                b.tableName(table).consistentRead(true).filterExpression(HOLD_ITEMS)
                        .expressionAttributeValues(Map.of(":held", AttributeValue.fromS(Settlements.HELD_KEY_PREFIX)));
                if (from != null) {
                    b.exclusiveStartKey(from);
                }
            });
            page.items().forEach(item -> holds.add(hold(item)));
            startKey = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
        } while (startKey != null);
        holds.sort(Comparator.comparing((Hold h) -> !h.key().equals(Settlements.NIGHT_WIDE_HOLD_KEY)).thenComparing(Hold::heldAt));
        return holds;
    }

    /** Clears the hold {@code key} ({@code held#<authorisationId>} or {@code held#*}), recording who, when and why. */
    public Clear clear(String key, String note, String caller, Instant now) {
        Map<String, AttributeValue> hold = dynamo.getItem(b -> b.tableName(table).consistentRead(true)
                .key(Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS(key)))).item();
        if (hold == null || hold.isEmpty()) {
            return new Clear.NoHold(key);
        }
        String recordKey = Settlements.clearedHoldKey(key, now.toEpochMilli());
        Map<String, AttributeValue> record = new HashMap<>(hold);
        record.put(Settlements.AUTHORISATION_ID, AttributeValue.fromS(recordKey));
        record.put(Settlements.CLEARED_BY, AttributeValue.fromS(caller));
        record.put(Settlements.CLEARED_AT, AttributeValue.fromN(Long.toString(now.toEpochMilli())));
        record.put(Settlements.CLEAR_NOTE, AttributeValue.fromS(note));
        AttributeValue heldAt = hold.getOrDefault(Settlements.HELD_AT, AttributeValue.fromN("0"));
        try {
            dynamo.transactWriteItems(b -> b.transactItems(
                    TransactWriteItem.builder().delete(d -> d.tableName(table)
                            .key(Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS(key)))
                            .conditionExpression(STILL_HELD_AS_READ)
                            .expressionAttributeValues(Map.of(":heldAt", heldAt))).build(),
                    TransactWriteItem.builder().put(p -> p.tableName(table).item(record).conditionExpression(NEW_RECORD)).build()));
        } catch (TransactionCanceledException e) {
            List<CancellationReason> reasons = e.cancellationReasons();
            if (!reasons.isEmpty() && "ConditionalCheckFailed".equals(reasons.getFirst().code())) {
                return new Clear.Changed(key);
            }
            throw e;
        }
        return new Clear.Cleared(key, recordKey);
    }

    private static Hold hold(Map<String, AttributeValue> item) {
        String key = item.get(Settlements.AUTHORISATION_ID).s();
        AttributeValue at = item.get(Settlements.HELD_AT);
        AttributeValue reason = item.get(Settlements.HELD_REASON);
        Instant heldAt;
        try {
            heldAt = at == null || at.n() == null ? Instant.EPOCH : Instant.ofEpochMilli(Long.parseLong(at.n()));
        } catch (NumberFormatException e) {
            heldAt = Instant.EPOCH;
        }
        return new Hold(key, key.substring(Settlements.HELD_KEY_PREFIX.length()), heldAt, reason == null || reason.s() == null ? "" : reason.s());
    }
}
