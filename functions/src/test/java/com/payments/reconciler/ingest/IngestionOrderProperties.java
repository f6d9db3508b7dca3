package com.payments.reconciler.ingest;

import java.time.Clock;
import java.util.Optional;
import com.payments.reconciler.local.faults.DynamoFaults;
import com.payments.reconciler.local.faults.Fault;
import com.payments.reconciler.local.moto.MotoServer;
import com.payments.reconciler.reconcile.Shards;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.TableCreator;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.store.Tables;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.testing.LocalDynamo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Consumer;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tolerant of duplicates and of order, on the real store: a random set of events for a few authorisations (created,
 * voided or expired, settled), delivered in a random order with random duplicates through a client that meets
 * throttling and lost responses (the write applied, its answer reset: the SDK's retry then finds its own event stored),
 * (a message not applied is delivered again later, as SQS does) ends in exactly the tables the same events make in
 * their natural order, once each, without faults — except the
 * authorisation's {@code version}, which counts the writes that changed it. And with the conditions taken away (a
 * naive writer), the same search finds an order that ends differently.
 */
class IngestionOrderProperties {

    private static final int SHARDS = 4;
    private static MotoServer moto;
    private static LocalDynamo.Engine shuffled;
    private static TableNames natural;

    @BeforeContainer
    static void startEngine() {
        moto = MotoServer.start(LocalDynamo.buildDir().resolve("moto-ingestion-properties"));
        shuffled = new LocalDynamo.Engine(moto, TableNames.withPrefix("shuffled-"), new ArrayList<>());
        shuffled.reset();
        natural = TableNames.withPrefix("natural-");
        new TableCreator(shuffled.client()).createAll(natural);
    }

    @AfterContainer
    static void stopEngine() {
        shuffled.opened().forEach(DynamoDbClient::close);
        moto.close();
    }

    /** The events of one try, by authorisation, in their natural order (create, settle, end). */
    static List<String> events(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<String> events = new ArrayList<>();
        for (int a = 0; a < 4; a++) {
            String auth = "t" + Long.toHexString(seed) + "-a" + a;
            events.add(EventIngestionTest.created("c-" + auth, auth, 100 + a, "2026-11-28T10:00:00Z"));
            if (random.nextBoolean()) {
                events.add(EventIngestionTest.settled("s-" + auth, auth, "2026-11-29T00:00:00Z"));
            }
            if (random.nextInt(3) == 0) {
                events.add(EventIngestionTest.voided("v-" + auth, auth));
            }
        }
        return events;
    }

    /** A random order with duplicates: each event once, some twice or three times. */
    static List<String> shuffledWithDuplicates(List<String> events, long seed) {
        SplittableRandom random = new SplittableRandom(seed * 31 + 7);
        List<String> out = new ArrayList<>(events);
        for (String event : events) {
            for (int extra = random.nextInt(3); extra > 0; extra--) {
                out.add(event);
            }
        }
        for (int i = out.size() - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            String t = out.get(i);
            out.set(i, out.get(j));
            out.set(j, t);
        }
        return out;
    }

    private static EventIngestion ingestion(DynamoDbClient client, TableNames tables) {
        return new EventIngestion(new EventDecoder(), new IngestionDecision(SHARDS),
                new IngestStore(client, tables.authorisations(), tables.settlements(), new Backoff(1, d -> { }, 6,
                        Duration.ofMillis(1), Duration.ofMillis(2))), Optional.empty(), Clock.systemUTC());
    }

    @Property(tries = 60, seed = "20261204")
    void anyOrderWithDuplicatesAndLostResponsesEndsAsTheNaturalOrderDoes(@ForAll long seed) {
        List<String> events = events(seed);
        DynamoDbClient faulty = shuffled.clientWithoutBackoff(DynamoFaults.builder(seed)
                .probability(Fault.RESPONSE_LOST, 0.15).probability(Fault.THROTTLING, 0.05).build());
        EventIngestion inShuffle = ingestion(faulty, shuffled.tables());
        // As SQS does: a message not applied (throttled past the SDK's retries) is delivered again later.
        java.util.ArrayDeque<String> queue = new java.util.ArrayDeque<>(shuffledWithDuplicates(events, seed));
        int redeliveries = 0;
        while (!queue.isEmpty()) {
            String event = queue.poll();
            IngestOutcome outcome;
            try {
                outcome = inShuffle.ingest(event);
            } catch (com.payments.reconciler.workflow.StoreContention notApplied) {
                assertThat(++redeliveries).as("seed %d: redeliveries", seed).isLessThan(100);
                queue.add(event);
                continue;
            }
            assertThat(outcome).as("seed %d", seed).isNotInstanceOf(IngestOutcome.Refused.class);
            assertThat(outcome.writes()).isBetween(1, EventIngestion.MAX_WRITES);
        }
        EventIngestion inOrder = ingestion(shuffled.client(), natural);
        events.forEach(inOrder::ingest);

        String prefix = "t" + Long.toHexString(seed) + "-";
        assertThat(state(shuffled.tables(), prefix)).as("seed %d", seed).isEqualTo(state(natural, prefix));
        faulty.close();
    }

    /** The known-bad input: unconditional writes (no absence or state condition, no event ids) end differently by order. */
    @Example
    void withoutTheConditionsTheSameSearchFindsAnOrderThatEndsDifferently() {
        List<String> found = new ArrayList<>();
        for (long seed = 1; seed <= 200 && found.isEmpty(); seed++) {
            List<String> events = events(seed);
            NaiveWriter inShuffle = new NaiveWriter(shuffled.client(), shuffled.tables());
            shuffledWithDuplicates(events, seed).forEach(inShuffle);
            NaiveWriter inOrder = new NaiveWriter(shuffled.client(), natural);
            events.forEach(inOrder);
            String prefix = "t" + Long.toHexString(seed) + "-";
            if (!state(shuffled.tables(), prefix).equals(state(natural, prefix))) {
                found.add("seed " + seed);
            }
        }
        assertThat(found).as("an order the naive writer ends differently").isNotEmpty();
        System.out.println("naive writer: first order that ends differently at " + found.getFirst());
    }

    /** What the reconciler reads, per table and item, the version left out (it counts changes, not outcomes). */
    private static Map<String, Map<String, AttributeValue>> state(TableNames tables, String idPrefix) {
        Map<String, Map<String, AttributeValue>> state = new TreeMap<>();
        for (var schema : List.of(Tables.Authorisations.SCHEMA, Tables.Settlements.SCHEMA)) {
            shuffled.client().scanPaginator(b -> b.tableName(tables.nameOf(schema)).consistentRead(true)).items().forEach(item -> {
                String id = item.get(Authorisations.AUTHORISATION_ID).s();
                if (id.startsWith(idPrefix)) {
                    Map<String, AttributeValue> copy = new TreeMap<>(item);
                    copy.remove(Authorisations.VERSION);
                    state.put(schema.logicalName() + "/" + id, copy);
                }
            });
        }
        return state;
    }

    /** Each event as a blind write, as a consumer without conditions would do it: last writer wins. */
    private record NaiveWriter(DynamoDbClient dynamo, TableNames tables) implements Consumer<String> {
        @Override
        public void accept(String body) {
            IngestEvent event = ((EventDecoder.Decoded.Valid) new EventDecoder().decode(body)).event();
            Map<String, AttributeValue> key = Map.of(Authorisations.AUTHORISATION_ID, AttributeValue.fromS(event.authorisationId()));
            switch (event) {
                case IngestEvent.AuthorisationCreated c -> {
                    Map<String, AttributeValue> item = new HashMap<>(key);
                    item.put(Authorisations.STATE, AttributeValue.fromS(Authorisations.STATE_AUTHORISED));
                    item.put(Authorisations.VERSION, AttributeValue.fromN("1"));
                    item.put(Authorisations.AMOUNT_MINOR, AttributeValue.fromN(Long.toString(c.amountMinor())));
                    item.put(Authorisations.AUTHORISED_AT, AttributeValue.fromN(Long.toString(c.authorisedAt().toEpochMilli())));
                    item.put(Authorisations.PENDING_SHARD, AttributeValue.fromS(Shards.key(Shards.of(c.authorisationId(), SHARDS))));
                    dynamo.putItem(b -> b.tableName(tables.authorisations()).item(item));
                }
                case IngestEvent.AuthorisationEnded e -> dynamo.updateItem(b -> b.tableName(tables.authorisations()).key(key)
                        .updateExpression("SET #s = :v REMOVE pendingShard").expressionAttributeNames(Map.of("#s", Authorisations.STATE))
                        .expressionAttributeValues(Map.of(":v", AttributeValue.fromS(Authorisations.STATE_VOIDED))));
                case IngestEvent.SettlementPosted s -> dynamo.putItem(b -> b.tableName(tables.settlements()).item(Map.of(
                        Settlements.AUTHORISATION_ID, key.get(Authorisations.AUTHORISATION_ID),
                        Settlements.SETTLED_AT, AttributeValue.fromN(Long.toString(s.settledAt().toEpochMilli())))));
                case IngestEvent.AuthorisationIncremented i -> throw new IllegalArgumentException("version 1 streams only: " + i);
                case IngestEvent.AuthorisationReversed r -> throw new IllegalArgumentException("version 1 streams only: " + r);
                case IngestEvent.FeedWatermark w -> {
                    // The generated orders carry no watermarks: nothing a naive consumer would write.
                }
                case IngestEvent.ProviderOutcome o -> throw new IllegalArgumentException("no provider outcomes in these properties");
            }
        }
    }
}
