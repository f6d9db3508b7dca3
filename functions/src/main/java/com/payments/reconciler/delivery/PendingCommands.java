package com.payments.reconciler.delivery;

import com.payments.reconciler.reconcile.Shards;
import com.payments.reconciler.store.StoreErrors;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.workflow.InvalidInput;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.Select;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static com.payments.reconciler.store.Attr.s;

/**
 * Reads the outbox's commands still PENDING, one shard of the sparse {@code pending-delivery} index,
 * oldest first, in bounded pages: no list of ids ever travels through the workflow's state. The index
 * is eventually consistent; the fenced {@code #status = PENDING} condition of the delivery mark is the truth.
 */
public final class PendingCommands {

    // Only commands not yet DELIVERED/REJECTED: deliveryShard is removed when a command is finalised.
    static final String PENDING_IN_SHARD = "deliveryShard = :shard";
    // providerOutcomeTimeout: the shard's ACKNOWLEDGED commands (awaitingShard exists only while ACKNOWLEDGED)
    // acknowledged before the cutoff, i.e. waiting longer than the timeout (ProviderOutcomeTimeout#overdue).
    static final String OVERDUE_IN_SHARD = "awaitingShard = :shard AND acknowledgedAt < :cutoff";

    private final DynamoDbClient dynamo;
    private final String table;

    public PendingCommands(DynamoDbClient dynamo, String table) {
        this.dynamo = dynamo;
        this.table = table;
    }

    /** One page of one shard, at most {@code limit} index items, from {@code startKey} (empty: the start). */
    public Page page(int shard, Map<String, AttributeValue> startKey, int limit) {
        QueryResponse response = StoreErrors.call("query " + ReleaseCommands.PENDING_DELIVERY + " shard " + shard,
                () -> dynamo.query(b -> {
                    b.tableName(table)
                            .indexName(ReleaseCommands.PENDING_DELIVERY)
                            .keyConditionExpression(PENDING_IN_SHARD)
                            .expressionAttributeValues(Map.of(":shard", s(Shards.key(shard))))
                            .limit(limit);
                    if (startKey != null && !startKey.isEmpty()) {
                        b.exclusiveStartKey(startKey);
                    }
                }));
        List<PendingCommand> commands = new ArrayList<>(response.count());
        List<Malformed> malformed = new ArrayList<>();
        for (Map<String, AttributeValue> item : response.items()) {
            try {
                commands.add(PendingCommand.fromItem(item));
            } catch (InvalidInput bad) {
                AttributeValue id = item.get(ReleaseCommands.OPERATION_ID);
                malformed.add(new Malformed(id == null || id.s() == null ? "?" : id.s(), bad.getMessage()));
            }
        }
        Map<String, AttributeValue> next = response.hasLastEvaluatedKey() && !response.lastEvaluatedKey().isEmpty()
                ? response.lastEvaluatedKey() : Map.of();
        return new Page(commands, malformed, next);
    }

    /**
     * The shard's PENDING commands, counted (paged, so any size): its backlog when a night plans its delivery,
     * and what is left when the shard's delivery ends. The index is eventually consistent: a count, not a list.
     */
    public long count(int shard) {
        long count = 0;
        Map<String, AttributeValue> startKey = Map.of();
        do {
            Map<String, AttributeValue> from = startKey;
            QueryResponse response = StoreErrors.call("count " + ReleaseCommands.PENDING_DELIVERY + " shard " + shard,
                    () -> dynamo.query(b -> {
                        b.tableName(table)
                                .indexName(ReleaseCommands.PENDING_DELIVERY)
                                .keyConditionExpression(PENDING_IN_SHARD)
                                .expressionAttributeValues(Map.of(":shard", s(Shards.key(shard))))
                                .select(Select.COUNT);
                        if (!from.isEmpty()) {
                            b.exclusiveStartKey(from);
                        }
                    }));
            count += response.count();
            startKey = response.hasLastEvaluatedKey() ? response.lastEvaluatedKey() : Map.of();
        } while (!startKey.isEmpty());
        return count;
    }

    /** A page: well-formed commands, malformed items (skipped, never sent), and where to resume. */
    /**
     * Up to {@code limit} operation ids of the shard's commands ACKNOWLEDGED before {@code cutoff}, oldest first. The
     * index is eventually consistent: the escalation's {@code #status = ACKNOWLEDGED} condition is the truth.
     */
    public List<String> overdue(int shard, java.time.Instant cutoff, int limit) {
        QueryResponse response = StoreErrors.call("query " + ReleaseCommands.AWAITING_OUTCOME_INDEX + " shard " + shard,
                () -> dynamo.query(b -> b.tableName(table)
                        .indexName(ReleaseCommands.AWAITING_OUTCOME_INDEX)
                        .keyConditionExpression(OVERDUE_IN_SHARD)
                        .expressionAttributeValues(Map.of(":shard", s(Shards.key(shard)),
                                ":cutoff", com.payments.reconciler.store.Attr.n(cutoff.toEpochMilli())))
                        .limit(limit)));
        return response.items().stream()
                .map(item -> item.get(ReleaseCommands.OPERATION_ID))
                .filter(id -> id != null && id.s() != null)
                .map(AttributeValue::s).toList();
    }

    public record Page(List<PendingCommand> commands, List<Malformed> malformed, Map<String, AttributeValue> nextKey) {
        public boolean hasMore() {
            return !nextKey.isEmpty();
        }
    }

    public record Malformed(String operationId, String problem) {
    }
}
