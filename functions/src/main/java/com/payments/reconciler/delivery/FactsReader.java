package com.payments.reconciler.delivery;

import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.StoreErrors;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.workflow.StoreContention;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;

import com.payments.reconciler.reconcile.HeldForFeed;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the facts of many authorisations at once — each one's settlement, its hold for feed and its end — in one
 * strongly consistent {@code BatchGetItem} over both tables (docs/design.md §6). Strongly consistent because this read
 * is what enforces I3 (and "no release of an ended authorisation", and no release of a held one) at the provider call,
 * not a hint. The holds are the items ReconcilePage reads ({@code held#<authorisationId>}, the night-wide
 * {@code held#*}): a command decided before IngestEvents refused its settlement is not sent while the hold stands.
 */
public final class FactsReader implements FreshFacts.Source {

    /** BatchGetItem's limit: 100 keys per request, counted across all the tables it reads. */
    public static final int KEYS_PER_REQUEST = 100;
    /**
     * Each authorisation takes three keys (its settlement, its hold for feed, its authorisation item), and the read one
     * more (the night-wide hold).
     */
    public static final int AUTHORISATIONS_PER_READ = (KEYS_PER_REQUEST - 1) / 3;

    private final DynamoDbClient dynamo;
    private final TableNames tables;
    private final Backoff backoff;
    private final Clock clock;

    public FactsReader(DynamoDbClient dynamo, TableNames tables, Backoff backoff, Clock clock) {
        this.dynamo = dynamo;
        this.tables = tables;
        this.backoff = backoff;
        this.clock = clock;
    }

    /**
     * The facts of {@code authorisationIds} (at most {@value #AUTHORISATIONS_PER_READ}, distinct), each stamped with
     * the instant before the first request was sent, so its age is never under-counted.
     */
    @Override
    public Map<String, AuthorisationFacts> read(List<String> authorisationIds) {
        if (authorisationIds.size() > AUTHORISATIONS_PER_READ) {
            throw new IllegalArgumentException("one facts read takes at most " + AUTHORISATIONS_PER_READ + " authorisations ("
                    + KEYS_PER_REQUEST + " keys), was " + authorisationIds.size());
        }
        Instant readAt = clock.instant();
        Map<String, AuthorisationFacts> facts = new LinkedHashMap<>();
        authorisationIds.forEach(id -> facts.put(id, AuthorisationFacts.open(readAt)));
        if (authorisationIds.isEmpty()) {
            return facts;
        }
        List<Map<String, AttributeValue>> keys = authorisationIds.stream()
                .map(id -> Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS(id))).toList();
        List<Map<String, AttributeValue>> settlementKeys = new ArrayList<>(keys);
        settlementKeys.add(Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS(Settlements.NIGHT_WIDE_HOLD_KEY)));
        authorisationIds.forEach(id -> settlementKeys.add(Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS(Settlements.heldKey(id)))));
        Set<String> holds = new HashSet<>();
        Map<String, KeysAndAttributes> unread = new HashMap<>();
        unread.put(tables.settlements(), KeysAndAttributes.builder().keys(settlementKeys)
                .projectionExpression(Settlements.AUTHORISATION_ID + ", " + Settlements.SETTLED_AT).consistentRead(true).build());
        unread.put(tables.authorisations(), KeysAndAttributes.builder().keys(keys)
                .projectionExpression(Authorisations.AUTHORISATION_ID + ", " + Authorisations.END_KIND + ", " + Authorisations.ENDED_AT)
                .consistentRead(true).build());
        for (int attempt = 1; ; attempt++) {
            Map<String, KeysAndAttributes> request = unread;
            BatchGetItemResponse response = StoreErrors.call("read the facts of " + authorisationIds.size() + " authorisations",
                    () -> dynamo.batchGetItem(b -> b.requestItems(request)));
            response.responses().getOrDefault(tables.settlements(), List.of()).forEach(item -> {
                String key = item.get(Settlements.AUTHORISATION_ID).s();
                if (key.startsWith(Settlements.HELD_KEY_PREFIX)) {
                    holds.add(key);
                } else {
                    facts.computeIfPresent(key, (id, known) -> new AuthorisationFacts(
                            Optional.of(new AuthorisationFacts.Settlement(epochMillis(item, Settlements.SETTLED_AT))), known.end(), readAt,
                            known.heldForFeed()));
                }
            });
            response.responses().getOrDefault(tables.authorisations(), List.of()).forEach(item -> {
                AttributeValue kind = item.get(Authorisations.END_KIND);
                if (kind != null && kind.s() != null) {
                    facts.computeIfPresent(item.get(Authorisations.AUTHORISATION_ID).s(), (id, known) -> new AuthorisationFacts(
                            known.settlement(), Optional.of(new AuthorisationFacts.End(kind.s(), epochMillis(item, Authorisations.ENDED_AT))), readAt,
                            known.heldForFeed()));
                }
            });
            Map<String, KeysAndAttributes> left = new HashMap<>();
            response.unprocessedKeys().forEach((table, k) -> {
                if (k.hasKeys() && !k.keys().isEmpty()) {
                    left.put(table, k);
                }
            });
            if (left.isEmpty()) {
                // The same rule as ReconcilePage's (HeldForFeed): the night-wide hold holds every one, else its own.
                Set<String> held = HeldForFeed.heldAmong(authorisationIds, holds);
                facts.replaceAll((id, known) -> held.contains(id) ? known.held() : known);
                return facts;
            }
            // DynamoDB returns unprocessed keys under throttling: read them again after a jittered pause.
            if (attempt >= backoff.maxAttempts()) {
                throw new StoreContention("read facts: " + left.values().stream().mapToInt(k -> k.keys().size()).sum()
                        + " keys still unprocessed after " + attempt + " attempts");
            }
            backoff.beforeRetry(attempt);
            unread = left;
        }
    }

    private static Optional<Instant> epochMillis(Map<String, AttributeValue> item, String attribute) {
        AttributeValue at = item.get(attribute);
        try {
            return at == null || at.n() == null ? Optional.empty() : Optional.of(Instant.ofEpochMilli(Long.parseLong(at.n())));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
