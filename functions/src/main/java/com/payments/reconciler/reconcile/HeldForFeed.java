package com.payments.reconciler.reconcile;

import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.StoreErrors;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.workflow.StoreContention;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;

/**
 * Held for feed (docs/design.md, "Held for feed"): a settlement IngestEvents refused never reached Settlements, and a
 * missing settlement looks exactly like none. So when it refuses a settlement-bearing event IngestEvents records a hold
 * in Settlements — {@code held#<authorisationId>} when the id is readable, {@code held#*} (night-wide) when it is not —
 * and ReconcilePage asks here, beside {@link SettlementCheck}, before deciding a batch: a held candidate is not released
 * (nor counted as a dry run's {@code wouldRelease}), it is counted as {@code heldForFeed} and stays in the index for a
 * later night. A stored settlement still wins (settled, never released); the hold goes away when an operator deletes it
 * after the event was corrected and ingested (docs/operating.md).
 */
public final class HeldForFeed {

    /** Where the holds come from: the Settlements table in the functions, a value in a test. */
    @FunctionalInterface
    public interface HoldSource {
        /** Of {@code keys} (hold keys, at most {@link SettlementCheck#KEYS_PER_READ}), those with a hold item. */
        Set<String> present(List<String> keys);
    }

    private final HoldSource source;
    private final DeadLetterDepth deadLetters;

    /** The hold items only, with a dead-letter queue known empty: tests of the items' rule. */
    public HeldForFeed(HoldSource source) {
        this(source, DeadLetterDepth.empty());
    }

    /** {@code deadLetters}: read once per {@link #forCall()}; while it holds anything, every candidate is held. */
    public HeldForFeed(HoldSource source, DeadLetterDepth deadLetters) {
        this.source = Objects.requireNonNull(source, "source");
        this.deadLetters = Objects.requireNonNull(deadLetters, "deadLetters");
    }

    /** The stored hold items (BatchGetItem on Settlements), with a dead-letter queue known empty: tests of the items' rule. */
    public static HeldForFeed stored(DynamoDbClient dynamo, String settlementsTable, Backoff backoff) {
        return stored(dynamo, settlementsTable, backoff, DeadLetterDepth.empty());
    }

    /** The deployed holds: BatchGetItem on Settlements (the read ReconcilePage's role already holds there) and the dead-letter queue. */
    public static HeldForFeed stored(DynamoDbClient dynamo, String settlementsTable, Backoff backoff, DeadLetterDepth deadLetters) {
        return new HeldForFeed(keys -> read(dynamo, settlementsTable, backoff, keys), deadLetters);
    }

    /**
     * One ReconcilePage call's holds: the dead-letter queue read once, now (before the call's first decision); while it
     * holds anything, every candidate of the call is held, else the hold items decide per batch.
     */
    public ForCall forCall() {
        return new ForCall(deadLetters.read());
    }

    /** The holds of one call; {@link #deadLetters()} is what the queue said at its start. */
    public final class ForCall {
        private final DeadLetterDepth.Reading deadLetters;

        private ForCall(DeadLetterDepth.Reading deadLetters) {
            this.deadLetters = deadLetters;
        }

        public DeadLetterDepth.Reading deadLetters() {
            return deadLetters;
        }

        /** Of {@code authorisationIds}, those held: all of them while the dead-letter queue holds anything. */
        public Set<String> heldAmong(List<String> authorisationIds) {
            if (deadLetters.holds()) {
                return new HashSet<>(authorisationIds);
            }
            return HeldForFeed.this.heldAmong(authorisationIds);
        }
    }

    /**
     * The rule, pure: every candidate when the night-wide hold is present, else the candidates with their own hold.
     * {@code holds} are the hold keys found.
     */
    public static Set<String> heldAmong(List<String> authorisationIds, Set<String> holds) {
        if (holds.contains(Settlements.NIGHT_WIDE_HOLD_KEY)) {
            return new HashSet<>(authorisationIds);
        }
        Set<String> held = new HashSet<>();
        for (String id : authorisationIds) {
            if (holds.contains(Settlements.heldKey(id))) {
                held.add(id);
            }
        }
        return held;
    }

    /** The ids among {@code authorisationIds} (fewer than {@link SettlementCheck#KEYS_PER_READ}) that are held for feed. */
    public Set<String> heldAmong(List<String> authorisationIds) {
        if (authorisationIds.isEmpty()) {
            return Set.of();
        }
        if (authorisationIds.size() >= SettlementCheck.KEYS_PER_READ) {
            throw new IllegalArgumentException("one hold read takes fewer than " + SettlementCheck.KEYS_PER_READ + " ids, was " + authorisationIds.size());
        }
        List<String> keys = new ArrayList<>(authorisationIds.size() + 1);
        keys.add(Settlements.NIGHT_WIDE_HOLD_KEY);
        authorisationIds.forEach(id -> keys.add(Settlements.heldKey(id)));
        return heldAmong(authorisationIds, source.present(keys));
    }

    private static Set<String> read(DynamoDbClient dynamo, String table, Backoff backoff, List<String> keys) {
        Set<String> present = new HashSet<>();
        KeysAndAttributes unread = KeysAndAttributes.builder()
                .keys(keys.stream().distinct().map(k -> Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS(k))).toList())
                .projectionExpression(Settlements.AUTHORISATION_ID)
                // Strongly consistent: a hold written just before this night's decision must be seen by it.
                .consistentRead(true)
                .build();
        for (int attempt = 1; ; attempt++) {
            KeysAndAttributes request = unread;
            BatchGetItemResponse response = StoreErrors.call("read holds for feed of " + (keys.size() - 1) + " authorisations",
                    () -> dynamo.batchGetItem(b -> b.requestItems(Map.of(table, request))));
            response.responses().getOrDefault(table, List.of()).forEach(item -> present.add(item.get(Settlements.AUTHORISATION_ID).s()));
            KeysAndAttributes left = response.unprocessedKeys().get(table);
            if (left == null || !left.hasKeys() || left.keys().isEmpty()) {
                return present;
            }
            if (attempt >= backoff.maxAttempts()) {
                throw new StoreContention("read holds for feed: " + left.keys().size() + " keys still unprocessed after " + attempt + " attempts");
            }
            backoff.beforeRetry(attempt);
            unread = left;
        }
    }
}
