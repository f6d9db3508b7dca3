package com.payments.reconciler.reconcile;

import com.payments.reconciler.store.StoreErrors;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.workflow.InvalidInput;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static com.payments.reconciler.store.Attr.n;
import static com.payments.reconciler.store.Attr.s;

/**
 * Reads authorisations still pending and authorised before the cutoff, one shard of the sparse
 * {@code pending-by-age} index at a time, in pages (docs/design.md §5). The cutoff comes from the execution
 * input, never the wall clock, so a rerun of a window decides the same way.
 */
public final class CandidateFinder {

    // Only still-pending authorisations (sparse index) older than the window's cutoff.
    static final String DUE_BEFORE_CUTOFF = "pendingShard = :shard AND authorisedAt < :cutoff";

    private final DynamoDbClient dynamo;
    private final String table;

    public CandidateFinder(DynamoDbClient dynamo, String table) {
        this.dynamo = dynamo;
        this.table = table;
    }

    /**
     * One page of one shard.
     *
     * @param startKey where the previous page of this shard stopped, or empty for the first page
     * @param limit at most this many index items are read
     */
    public Page page(int shard, Instant cutoff, Map<String, AttributeValue> startKey, int limit) {
        QueryResponse response = StoreErrors.call("query " + Authorisations.PENDING_BY_AGE + " shard " + shard,
                () -> dynamo.query(b -> {
                    b.tableName(table)
                            .indexName(Authorisations.PENDING_BY_AGE)
                            .keyConditionExpression(DUE_BEFORE_CUTOFF)
                            .expressionAttributeValues(Map.of(":shard", s(Shards.key(shard)), ":cutoff", n(cutoff.toEpochMilli())))
                            .limit(limit);
                    if (startKey != null && !startKey.isEmpty()) {
                        b.exclusiveStartKey(startKey);
                    }
                }));
        List<Candidate> candidates = new ArrayList<>(response.count());
        List<Malformed> malformed = new ArrayList<>();
        for (Map<String, AttributeValue> item : response.items()) {
            try {
                candidates.add(Candidate.fromItem(item));
            } catch (InvalidInput bad) {
                malformed.add(new Malformed(item.containsKey(Authorisations.AUTHORISATION_ID)
                        ? item.get(Authorisations.AUTHORISATION_ID).s() : "?", bad.getMessage()));
            }
        }
        Map<String, AttributeValue> next = response.hasLastEvaluatedKey() && !response.lastEvaluatedKey().isEmpty()
                ? response.lastEvaluatedKey() : Map.of();
        return new Page(candidates, malformed, next);
    }

    /** A page: well-formed candidates, malformed items (skipped, never written), and where to resume. */
    public record Page(List<Candidate> candidates, List<Malformed> malformed, Map<String, AttributeValue> nextKey) {
        public boolean hasMore() {
            return !nextKey.isEmpty();
        }
    }

    public record Malformed(String authorisationId, String problem) {
    }
}
