package com.payments.reconciler.reconcile;

import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.StoreErrors;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.workflow.StoreContention;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;

/**
 * Which of a batch of candidates already have a settlement, read before deciding them. Dry runs decide
 * on it alone. Real runs use it to keep settled candidates out of a batch transaction, where one
 * failed settlement check would cancel the whole batch, and to choose the settled ones to take out of the pending
 * index. Neither decision rests on it alone: the release transaction's ConditionCheck on Settlements enforces I3 (a
 * missed new settlement costs one split batch, not a wrong release), and the cleanup's checks that the settlement is
 * still there (a settlement deleted since the read leaves the item in the index, I4).
 */
public final class SettlementCheck {

    /** BatchGetItem's limit on keys per request. */
    public static final int KEYS_PER_READ = 100;

    private final DynamoDbClient dynamo;
    private final String table;
    private final Backoff backoff;

    public SettlementCheck(DynamoDbClient dynamo, String table, Backoff backoff) {
        this.dynamo = dynamo;
        this.table = table;
        this.backoff = backoff;
    }

    /**
     * A batch's settlements and its other items in Settlements (the hold items), in one strongly consistent
     * BatchGetItem (at most {@value #KEYS_PER_READ} keys in all): a hold written just before the decision must be seen by
     * it, and a second request per batch would be paid by every release.
     */
    public BatchRead settledAndPresent(List<String> authorisationIds, List<String> otherKeys) {
        List<String> keys = new ArrayList<>(authorisationIds.size() + otherKeys.size());
        keys.addAll(authorisationIds);
        keys.addAll(otherKeys);
        Set<String> found = read(keys).keySet();
        Set<String> settled = new HashSet<>(authorisationIds);
        settled.retainAll(found);
        Set<String> present = new HashSet<>(otherKeys);
        present.retainAll(found);
        return new BatchRead(settled, present);
    }

    /** @param settled the batch's ids with a settlement; @param present the other keys asked for that exist */
    public record BatchRead(Set<String> settled, Set<String> present) {
    }

    /**
     * Delivery's check: a strongly consistent read, because here it is the enforcement of I3 at
     * the provider call, not a hint. Each settled id with its {@code settledAt} (empty if the settlement
     * carries none readable: it is settled all the same).
     */
    public Map<String, Optional<Instant>> settlementsOf(List<String> authorisationIds) {
        return read(authorisationIds);
    }

    private Map<String, Optional<Instant>> read(List<String> authorisationIds) {
        if (authorisationIds.isEmpty()) {
            return Map.of();
        }
        if (authorisationIds.size() > KEYS_PER_READ) {
            throw new IllegalArgumentException("one settlement read takes at most " + KEYS_PER_READ + " keys, was " + authorisationIds.size());
        }
        Map<String, Optional<Instant>> settled = new HashMap<>();
        KeysAndAttributes unread = KeysAndAttributes.builder()
                .keys(authorisationIds.stream().map(id -> Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS(id))).toList())
                .projectionExpression(Settlements.AUTHORISATION_ID + ", " + Settlements.SETTLED_AT)
                .consistentRead(true)
                .build();
        for (int attempt = 1; ; attempt++) {
            KeysAndAttributes request = unread;
            BatchGetItemResponse response = StoreErrors.call("read settlements of " + authorisationIds.size() + " authorisations",
                    () -> dynamo.batchGetItem(b -> b.requestItems(Map.of(table, request))));
            response.responses().getOrDefault(table, List.of()).forEach(item -> settled.put(
                    item.get(Settlements.AUTHORISATION_ID).s(), settledAt(item)));
            KeysAndAttributes left = response.unprocessedKeys().get(table);
            if (left == null || !left.hasKeys() || left.keys().isEmpty()) {
                return settled;
            }
            // DynamoDB returns unprocessed keys under throttling: read them again after a jittered pause.
            if (attempt >= backoff.maxAttempts()) {
                throw new StoreContention("read settlements: " + left.keys().size() + " keys still unprocessed after " + attempt + " attempts");
            }
            backoff.beforeRetry(attempt);
            unread = left;
        }
    }

    private static Optional<Instant> settledAt(Map<String, AttributeValue> item) {
        AttributeValue at = item.get(Settlements.SETTLED_AT);
        try {
            return at == null || at.n() == null ? Optional.empty() : Optional.of(Instant.ofEpochMilli(Long.parseLong(at.n())));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
