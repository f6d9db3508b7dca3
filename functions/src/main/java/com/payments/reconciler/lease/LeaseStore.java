package com.payments.reconciler.lease;

import com.payments.reconciler.store.Attr;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.StoreErrors;
import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.workflow.LeaseLost;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static com.payments.reconciler.store.Attr.n;
import static com.payments.reconciler.store.Attr.s;

/**
 * A DynamoDB lease with a fencing token (docs/design.md §3).
 *
 * <p>The algorithm, in the manner of ShedLock's DynamoDB provider but fenced:
 * <ol>
 *   <li><b>Acquire</b> is one conditional {@code UpdateItem}: it succeeds only if nobody owns the lease,
 *   or the owner's lease has expired at the caller's {@code now}. It sets us as owner and advances
 *   {@code epoch} by one; the new epoch is the fencing token. If the condition fails and the old item
 *   shows <em>us</em> as owner, this is a retry of an attempt whose response was lost: we return the
 *   epoch we already hold instead of bumping it again.</li>
 *   <li><b>Renew</b> extends {@code expiresAt} only if owner <em>and</em> epoch are still ours. It does
 *   not check expiry: an expired lease that nobody took over is still ours, and the epoch check is what
 *   keeps a stale worker out.</li>
 *   <li><b>Release</b> removes the owner and expires the lease, keeping the item and its epoch; deleting
 *   the item would restart the counter at 1 and revive old tokens (invariant I5).</li>
 * </ol>
 * The lease alone does not protect business data (a paused worker cannot know it lost the lease);
 * the epoch, checked inside every business transaction by {@code FencedWriter}, does.
 * DynamoDB has no server clock in conditions, so {@code now} is always supplied by the caller.
 *
 * <p>Every fenced transaction checks the lease item, so a write here can meet one in flight and be refused
 * with {@code TransactionConflict}, which the SDK does not retry: it is tried again with backoff, and only
 * a conflict that outlives the attempts is {@code StoreContention} for the workflow to retry.
 */
public final class LeaseStore {

    // Takeover only when the lease is free, or expired and held by someone else (our own expired lease is
    // a lost-response retry: returning it avoids a second bump). I5: epoch only ever grows.
    static final String ACQUIRE_CONDITION = "attribute_not_exists(#owner) OR (expiresAt <= :now AND #owner <> :me)";
    static final String ACQUIRE_UPDATE =
            "SET #owner = :me, epoch = if_not_exists(epoch, :zero) + :one, expiresAt = :expires, acquiredAt = :now, renewedAt = :now";
    // Only the holder of this exact epoch may renew or release: a lost lease cannot be revived (I1).
    static final String HELD_BY_US = "#owner = :me AND epoch = :epoch";
    static final String RENEW_UPDATE = "SET expiresAt = :expires, renewedAt = :now";
    // The record and its epoch stay; only ownership ends (I5).
    static final String RELEASE_UPDATE = "REMOVE #owner SET expiresAt = :now";
    // Completeness (I4: an unsettled authorisation past the cutoff is released, never stranded in a shard nobody reads):
    // ADD to a number set only ever adds, so the recorded values never lose one a night ran with, and two nights cannot
    // lose each other's. On the {leaseName}#shards item, never on the lease item: no owner, no epoch.
    static final String RECORD_SHARDS = "ADD " + Leases.SHARDS_EVER + " :shards";
    /** The suffix of the item that records the shards values nights ran with ({@link #recordShards}). */
    public static final String SHARDS_ITEM_SUFFIX = "#shards";

    static final Map<String, String> NAMES = Map.of("#owner", Leases.OWNER);

    private final DynamoDbClient dynamo;
    private final String table;
    private final Duration duration;
    /** Pauses between tries of a write that met an in-flight transaction on the lease item. */
    private final Backoff conflicts;

    public LeaseStore(DynamoDbClient dynamo, String table, Duration duration) {
        this(dynamo, table, duration, Backoff.standard());
    }

    public LeaseStore(DynamoDbClient dynamo, String table, Duration duration, Backoff conflicts) {
        this.dynamo = dynamo;
        this.table = table;
        this.duration = duration;
        this.conflicts = conflicts;
    }

    public AcquireResult acquire(String leaseName, String ownerId, Instant now) {
        Instant expires = now.plus(duration);
        try {
            UpdateItemResponse response = StoreErrors.call("acquire lease " + leaseName, conflicts, () -> dynamo.updateItem(b -> b
                    .tableName(table)
                    .key(key(leaseName))
                    .conditionExpression(ACQUIRE_CONDITION)
                    .updateExpression(ACQUIRE_UPDATE)
                    .expressionAttributeNames(NAMES)
                    .expressionAttributeValues(Map.of(
                            ":me", s(ownerId), ":now", n(now.toEpochMilli()), ":expires", n(expires.toEpochMilli()),
                            ":zero", n(0), ":one", n(1)))
                    .returnValues(ReturnValue.ALL_NEW)
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)));
            return new AcquireResult.Acquired(toLease(leaseName, response.attributes()), false);
        } catch (ConditionalCheckFailedException refused) {
            Map<String, AttributeValue> old = refused.item();
            String holder = old.containsKey(Leases.OWNER) ? old.get(Leases.OWNER).s() : null;
            if (ownerId.equals(holder)) {
                return new AcquireResult.Acquired(toLease(leaseName, old), true);
            }
            return new AcquireResult.Held(holder, epochOf(old), Instant.ofEpochMilli(Long.parseLong(old.get(Leases.EXPIRES_AT).n())));
        }
    }

    /** Extends the lease; throws {@link LeaseLost} naming the newer holder if it is no longer ours. */
    public Lease renew(LeaseToken token, Instant now) {
        Instant expires = now.plus(duration);
        try {
            StoreErrors.call("renew lease " + token.leaseName(), conflicts, () -> dynamo.updateItem(b -> b
                    .tableName(table)
                    .key(key(token.leaseName()))
                    .conditionExpression(HELD_BY_US)
                    .updateExpression(RENEW_UPDATE)
                    .expressionAttributeNames(NAMES)
                    .expressionAttributeValues(Map.of(":me", s(token.ownerId()), ":epoch", n(token.epoch()),
                            ":now", n(now.toEpochMilli()), ":expires", n(expires.toEpochMilli())))
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)));
            return new Lease(token.leaseName(), token.ownerId(), token.epoch(), expires);
        } catch (ConditionalCheckFailedException refused) {
            throw lost(token, refused.item());
        }
    }

    /**
     * Ends our ownership. A retry after a lost response (owner already removed, epoch unchanged) is a
     * success; anyone else holding it, or a newer epoch, is {@link LeaseLost}.
     */
    public void release(LeaseToken token, Instant now) {
        try {
            StoreErrors.call("release lease " + token.leaseName(), conflicts, () -> dynamo.updateItem(b -> b
                    .tableName(table)
                    .key(key(token.leaseName()))
                    .conditionExpression(HELD_BY_US)
                    .updateExpression(RELEASE_UPDATE)
                    .expressionAttributeNames(NAMES)
                    .expressionAttributeValues(Map.of(":me", s(token.ownerId()), ":epoch", n(token.epoch()),
                            ":now", n(now.toEpochMilli())))
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)));
        } catch (ConditionalCheckFailedException refused) {
            Map<String, AttributeValue> old = refused.item();
            boolean alreadyReleasedByUs = old != null && !old.containsKey(Leases.OWNER) && epochOf(old) == token.epoch();
            if (!alreadyReleasedByUs) {
                throw lost(token, old);
            }
        }
    }

    private static LeaseLost lost(LeaseToken token, Map<String, AttributeValue> current) {
        if (current == null || current.isEmpty()) {
            return new LeaseLost("lease " + token.leaseName() + " does not exist; epoch " + token.epoch() + " is not current");
        }
        String holder = current.containsKey(Leases.OWNER) ? current.get(Leases.OWNER).s() : "nobody";
        return new LeaseLost("lease " + token.leaseName() + " is no longer ours at epoch " + token.epoch()
                + ": newer epoch " + epochOf(current) + " held by " + holder);
    }

    private static Lease toLease(String leaseName, Map<String, AttributeValue> item) {
        return new Lease(leaseName, item.get(Leases.OWNER).s(), epochOf(item),
                Instant.ofEpochMilli(Long.parseLong(item.get(Leases.EXPIRES_AT).n())));
    }

    static long epochOf(Map<String, AttributeValue> item) {
        return Attr.numberOr(item, Leases.EPOCH, 0);
    }

    /**
     * Records {@code shards} as a value a night ran with and returns the highest value ever recorded (this one included):
     * the shards a night reads (docs/decisions.md, "Shard changes"). The shard is data, not schema: lowering {@code shards}
     * leaves the items already filed in the higher shards there, so a night reads every shard a night ever ran with.
     */
    public int recordShards(String leaseName, int shards) {
        Map<String, AttributeValue> after = StoreErrors.call("record shards " + shards, conflicts, () -> dynamo.updateItem(b -> b
                .tableName(table)
                .key(key(leaseName + SHARDS_ITEM_SUFFIX))
                .updateExpression(RECORD_SHARDS)
                .expressionAttributeValues(Map.of(":shards", AttributeValue.fromNs(java.util.List.of(Integer.toString(shards)))))
                .returnValues(ReturnValue.ALL_NEW))).attributes();
        return highestShards(after, shards);
    }

    static int highestShards(Map<String, AttributeValue> item, int atLeast) {
        AttributeValue values = item == null ? null : item.get(Leases.SHARDS_EVER);
        int max = atLeast;
        if (values != null && values.hasNs()) {
            for (String n : values.ns()) {
                max = Math.max(max, Integer.parseInt(n));
            }
        }
        return max;
    }

    private static Map<String, AttributeValue> key(String leaseName) {
        return Map.of(Leases.LEASE_NAME, s(leaseName));
    }
}
