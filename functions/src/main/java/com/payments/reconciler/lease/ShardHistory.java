package com.payments.reconciler.lease;

import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.StoreErrors;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;

/**
 * Every {@code shards} value a night has run with, kept on one item of the Leases table beside the lease
 * ({@code {leaseName}#shards}), so a night reads max(every value ever run) shards (docs/decisions.md, "Shard changes").
 *
 * <p>Why: the shard is data, not schema. A pending authorisation carries {@code pendingShard = shard#N} and its command
 * {@code deliveryShard = shard#N}; the sparse indexes' key schema is the same for any number of shards (and a GSI's key
 * schema could not change in place anyway). Lowering {@code shards} therefore changes only where ingestion files new
 * authorisations: the items already in the higher shards stay there, and a night that read only the new count would never
 * read, release, escalate or count them. Reading a drained shard costs one empty Query per night.
 */
public final class ShardHistory {

    /** The item's key: the lease's name with this suffix (not a lease: it has no owner or epoch). */
    public static final String ITEM_SUFFIX = "#shards";

    // Completeness (I4: an unsettled authorisation past the cutoff is released, never stranded): ADD to a number set only
    // ever adds, so the recorded values never lose one a night ran with, and concurrent nights cannot lose each other's.
    static final String RECORD = "ADD " + Leases.SHARDS_EVER + " :shards";

    private final DynamoDbClient dynamo;
    private final String table;
    private final Backoff conflicts;

    public ShardHistory(DynamoDbClient dynamo, String table, Backoff conflicts) {
        this.dynamo = dynamo;
        this.table = table;
        this.conflicts = conflicts;
    }

    /** Records {@code shards} as run with and returns the highest value ever recorded (this one included). */
    public int record(String leaseName, int shards) {
        Map<String, AttributeValue> after = StoreErrors.call("record shards " + shards, conflicts, () -> dynamo.updateItem(b -> b
                .tableName(table)
                .key(Map.of(Leases.LEASE_NAME, AttributeValue.fromS(leaseName + ITEM_SUFFIX)))
                .updateExpression(RECORD)
                .expressionAttributeValues(Map.of(":shards", AttributeValue.fromNs(List.of(Integer.toString(shards)))))
                .returnValues(ReturnValue.ALL_NEW))).attributes();
        return highest(after, shards);
    }

    static int highest(Map<String, AttributeValue> item, int atLeast) {
        AttributeValue values = item == null ? null : item.get(Leases.SHARDS_EVER);
        int max = atLeast;
        if (values != null && values.hasNs()) {
            for (String n : values.ns()) {
                max = Math.max(max, Integer.parseInt(n));
            }
        }
        return max;
    }
}
