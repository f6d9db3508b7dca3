package com.payments.reconciler.harness.local;

import com.payments.reconciler.local.provider.StripeWire;
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

    /** One synthetic authorisation and whether it settled (a young one never has). */
    record Generated(String id, boolean young, Instant authorisedAt, long amountMinor, String currency, String merchantId,
                     boolean settled) {
    }

    /** The data, drawn from the seed in one fixed order: the same authorisations whichever way they are loaded. */
    List<Generated> generate(Instant cutoff) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Generated> all = new ArrayList<>(authorisations);
        for (int i = 0; i < authorisations; i++) {
            boolean isYoung = random.nextDouble() < youngFraction;
            Instant at = isYoung
                    ? cutoff.plus(Duration.ofMinutes(1 + random.nextLong(Duration.ofDays(2).toMinutes())))
                    : cutoff.minus(Duration.ofMinutes(1 + random.nextLong(Duration.ofDays(10).toMinutes())));
            long amount = 100 + random.nextLong(500_000);
            String currency = CURRENCIES[random.nextInt(CURRENCIES.length)];
            String merchant = "merchant-" + random.nextInt(50);
            boolean settled = !isYoung && random.nextDouble() < settledFraction;
            all.add(new Generated(authorisationId(i), isYoung, at, amount, currency, merchant, settled));
        }
        return all;
    }

    /** What the data implies for a complete window. */
    static Expected expected(List<Generated> data) {
        int young = (int) data.stream().filter(Generated::young).count();
        int settled = (int) data.stream().filter(Generated::settled).count();
        return new Expected(data.size(), data.size() - young, settled, young);
    }

    /**
     * Writes the items straight into the tables (test fixtures that are not about ingestion); {@code bin/reconciler
     * local} and chaos send the same data as events through the ingestion queue instead ({@link SyntheticEvents}).
     */
    public Expected load(DynamoDbClient dynamo, TableNames tables, Instant cutoff, int shards) {
        return load(dynamo, tables, cutoff, shards, StripeWire::paymentIntentFor);
    }

    /** As {@link #load(DynamoDbClient, TableNames, Instant, int)}, each authorisation with {@code providerReference.apply(id)}. */
    public Expected load(DynamoDbClient dynamo, TableNames tables, Instant cutoff, int shards,
                         java.util.function.UnaryOperator<String> providerReference) {
        List<Generated> data = generate(cutoff);
        List<WriteRequest> auths = new ArrayList<>();
        List<WriteRequest> settlements = new ArrayList<>();
        for (Generated g : data) {
            Map<String, AttributeValue> item = new HashMap<>();
            item.put(Authorisations.AUTHORISATION_ID, AttributeValue.fromS(g.id()));
            item.put(Authorisations.STATE, AttributeValue.fromS(Authorisations.STATE_AUTHORISED));
            item.put(Authorisations.VERSION, AttributeValue.fromN("1"));
            item.put(Authorisations.AMOUNT_MINOR, AttributeValue.fromN(Long.toString(g.amountMinor())));
            item.put(Authorisations.CURRENCY, AttributeValue.fromS(g.currency()));
            item.put(Authorisations.MERCHANT_ID, AttributeValue.fromS(g.merchantId()));
            item.put(Authorisations.AUTHORISED_AT, AttributeValue.fromN(Long.toString(g.authorisedAt().toEpochMilli())));
            item.put(Authorisations.PENDING_SHARD, AttributeValue.fromS(Shards.key(Shards.of(g.id(), shards))));
            // As the version 2 create carries it: the provider's id of it (a PaymentIntent id, an Adyen payment pspReference).
            item.put(Authorisations.PROVIDER_REFERENCE, AttributeValue.fromS(providerReference.apply(g.id())));
            auths.add(put(item));
            if (g.settled()) {
                settlements.add(put(Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS(g.id()),
                        Settlements.SETTLED_AT, AttributeValue.fromN(Long.toString(cutoff.toEpochMilli())))));
            }
        }
        write(dynamo, tables.authorisations(), auths);
        write(dynamo, tables.settlements(), settlements);
        return expected(data);
    }

    /** The same data as the card platform's events (docs/integration.md), see {@link SyntheticEvents}. */
    public SyntheticEvents events(Instant cutoff) {
        return events(cutoff, StripeWire::paymentIntentFor);
    }

    /**
     * As {@link #events(Instant)}, each create carrying {@code providerReference.apply(authorisationId)}: the provider's id
     * of the authorisation at the provider the night talks to (a PaymentIntent id, an Adyen payment pspReference).
     */
    public SyntheticEvents events(Instant cutoff, java.util.function.UnaryOperator<String> providerReference) {
        return SyntheticEvents.of(generate(cutoff), cutoff, seed, providerReference);
    }

    /**
     * The settled authorisations' ids: their holds were captured at the provider, which the harness tells the simulated
     * provider ({@code capture}), so a stray release meets the provider's refusal rather than a hold it would release.
     */
    public List<String> settledIds(Instant cutoff) {
        return generate(cutoff).stream().filter(Generated::settled).map(Generated::id).toList();
    }

    /** The authorisations a complete night releases: due (not young) and without a settlement. */
    public List<String> releasableIds(Instant cutoff) {
        return generate(cutoff).stream().filter(g -> !g.young() && !g.settled()).map(Generated::id).toList();
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
