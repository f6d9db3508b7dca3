package com.payments.reconciler.harness.bench;

import com.payments.reconciler.store.TableNames;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Counts the handlers' DynamoDB requests by {@link Purpose} (every attempt: each is billed) and the
 * request units DynamoDB would bill for them, from the requests and responses themselves:
 * <ul>
 *   <li>transactional write items (ConditionCheck included, as the price list counts them): 2 WRU per
 *   started KB of the item we send, 1 KB minimum;</li>
 *   <li>PutItem: 1 WRU per started KB of the item; UpdateItem/DeleteItem: 1 WRU (every item these tables
 *   hold is far below 1 KB — the largest item sent is reported so that assumption is checked);</li>
 *   <li>Query: 0.5 RRU per started 4 KB of all items returned; GetItem: 0.5 RRU; BatchGetItem: 0.5 RRU per key
 *   asked for, found or not; each twice that when strongly consistent ({@code ConsistentRead}, per table in a
 *   BatchGetItem), as the delivery's fact reads and Powertools' record reads are.</li>
 * </ul>
 * Item sizes follow DynamoDB's rule: attribute name bytes plus value bytes (numbers: about one byte per
 * two digits, plus one).
 */
public final class RequestLedger implements ExecutionInterceptor {

    private final TableNames tables;
    private final Map<Purpose, AtomicLong> requests = new EnumMap<>(Purpose.class);
    private final AtomicLong transactionItems = new AtomicLong();
    private final AtomicLong writeUnits = new AtomicLong();
    /** Read units in halves (eventually consistent reads cost 0.5 RRU). */
    private final AtomicLong readHalfUnits = new AtomicLong();
    private final AtomicLong largestItemBytes = new AtomicLong();

    public RequestLedger(TableNames tables) {
        this.tables = tables;
        for (Purpose purpose : Purpose.values()) {
            requests.put(purpose, new AtomicLong());
        }
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        SdkRequest request = context.request();
        if (!(request instanceof DynamoDbRequest)) {
            // The handlers' Step Functions and other clients share the interceptor list: not DynamoDB requests.
            return;
        }
        requests.get(purposeOf(request)).incrementAndGet();
        switch (request) {
            case TransactWriteItemsRequest tx -> {
                transactionItems.addAndGet(tx.transactItems().size());
                for (TransactWriteItem item : tx.transactItems()) {
                    long bytes = item.put() != null ? itemBytes(item.put().item())
                            : item.update() != null ? itemBytes(item.update().key())
                            : item.conditionCheck() != null ? itemBytes(item.conditionCheck().key())
                            : itemBytes(item.delete().key());
                    writeUnits.addAndGet(2 * kilobytes(bytes));
                }
            }
            case PutItemRequest put -> writeUnits.addAndGet(kilobytes(itemBytes(put.item())));
            case UpdateItemRequest ignored -> writeUnits.incrementAndGet();
            case DeleteItemRequest ignored -> writeUnits.incrementAndGet();
            case GetItemRequest get -> readHalfUnits.addAndGet(halves(get.consistentRead()));
            case BatchGetItemRequest batch -> readHalfUnits.addAndGet(batch.requestItems().values().stream()
                    .mapToLong(keys -> keys.keys().size() * halves(keys.consistentRead())).sum());
            default -> { }
        }
    }

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
        SdkResponse response = context.response();
        if (response instanceof QueryResponse query && context.request() instanceof QueryRequest asked) {
            long bytes = query.items().stream().mapToLong(RequestLedger::itemBytes).sum();
            readHalfUnits.addAndGet(Math.max(1, (bytes + 4095) / 4096) * halves(asked.consistentRead()));
        }
    }

    /** An eventually consistent read unit is one half; a strongly consistent one, two. */
    private static long halves(Boolean consistentRead) {
        return Boolean.TRUE.equals(consistentRead) ? 2 : 1;
    }

    private Purpose purposeOf(SdkRequest request) {
        return switch (request) {
            case QueryRequest q when q.tableName().equals(tables.authorisations()) -> Purpose.CANDIDATE_PAGES;
            // Delivery's facts read also reads the authorisations (their ends); the page's batch read is of Settlements
            // only (settlements and hold items); the feed gate reads the watermark item alone.
            case BatchGetItemRequest b when b.requestItems().containsKey(tables.authorisations()) -> Purpose.DELIVERY_FACT_READS;
            case BatchGetItemRequest b when readsOnlyTheWatermark(b) -> Purpose.FEED_WATERMARK_READS;
            case BatchGetItemRequest b when b.requestItems().containsKey(tables.settlements()) -> Purpose.SETTLEMENT_READS;
            case QueryRequest q when q.tableName().equals(tables.releaseCommands()) -> Purpose.DELIVERY_PAGES;
            case TransactWriteItemsRequest tx when touches(tx, tables.authorisations()) && putsNothing(tx) -> Purpose.INDEX_CLEANUP;
            case TransactWriteItemsRequest tx when touches(tx, tables.authorisations()) -> Purpose.RELEASE_TRANSACTIONS;
            case TransactWriteItemsRequest tx when stampsFirstAttempts(tx) -> Purpose.FIRST_ATTEMPT_STAMPS;
            case TransactWriteItemsRequest tx when touches(tx, tables.releaseCommands()) -> Purpose.DELIVERY_MARKS;
            case PutItemRequest p when p.tableName().equals(tables.idempotency()) -> Purpose.IDEMPOTENCY_RECORDS;
            case UpdateItemRequest u when u.tableName().equals(tables.idempotency()) -> Purpose.IDEMPOTENCY_RECORDS;
            case GetItemRequest g when g.tableName().equals(tables.idempotency()) -> Purpose.IDEMPOTENCY_RECORDS;
            case DeleteItemRequest d when d.tableName().equals(tables.idempotency()) -> Purpose.IDEMPOTENCY_RECORDS;
            case BatchGetItemRequest b when b.requestItems().containsKey(tables.leases()) -> Purpose.NIGHT_RECORDS;
            case PutItemRequest p when p.tableName().equals(tables.leases()) -> Purpose.NIGHT_RECORDS;
            case GetItemRequest g when g.tableName().equals(tables.leases()) && isNightRecord(g.key()) -> Purpose.NIGHT_RECORDS;
            case UpdateItemRequest u when u.tableName().equals(tables.leases()) && isNightRecord(u.key()) -> Purpose.NIGHT_RECORDS;
            case UpdateItemRequest u when u.tableName().equals(tables.leases()) -> Purpose.LEASE;
            case GetItemRequest g when g.tableName().equals(tables.leases()) -> Purpose.LEASE;
            default -> Purpose.OTHER;
        };
    }

    /** The surge guard's records ({@code night#W}) share the Leases table with the lease. */
    private static boolean isNightRecord(java.util.Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> key) {
        var name = key.get(com.payments.reconciler.store.Tables.Leases.LEASE_NAME);
        return name != null && name.s() != null && name.s().startsWith(com.payments.reconciler.store.Tables.Leases.NIGHT_RECORD_PREFIX);
    }

    private boolean readsOnlyTheWatermark(BatchGetItemRequest b) {
        var settlements = b.requestItems().get(tables.settlements());
        return b.requestItems().size() == 1 && settlements != null && settlements.keys().stream().allMatch(key ->
                key.get(com.payments.reconciler.store.Tables.Settlements.AUTHORISATION_ID).s()
                        .startsWith(com.payments.reconciler.store.Tables.Settlements.FEED_KEY_PREFIX));
    }

    /** Delivery's stamp of its commands' first attempts, before their first requests (keys the provider forgets). */
    private static boolean stampsFirstAttempts(TransactWriteItemsRequest tx) {
        return tx.transactItems().stream().anyMatch(item -> item.update() != null
                && item.update().updateExpression().contains(com.payments.reconciler.store.Tables.ReleaseCommands.FIRST_ATTEMPT_AT));
    }

    /** A release transaction always puts its outbox commands; the night's index cleanup only updates and checks. */
    private static boolean putsNothing(TransactWriteItemsRequest tx) {
        return tx.transactItems().stream().allMatch(item -> item.put() == null);
    }

    private static boolean touches(TransactWriteItemsRequest tx, String table) {
        return tx.transactItems().stream().anyMatch(i -> table.equals(tableOf(i)));
    }

    private static String tableOf(TransactWriteItem item) {
        if (item.put() != null) return item.put().tableName();
        if (item.update() != null) return item.update().tableName();
        if (item.conditionCheck() != null) return item.conditionCheck().tableName();
        return item.delete().tableName();
    }

    private long kilobytes(long bytes) {
        largestItemBytes.accumulateAndGet(bytes, Math::max);
        return Math.max(1, (bytes + 1023) / 1024);
    }

    static long itemBytes(Map<String, AttributeValue> item) {
        long bytes = 0;
        for (Map.Entry<String, AttributeValue> e : item.entrySet()) {
            bytes += e.getKey().getBytes(StandardCharsets.UTF_8).length + valueBytes(e.getValue());
        }
        return bytes;
    }

    private static long valueBytes(AttributeValue v) {
        if (v.s() != null) return v.s().getBytes(StandardCharsets.UTF_8).length;
        if (v.n() != null) return (v.n().replace("-", "").replace(".", "").length() + 1) / 2 + 1;
        if (v.bool() != null || Boolean.TRUE.equals(v.nul())) return 1;
        if (v.hasM()) return 3 + itemBytes(v.m());
        if (v.hasL()) return 3 + v.l().stream().mapToLong(RequestLedger::valueBytes).sum() + v.l().size();
        if (v.hasSs()) return v.ss().stream().mapToLong(s -> s.getBytes(StandardCharsets.UTF_8).length).sum();
        if (v.b() != null) return v.b().asByteArray().length;
        return 1;
    }

    /** What was counted since the last reset. */
    public Snapshot snapshot() {
        Map<Purpose, Long> byPurpose = new EnumMap<>(Purpose.class);
        requests.forEach((p, n) -> byPurpose.put(p, n.get()));
        return new Snapshot(byPurpose, transactionItems.get(), writeUnits.get(), readHalfUnits.get() / 2.0, largestItemBytes.get());
    }

    public void reset() {
        requests.values().forEach(n -> n.set(0));
        transactionItems.set(0);
        writeUnits.set(0);
        readHalfUnits.set(0);
        largestItemBytes.set(0);
    }

    /**
     * @param writeRequestUnits WRUs DynamoDB on-demand would bill
     * @param readRequestUnits RRUs DynamoDB on-demand would bill
     * @param largestItemBytes the largest item (or key) the handlers sent, to check the 1 KB assumption
     */
    public record Snapshot(Map<Purpose, Long> requests, long transactionItems, long writeRequestUnits,
                           double readRequestUnits, long largestItemBytes) {
        public Snapshot {
            requests = Map.copyOf(requests);
        }

        public long total() {
            return requests.values().stream().mapToLong(Long::longValue).sum();
        }

        public long of(Purpose purpose) {
            return requests.getOrDefault(purpose, 0L);
        }

        static List<Purpose> order() {
            return List.of(Purpose.values());
        }
    }
}
