package com.payments.reconciler.cli.operator;

import com.payments.reconciler.reconcile.Shards;
import com.payments.reconciler.store.Attr;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

import static com.payments.reconciler.store.Attr.n;
import static com.payments.reconciler.store.Attr.s;

/**
 * The commands waiting for a person (QUARANTINED, ESCALATED), read from the sparse {@code parked} index, and
 * the operator's one change to them: back to PENDING in its shard, so the next delivery sends it again under
 * the same {@code Idempotency-Key} (the provider answers a release it already performed with its original
 * result, so a requeued command the provider did release ends DELIVERED, not released twice).
 *
 * <p>The requeue is not a worker's write and carries no lease: it changes only a parked command, which no
 * worker reads or writes (it is in no pending index and every mark requires PENDING), and only the parked
 * state it was read in.
 */
public final class ParkedCommands {

    // Only commands waiting for a person: parkedStatus exists only while QUARANTINED or ESCALATED.
    static final String PARKED_WITH_STATUS = "parkedStatus = :status";
    // The command is still parked exactly as the operator saw it (not requeued and parked again meanwhile).
    static final String STILL_PARKED_AS_READ = "#status = :parked AND attribute_exists(parkedStatus) AND endedAt = :endedAt AND endedEpoch = :endedEpoch";
    // Back into its shard's pending index; its delivery age restarts, so it is not escalated again at once. The parked
    // ending goes (the requeue note says why it was put back), so a later ending is read on its own. firstAttemptAt stays:
    // the provider's memory of the key counts from the first request, so a command attempted long ago is looked up first.
    static final String REQUEUE = "SET #status = :pending, deliveryShard = :shard, requeuedAt = :now, requeueNote = :note "
            + "REMOVE parkedStatus, parkedShard, endedAt, endedEpoch, endReason";

    // Closed by a person who asked the provider: out of the parked index, into the end state the provider's answer means,
    // with who, when and why. Its parked ending (endedAt, endReason) stays as the history of why it was parked.
    static final String RESOLVED_BY = ReleaseCommands.RESOLVED_BY;
    static final String RESOLUTION_NOTE = ReleaseCommands.RESOLUTION_NOTE;
    static final String RESOLVE = "SET #status = :final, resolvedBy = :who, resolvedAt = :now, resolutionNote = :note, #detail = :detail "
            + "REMOVE parkedStatus, parkedShard";

    /** What a person found at the provider for a parked command ({@code commands resolve --as}). */
    public enum Resolution {
        /** The provider released the hold: the command ends DELIVERED. */
        RELEASED("released", ReleaseCommands.STATUS_DELIVERED, ReleaseCommands.PROVIDER_REFERENCE),
        /** The provider did not release it and will not be asked again by this job: the command ends REJECTED. */
        NOT_RELEASED("not-released", ReleaseCommands.STATUS_REJECTED, ReleaseCommands.REJECTION_REASON);

        private final String flag;
        private final String status;
        private final String detailAttribute;

        Resolution(String flag, String status, String detailAttribute) {
            this.flag = flag;
            this.status = status;
            this.detailAttribute = detailAttribute;
        }

        public String flag() {
            return flag;
        }

        public String status() {
            return status;
        }

        /** {@code --as}'s value; anything else is refused naming the flag and the accepted values. */
        public static Resolution of(String value) {
            for (Resolution r : values()) {
                if (r.flag.equals(value)) {
                    return r;
                }
            }
            throw new IllegalArgumentException("--as must be released or not-released (what the provider said about the hold), was " + value);
        }
    }

    /** What a resolve found. */
    public sealed interface Resolve {
        record Resolved(String operationId, String status) implements Resolve {
        }

        record NotParked(String operationId, String status) implements Resolve {
        }

        /** Resolved before, the same way and with the same note: the first resolution stands, nothing is written. */
        record AlreadyResolved(String operationId, String status) implements Resolve {
        }
    }

    /** A parked command as a person needs to see it. Never amounts or card data: ids, times, the reason. */
    public record Parked(String operationId, String authorisationId, String windowId, String status, Instant endedAt,
                         long endedEpoch, long attempts, String reason) {
    }

    /** A command ACKNOWLEDGED by the provider, its outcome awaited: since when, and the provider's id for the request. */
    public record Awaiting(String operationId, String authorisationId, String windowId, Instant acknowledgedAt,
                           long acknowledgedEpoch, long attempts, String requestReference) {
    }

    /**
     * Every ACKNOWLEDGED command, oldest acknowledgement first: a Scan of the sparse awaiting-outcome index, which holds
     * only those (its partitions are the delivery shards, which this command does not know).
     */
    public List<Awaiting> awaiting() {
        List<Awaiting> found = new ArrayList<>();
        Map<String, AttributeValue> start = Map.of();
        do {
            Map<String, AttributeValue> from = start;
            var page = dynamo.scan(b -> {
                b.tableName(table).indexName(ReleaseCommands.AWAITING_OUTCOME_INDEX);
                if (!from.isEmpty()) {
                    b.exclusiveStartKey(from);
                }
            });
            page.items().forEach(item -> found.add(new Awaiting(Attr.stringOr(item, ReleaseCommands.OPERATION_ID, "?"),
                    Attr.stringOr(item, ReleaseCommands.AUTHORISATION_ID, "?"), Attr.stringOr(item, ReleaseCommands.WINDOW_ID, "?"),
                    Instant.ofEpochMilli(Attr.numberOr(item, ReleaseCommands.ACKNOWLEDGED_AT, 0)),
                    Attr.numberOr(item, ReleaseCommands.ACKNOWLEDGED_EPOCH, 0), Attr.numberOr(item, ReleaseCommands.ATTEMPTS, 0),
                    awaitedRequest(item))));
            start = page.hasLastEvaluatedKey() ? page.lastEvaluatedKey() : Map.of();
        } while (!start.isEmpty());
        found.sort(java.util.Comparator.comparing(Awaiting::acknowledgedAt).thenComparing(Awaiting::operationId));
        return found;
    }

    /** The request whose outcome is awaited: the provider's reference, or the stored error that named none. */
    private static String awaitedRequest(Map<String, AttributeValue> item) {
        if (item.containsKey(ReleaseCommands.REQUEST_REFERENCE)) {
            return Attr.stringOr(item, ReleaseCommands.REQUEST_REFERENCE, "?");
        }
        return item.containsKey(ReleaseCommands.STORED_ERROR)
                ? "(none named: its error " + Attr.stringOr(item, ReleaseCommands.STORED_ERROR, "?") + " is stored under the key)" : "?";
    }

    /** What a requeue found. */
    public sealed interface Requeue {
        record Requeued(String operationId, int shard) implements Requeue {
        }

        record NotParked(String operationId, String status) implements Requeue {
        }
    }

    private final DynamoDbClient dynamo;
    private final String table;

    public ParkedCommands(DynamoDbClient dynamo, String table) {
        this.dynamo = dynamo;
        this.table = table;
    }

    /** Every command parked with {@code status}, oldest first. */
    public List<Parked> list(String status) {
        requireParkedStatus(status);
        List<Parked> parked = new ArrayList<>();
        Map<String, AttributeValue> start = Map.of();
        do {
            Map<String, AttributeValue> from = start;
            QueryResponse page = dynamo.query(b -> {
                b.tableName(table).indexName(ReleaseCommands.PARKED_INDEX).keyConditionExpression(PARKED_WITH_STATUS)
                        .expressionAttributeValues(Map.of(":status", s(status)));
                if (!from.isEmpty()) {
                    b.exclusiveStartKey(from);
                }
            });
            page.items().forEach(item -> parked.add(parked(item)));
            start = page.hasLastEvaluatedKey() ? page.lastEvaluatedKey() : Map.of();
        } while (!start.isEmpty());
        return parked;
    }

    /** Puts one parked command back to PENDING in the shard it was parked from. */
    public Requeue requeue(String operationId, String note, Instant now) {
        Map<String, AttributeValue> item = existing(operationId);
        String status = Attr.stringOr(item, ReleaseCommands.STATUS, "MISSING");
        if (!ReleaseCommands.PARKED.contains(status) || !item.containsKey(ReleaseCommands.PARKED_SHARD)
                || !item.containsKey(ReleaseCommands.ENDED_AT) || !item.containsKey(ReleaseCommands.ENDED_EPOCH)) {
            return new Requeue.NotParked(operationId, status);
        }
        int shard = (int) Attr.numberOr(item, ReleaseCommands.PARKED_SHARD, 0);
        try {
            dynamo.updateItem(b -> b.tableName(table)
                    .key(Map.of(ReleaseCommands.OPERATION_ID, s(operationId)))
                    .conditionExpression(STILL_PARKED_AS_READ)
                    .updateExpression(REQUEUE)
                    .expressionAttributeNames(Map.of("#status", ReleaseCommands.STATUS))
                    .expressionAttributeValues(Map.of(":parked", s(status), ":endedAt", item.get(ReleaseCommands.ENDED_AT),
                            ":endedEpoch", item.get(ReleaseCommands.ENDED_EPOCH),
                            ":pending", s(ReleaseCommands.STATUS_PENDING), ":shard", s(Shards.key(shard)),
                            ":now", n(now.toEpochMilli()), ":note", s(note))));
        } catch (ConditionalCheckFailedException e) {
            return new Requeue.NotParked(operationId, "changed while being requeued");
        }
        return new Requeue.Requeued(operationId, shard);
    }

    /**
     * Closes one parked command as a person found it at the provider: {@link Resolution#RELEASED} ends it DELIVERED,
     * {@link Resolution#NOT_RELEASED} REJECTED, recording who ({@code caller}), when and the note. Like a requeue it
     * carries no lease: no worker reads or writes a parked command, and the condition is the parked state as read.
     */
    public Resolve resolve(String operationId, Resolution as, String note, String caller, Instant now) {
        return resolve(operationId, as, note, Optional.empty(), caller, now);
    }

    /**
     * As {@link #resolve(String, Resolution, String, String, Instant)}; a released hold's {@code providerReference} (the
     * provider's id for the release, as its dashboard shows it) is stored as the command's provider reference, where a
     * delivered command keeps the provider's answer, instead of the resolution's summary.
     */
    public Resolve resolve(String operationId, Resolution as, String note, Optional<String> providerReference, String caller, Instant now) {
        if (providerReference.isPresent() && as != Resolution.RELEASED) {
            throw new IllegalArgumentException("--provider-reference goes with --as released only (a hold not released has no release reference)");
        }
        Map<String, AttributeValue> item = existing(operationId);
        String status = Attr.stringOr(item, ReleaseCommands.STATUS, "MISSING");
        if (alreadyResolvedSo(item, as, note)) {
            // The same command run twice (or the SDK's retry of an update that was applied): the first one stands.
            return new Resolve.AlreadyResolved(operationId, status);
        }
        if (!ReleaseCommands.PARKED.contains(status) || !item.containsKey(ReleaseCommands.ENDED_AT) || !item.containsKey(ReleaseCommands.ENDED_EPOCH)) {
            return new Resolve.NotParked(operationId, status);
        }
        String detail = providerReference.orElse("resolved by " + caller + " as " + as.flag() + " (was " + status + "): " + note);
        try {
            dynamo.updateItem(b -> b.tableName(table)
                    .key(Map.of(ReleaseCommands.OPERATION_ID, s(operationId)))
                    .conditionExpression(STILL_PARKED_AS_READ)
                    .updateExpression(RESOLVE)
                    .expressionAttributeNames(Map.of("#status", ReleaseCommands.STATUS, "#detail", as.detailAttribute))
                    .expressionAttributeValues(Map.of(":parked", s(status), ":endedAt", item.get(ReleaseCommands.ENDED_AT),
                            ":endedEpoch", item.get(ReleaseCommands.ENDED_EPOCH), ":final", s(as.status()),
                            ":who", s(caller), ":now", n(now.toEpochMilli()), ":note", s(note), ":detail", s(detail))));
        } catch (ConditionalCheckFailedException e) {
            Map<String, AttributeValue> current = read(operationId);
            if (current != null && alreadyResolvedSo(current, as, note)) {
                return new Resolve.AlreadyResolved(operationId, as.status());
            }
            return new Resolve.NotParked(operationId, "changed while being resolved");
        }
        return new Resolve.Resolved(operationId, as.status());
    }

    /** The command as stored now (strongly consistent), or null. */
    private Map<String, AttributeValue> read(String operationId) {
        return dynamo.getItem(b -> b.tableName(table).consistentRead(true)
                .key(Map.of(ReleaseCommands.OPERATION_ID, s(operationId)))).item();
    }

    /** The command an operator named; an id with no command is bad input (exit 2). */
    private Map<String, AttributeValue> existing(String operationId) {
        Map<String, AttributeValue> item = read(operationId);
        if (item == null || item.isEmpty()) {
            throw new IllegalArgumentException("--operation-id: no command " + operationId + " in " + table
                    + "; accepted: an operation id listed by `commands list` (release-hold:{authorisationId})");
        }
        return item;
    }

    private static boolean alreadyResolvedSo(Map<String, AttributeValue> item, Resolution as, String note) {
        return as.status().equals(Attr.stringOr(item, ReleaseCommands.STATUS, "")) && item.containsKey(RESOLVED_BY)
                && note.equals(Attr.stringOr(item, RESOLUTION_NOTE, null));
    }

    public static void requireParkedStatus(String status) {
        if (!ReleaseCommands.PARKED.contains(status)) {
            throw new IllegalArgumentException("--status must be one of " + ReleaseCommands.PARKED + ", was " + status);
        }
    }

    private static Parked parked(Map<String, AttributeValue> item) {
        return new Parked(Attr.stringOr(item, ReleaseCommands.OPERATION_ID, "?"), Attr.stringOr(item, ReleaseCommands.AUTHORISATION_ID, "?"),
                Attr.stringOr(item, ReleaseCommands.WINDOW_ID, "?"), Attr.stringOr(item, ReleaseCommands.STATUS, "?"),
                Instant.ofEpochMilli(Attr.numberOr(item, ReleaseCommands.ENDED_AT, 0)), Attr.numberOr(item, ReleaseCommands.ENDED_EPOCH, 0),
                Attr.numberOr(item, ReleaseCommands.ATTEMPTS, 0), Attr.stringOr(item, ReleaseCommands.END_REASON, ""));
    }
}
