package com.payments.reconciler.cli.local;

import com.payments.reconciler.reconcile.Shards;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.Settlements;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Plays card capture and settlement ingestion for a local window: seeded authorisations, most older
 * than the cutoff (some of those settled), some younger (not yet due). Synthetic ids and amounts
 * only; no card numbers exist anywhere in this system.
 *
 * @param authorisations how many to create
 * @param settledFraction of those older than the cutoff, the fraction that has a settlement
 * @param youngFraction the fraction authorised after the cutoff (must not be released)
 */
public record SyntheticData(int authorisations, double settledFraction, double youngFraction, long seed) {

    private static final String[] CURRENCIES = {"EUR", "GBP", "USD"};
    private static final int BATCH = 25;

    public SyntheticData {
        if (authorisations < 0) {
            throw new IllegalArgumentException("--authorisations must be >= 0, was " + authorisations);
        }
        if (!(settledFraction >= 0 && settledFraction <= 1)) {
            throw new IllegalArgumentException("--settled-fraction must be a number from 0 to 1, was " + settledFraction);
        }
        if (!(youngFraction >= 0 && youngFraction <= 1)) {
            throw new IllegalArgumentException("young fraction must be a number from 0 to 1, was " + youngFraction);
        }
    }

    /** What the data implies for a complete window: the figures a run's summary must match. */
    public record Expected(int authorisations, int due, int dueAndSettled, int young) {
        public int releasable() {
            return due - dueAndSettled;
        }
    }

    public Expected load(DynamoDbClient dynamo, TableNames tables, Instant cutoff, int shards) {
        SplittableRandom random = new SplittableRandom(seed);
        List<WriteRequest> auths = new ArrayList<>();
        List<WriteRequest> settlements = new ArrayList<>();
        int due = 0;
        int settled = 0;
        int young = 0;
        for (int i = 0; i < authorisations; i++) {
            String id = authorisationId(i);
            boolean isYoung = random.nextDouble() < youngFraction;
            Instant at = isYoung
                    ? cutoff.plus(Duration.ofMinutes(1 + random.nextLong(Duration.ofDays(2).toMinutes())))
                    : cutoff.minus(Duration.ofMinutes(1 + random.nextLong(Duration.ofDays(10).toMinutes())));
            Map<String, AttributeValue> item = new HashMap<>();
            item.put(Authorisations.AUTHORISATION_ID, AttributeValue.fromS(id));
            item.put(Authorisations.STATE, AttributeValue.fromS(Authorisations.STATE_AUTHORISED));
            item.put(Authorisations.VERSION, AttributeValue.fromN("1"));
            item.put(Authorisations.AMOUNT_MINOR, AttributeValue.fromN(Long.toString(100 + random.nextLong(500_000))));
            item.put(Authorisations.CURRENCY, AttributeValue.fromS(CURRENCIES[random.nextInt(CURRENCIES.length)]));
            item.put(Authorisations.MERCHANT_ID, AttributeValue.fromS("merchant-" + random.nextInt(50)));
            item.put(Authorisations.AUTHORISED_AT, AttributeValue.fromN(Long.toString(at.toEpochMilli())));
            item.put(Authorisations.PENDING_SHARD, AttributeValue.fromS(Shards.key(Shards.of(id, shards))));
            auths.add(put(item));
            if (isYoung) {
                young++;
                continue;
            }
            due++;
            if (random.nextDouble() < settledFraction) {
                settled++;
                settlements.add(put(Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS(id),
                        Settlements.SETTLED_AT, AttributeValue.fromN(Long.toString(cutoff.toEpochMilli())))));
            }
        }
        write(dynamo, tables.authorisations(), auths);
        write(dynamo, tables.settlements(), settlements);
        return new Expected(authorisations, due, settled, young);
    }

    /** The id of the {@code index}-th synthetic authorisation. */
    public static String authorisationId(int index) {
        return String.format("auth-%08d", index);
    }

    private static WriteRequest put(Map<String, AttributeValue> item) {
        return WriteRequest.builder().putRequest(PutRequest.builder().item(item).build()).build();
    }

    private static void write(DynamoDbClient dynamo, String table, List<WriteRequest> requests) {
        for (int from = 0; from < requests.size(); from += BATCH) {
            List<WriteRequest> batch = requests.subList(from, Math.min(requests.size(), from + BATCH));
            Map<String, List<WriteRequest>> pending = Map.of(table, batch);
            while (!pending.isEmpty()) {
                Map<String, List<WriteRequest>> request = pending;
                BatchWriteItemResponse response = dynamo.batchWriteItem(b -> b.requestItems(request));
                pending = response.hasUnprocessedItems() ? response.unprocessedItems() : Map.of();
            }
        }
    }
}
