package com.payments.reconciler.surge;

import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.StoreErrors;
import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.workflow.StoreContention;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;

/**
 * Each night's record for the release-surge guard, in the Leases table beside the lease ({@link Leases#NIGHT_RECORD_PREFIX}):
 * how many releases the night decided, whether the guard let delivery go on or held it, and an operator's approval.
 * The night's own record and its {@link ReleaseSurgePolicy#LOOKBACK_DAYS} predecessors are one BatchGetItem (15 keys).
 */
public final class NightRecords {

    // A night's figures are recorded once, by the first run that ends the window's decisions: a rerun (which reads
    // nothing left to decide) must not replace the night's count by its own 0, nor a held night's HELD by DELIVERED.
    static final String RECORD_ONCE = "attribute_not_exists(" + Leases.LEASE_NAME + ")";
    // Only a held night can be approved, and only once: the first approval's who, when and why stay.
    static final String APPROVE_CONDITION = "nightStatus = :held";
    static final String APPROVE_UPDATE = "SET nightStatus = :approved, approvedBy = :who, approvedAt = :at, approvalNote = :note";

    /** One night's record. */
    public record Night(String windowId, long releases, long candidatesRead, String status, Optional<Double> median,
                        Optional<String> approvedBy,
                        Optional<Instant> approvedAt, Optional<String> note) {
        public boolean held() {
            return Leases.NIGHT_HELD.equals(status);
        }

        public boolean approved() {
            return Leases.NIGHT_APPROVED.equals(status);
        }

        /** A night whose releases went (or may go) to the provider: the history the median is taken over. */
        boolean completed() {
            return Leases.NIGHT_DELIVERED.equals(status) || approved();
        }
    }

    /** The window's own record, and the releases of its completed predecessors, newest first. */
    public record Lookup(Optional<Night> own, List<Long> history) {
    }

    private final DynamoDbClient dynamo;
    private final String table;
    /** Pauses before reading keys DynamoDB left unprocessed (throttling). */
    private final Backoff unprocessed;

    public NightRecords(DynamoDbClient dynamo, String table) {
        this(dynamo, table, Backoff.standard());
    }

    public NightRecords(DynamoDbClient dynamo, String table, Backoff unprocessed) {
        this.dynamo = dynamo;
        this.table = table;
        this.unprocessed = unprocessed;
    }

    public static String key(String windowId) {
        return Leases.NIGHT_RECORD_PREFIX + windowId;
    }

    public Lookup lookup(WindowId window) {
        List<String> windows = new ArrayList<>();
        windows.add(window.toString());
        for (int back = 1; back <= ReleaseSurgePolicy.LOOKBACK_DAYS; back++) {
            windows.add(new WindowId(window.date().minusDays(back)).toString());
        }
        Map<String, Night> found = new HashMap<>();
        KeysAndAttributes unread = KeysAndAttributes.builder().consistentRead(true)
                .keys(windows.stream().map(w -> Map.of(Leases.LEASE_NAME, AttributeValue.fromS(key(w)))).toList()).build();
        for (int attempt = 1; unread != null && unread.hasKeys() && !unread.keys().isEmpty(); attempt++) {
            if (attempt > 1) {
                if (attempt > unprocessed.maxAttempts()) {
                    throw new StoreContention("night records: " + unread.keys().size() + " keys still unprocessed after " + (attempt - 1) + " reads");
                }
                unprocessed.beforeRetry(attempt - 1);
            }
            KeysAndAttributes request = unread;
            BatchGetItemResponse response = StoreErrors.call("read night records", () -> dynamo.batchGetItem(b -> b.requestItems(Map.of(table, request))));
            response.responses().getOrDefault(table, List.of()).forEach(item -> {
                Night night = night(item);
                found.put(night.windowId(), night);
            });
            unread = response.unprocessedKeys().get(table);
        }
        List<Long> history = windows.subList(1, windows.size()).stream().map(found::get)
                .filter(n -> n != null && n.completed()).map(Night::releases).toList();
        return new Lookup(Optional.ofNullable(found.get(window.toString())), history);
    }

    public Optional<Night> read(WindowId window) {
        Map<String, AttributeValue> item = StoreErrors.call("read night record " + window, () -> dynamo.getItem(b -> b.tableName(table)
                .key(Map.of(Leases.LEASE_NAME, AttributeValue.fromS(key(window.toString())))).consistentRead(true))).item();
        return item == null || item.isEmpty() ? Optional.empty() : Optional.of(night(item));
    }

    /** Records the night once; false when a record was already there (kept as it is). */
    public boolean record(WindowId window, long releases, long candidatesRead, SurgeDecision.Verdict verdict, Instant at) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put(Leases.LEASE_NAME, AttributeValue.fromS(key(window.toString())));
        item.put(Leases.NIGHT_WINDOW_ID, AttributeValue.fromS(window.toString()));
        item.put(Leases.NIGHT_RELEASES, AttributeValue.fromN(Long.toString(releases)));
        item.put(Leases.NIGHT_CANDIDATES_READ, AttributeValue.fromN(Long.toString(candidatesRead)));
        item.put(Leases.NIGHT_STATUS, AttributeValue.fromS(verdict instanceof SurgeDecision.Verdict.Hold ? Leases.NIGHT_HELD : Leases.NIGHT_DELIVERED));
        item.put(Leases.NIGHT_DECIDED_AT, AttributeValue.fromN(Long.toString(at.toEpochMilli())));
        switch (verdict) {
            case SurgeDecision.Verdict.Hold hold -> item.put(Leases.NIGHT_MEDIAN, AttributeValue.fromN(Double.toString(hold.median())));
            case SurgeDecision.Verdict.Deliver deliver -> deliver.median()
                    .ifPresent(m -> item.put(Leases.NIGHT_MEDIAN, AttributeValue.fromN(Double.toString(m))));
        }
        try {
            StoreErrors.call("record night " + window, () -> dynamo.putItem(b -> b.tableName(table).item(item).conditionExpression(RECORD_ONCE)));
            return true;
        } catch (ConditionalCheckFailedException already) {
            return false;
        }
    }

    /** The outcome of an approval. */
    public enum Approval { APPROVED, ALREADY_APPROVED, NOT_HELD, NO_RECORD }

    /** An operator's approval of a held night: who (the caller's identity), when, why. */
    public Approval approve(WindowId window, String who, String note, Instant at) {
        try {
            StoreErrors.call("approve night " + window, () -> dynamo.updateItem(b -> b.tableName(table)
                    .key(Map.of(Leases.LEASE_NAME, AttributeValue.fromS(key(window.toString()))))
                    .conditionExpression(APPROVE_CONDITION)
                    .updateExpression(APPROVE_UPDATE)
                    .expressionAttributeValues(Map.of(":held", AttributeValue.fromS(Leases.NIGHT_HELD),
                            ":approved", AttributeValue.fromS(Leases.NIGHT_APPROVED), ":who", AttributeValue.fromS(who),
                            ":at", AttributeValue.fromN(Long.toString(at.toEpochMilli())), ":note", AttributeValue.fromS(note)))));
            return Approval.APPROVED;
        } catch (ConditionalCheckFailedException refused) {
            Optional<Night> night = read(window);
            if (night.isEmpty()) {
                return Approval.NO_RECORD;
            }
            return night.get().approved() ? Approval.ALREADY_APPROVED : Approval.NOT_HELD;
        }
    }

    static Night night(Map<String, AttributeValue> item) {
        String window = item.get(Leases.LEASE_NAME).s().substring(Leases.NIGHT_RECORD_PREFIX.length());
        return new Night(window, number(item, Leases.NIGHT_RELEASES), number(item, Leases.NIGHT_CANDIDATES_READ),
                item.containsKey(Leases.NIGHT_STATUS) ? item.get(Leases.NIGHT_STATUS).s() : "",
                Optional.ofNullable(item.get(Leases.NIGHT_MEDIAN)).map(v -> Double.parseDouble(v.n())),
                Optional.ofNullable(item.get(Leases.NIGHT_APPROVED_BY)).map(AttributeValue::s),
                Optional.ofNullable(item.get(Leases.NIGHT_APPROVED_AT)).map(v -> Instant.ofEpochMilli(Long.parseLong(v.n()))),
                Optional.ofNullable(item.get(Leases.NIGHT_APPROVAL_NOTE)).map(AttributeValue::s));
    }

    private static long number(Map<String, AttributeValue> item, String name) {
        AttributeValue v = item.get(name);
        return v == null || v.n() == null ? 0 : Long.parseLong(v.n());
    }

    /** Whether a Leases item is a night record, not a lease (readers of the lease items skip these). */
    public static boolean isNightRecord(String leaseName) {
        return leaseName != null && leaseName.startsWith(Leases.NIGHT_RECORD_PREFIX);
    }
}
