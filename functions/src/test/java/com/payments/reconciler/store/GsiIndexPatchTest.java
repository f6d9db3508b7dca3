package com.payments.reconciler.store;

import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.testing.PatchReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.DeleteRequest;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;

import static com.payments.reconciler.store.Attr.n;
import static com.payments.reconciler.store.Attr.s;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins {@code index_patch.py}: a GSI query answered from the launcher's maintained index is exactly what moto's
 * own table scan answers -- items, order, Count, ScannedCount, LastEvaluatedKey -- after every kind of write.
 * Each case sends the same requests to the tests' (patched) engine and to a reference engine started with
 * {@code RECONCILER_GSI_PATCH=off}, and compares every answer; the named cases also say what the answer is.
 */
@ExtendWith(LocalDynamo.class)
class GsiIndexPatchTest {

    /** hash pk (S) + range sk (N); GSIs by-age (shard S, age N, ALL) and by-name (shard S, name S, KEYS_ONLY). */
    private static final String ITEMS = "test-gsi-items";
    private static final String BY_AGE = "by-age";
    private static final String BY_NAME = "by-name";

    @RegisterExtension
    static final PatchReference REFERENCE = new PatchReference("moto-gsi-reference", "RECONCILER_GSI_PATCH");

    private DynamoDbClient moto;
    private DynamoDbClient patched;
    private String authorisations;

    @BeforeEach
    void sameTablesOnBothEngines(LocalDynamo.Engine engine) {
        patched = PatchReference.unretried(engine.moto());
        moto = REFERENCE.reset();
        new TableCreator(moto).createAll(engine.tables());
        authorisations = engine.tables().authorisations();
        for (DynamoDbClient dynamo : List.of(patched, moto)) {
            createItemsTable(dynamo);
        }
    }

    @AfterEach
    void theIndexNeverFellOutOfStep(LocalDynamo.Engine engine) throws Exception {
        patched.close();
        assertThat(Files.readString(REFERENCE.log(engine.moto()))).doesNotContain("out of step").doesNotContain("CHECK FAILED");
    }

    @Test
    void theTestsEngineAnswersFromTheIndexAndTheReferenceScans(LocalDynamo.Engine engine) throws Exception {
        assertThat(Files.readString(REFERENCE.log(engine.moto()))).contains("index_patch: GSI queries read a maintained index");
        assertThat(Files.readString(REFERENCE.ownLog())).contains("index_patch: disabled (RECONCILER_GSI_PATCH=off)");
    }

    @Test
    void sparseMembershipFollowsEveryWritePath() {
        putAuthorisation("a1", "s", 100);
        putAuthorisation("a2", null, 200);
        putAuthorisation("a3", "s", 75);
        assertThat(pending("s")).containsExactly("a3", "a1");

        write(d -> d.updateItem(b -> b.tableName(authorisations).key(authKey("a2"))
                .updateExpression("SET pendingShard = :s").expressionAttributeValues(Map.of(":s", s("s")))));
        assertThat(pending("s")).as("Update SET of the index hash key").containsExactly("a3", "a1", "a2");

        write(d -> d.updateItem(b -> b.tableName(authorisations).key(authKey("a1")).updateExpression("REMOVE pendingShard")));
        assertThat(pending("s")).as("Update REMOVE").containsExactly("a3", "a2");

        write(d -> d.updateItem(b -> b.tableName(authorisations).key(authKey("a2"))
                .updateExpression("SET authorisedAt = :at").expressionAttributeValues(Map.of(":at", n(50)))));
        assertThat(pending("s")).as("Update SET of the index range key moves the entry").containsExactly("a2", "a3");

        write(d -> d.deleteItem(b -> b.tableName(authorisations).key(authKey("a3"))));
        assertThat(pending("s")).as("Delete").containsExactly("a2");

        write(d -> d.batchWriteItem(b -> b.requestItems(Map.of(authorisations, List.of(
                WriteRequest.builder().putRequest(PutRequest.builder().item(authorisation("a4", "s", 10)).build()).build(),
                WriteRequest.builder().putRequest(PutRequest.builder().item(authorisation("a5", "s", 300)).build()).build(),
                WriteRequest.builder().deleteRequest(DeleteRequest.builder().key(authKey("a2")).build()).build())))));
        assertThat(pending("s")).as("BatchWriteItem").containsExactly("a4", "a5");

        write(d -> d.transactWriteItems(b -> b.transactItems(
                TransactWriteItem.builder().update(u -> u.tableName(authorisations).key(authKey("a4"))
                        .conditionExpression("attribute_exists(pendingShard)").updateExpression("REMOVE pendingShard")).build(),
                TransactWriteItem.builder().put(p -> p.tableName(authorisations).item(authorisation("a6", "s", 20))).build())));
        assertThat(pending("s")).as("committed TransactWriteItems").containsExactly("a6", "a5");

        String cancelled = write(d -> d.transactWriteItems(b -> b.transactItems(
                TransactWriteItem.builder().update(u -> u.tableName(authorisations).key(authKey("a5"))
                        .updateExpression("REMOVE pendingShard")).build(),
                TransactWriteItem.builder().put(p -> p.tableName(authorisations).item(authorisation("a7", "s", 5))).build(),
                TransactWriteItem.builder().conditionCheck(c -> c.tableName(authorisations).key(authKey("a6"))
                        .conditionExpression("attribute_not_exists(authorisationId)")).build())));
        assertThat(cancelled).isEqualTo("TransactionCanceledException [None, None, ConditionalCheckFailed]");
        assertThat(pending("s")).as("a cancelled transaction changes no entry").containsExactly("a6", "a5");

        putAuthorisation("a6", null, 20);
        assertThat(pending("s")).as("a Put replacing an item takes its entry with it").containsExactly("a5");
    }

    @Test
    void ordersBySortKeyThenTableKeyWithTiesInBothDirections() {
        // Equal ages (5 and 5.0 are one number) fall back to the table key: pk, then sk as a number.
        putItem("b", 2, "a", "5", null);
        putItem("a", 10, "a", "5", null);
        putItem("a", 9, "a", "5.0", null);
        putItem("a", 1, "a", "5", null);
        putItem("c", 1, "a", "5", null);
        putItem("a", 3, "a", "1", null);
        putItem("z", 0, "a", "7", null);
        putItem("y", 0, "b", "1", null);
        putItem("x", 0, null, "1", null);

        List<String> forward = List.of("a/3", "a/1", "a/9", "a/10", "b/2", "c/1", "z/0");
        assertThat(keys(pages(byAge("a").build()))).isEqualTo(forward);
        assertThat(keys(pages(byAge("a").scanIndexForward(false).build()))).isEqualTo(forward.reversed());
        assertThat(keys(pages(byAge("a").limit(2).build()))).as("paged by 2").isEqualTo(forward);
        assertThat(keys(pages(byAge("a").limit(3).scanIndexForward(false).build()))).isEqualTo(forward.reversed());
    }

    @Test
    void pagesThroughManyPagesWithExclusiveStartKey() {
        List<Map<String, AttributeValue>> batch = new ArrayList<>();
        for (int i = 0; i < 330; i++) {
            String shard = i < 240 ? "s" : i < 300 ? "other" : null;
            batch.add(authorisation(String.format("a%03d", i), shard, 1_000 + (i * 7) % 13));
        }
        for (int from = 0; from < batch.size(); from += 25) {
            List<WriteRequest> requests = batch.subList(from, Math.min(from + 25, batch.size())).stream()
                    .map(item -> WriteRequest.builder().putRequest(PutRequest.builder().item(item).build()).build()).toList();
            write(d -> d.batchWriteItem(b -> b.requestItems(Map.of(authorisations, requests))));
        }
        List<String> expected = batch.stream().filter(item -> item.containsKey(Authorisations.PENDING_SHARD)
                        && item.get(Authorisations.PENDING_SHARD).s().equals("s"))
                .sorted((x, y) -> {
                    int byAt = Long.compare(Long.parseLong(x.get(Authorisations.AUTHORISED_AT).n()), Long.parseLong(y.get(Authorisations.AUTHORISED_AT).n()));
                    return byAt != 0 ? byAt : x.get(Authorisations.AUTHORISATION_ID).s().compareTo(y.get(Authorisations.AUTHORISATION_ID).s());
                })
                .map(item -> item.get(Authorisations.AUTHORISATION_ID).s()).toList();

        List<QueryResponse> forward = pages(pendingQuery("s").limit(7).build());
        assertThat(forward.size()).as("pages of 7").isGreaterThanOrEqualTo(35);
        assertThat(ids(forward)).isEqualTo(expected);
        assertThat(ids(pages(pendingQuery("s").limit(11).scanIndexForward(false).build()))).isEqualTo(expected.reversed());
    }

    @Test
    void aRangeConditionBeforeTheCutoffForwardsAndBackwards() {
        for (int i = 0; i < 20; i++) {
            putAuthorisation("a" + (char) ('a' + i), "s", 100L * (i % 10));
        }
        // CandidateFinder's key condition: only what was authorised before the cutoff.
        QueryRequest.Builder due = QueryRequest.builder().tableName(authorisations).indexName(Authorisations.PENDING_BY_AGE)
                .keyConditionExpression("pendingShard = :shard AND authorisedAt < :cutoff")
                .expressionAttributeValues(Map.of(":shard", s("s"), ":cutoff", n(300)));
        assertThat(ids(pages(due.limit(4).build()))).containsExactly("aa", "ak", "ab", "al", "ac", "am");
        assertThat(ids(pages(due.limit(4).scanIndexForward(false).build()))).containsExactly("am", "ac", "al", "ab", "ak", "aa");
        List<QueryResponse> exactly = pages(due.limit(6).scanIndexForward(true).build());
        assertThat(exactly.getFirst().count()).isEqualTo(6);
    }

    @Test
    void projectionsAndFiltersAreMotosOwn() {
        for (int i = 0; i < 6; i++) {
            putItem("p" + i, i, "a", Integer.toString(i), i % 2 == 0 ? "x" : "y");
        }
        List<QueryResponse> keysOnly = pages(QueryRequest.builder().tableName(ITEMS).indexName(BY_NAME)
                .keyConditionExpression("shard = :s AND #n = :x").expressionAttributeNames(Map.of("#n", "name"))
                .expressionAttributeValues(Map.of(":s", s("a"), ":x", s("x"))).build());
        assertThat(keysOnly.getFirst().items()).hasSize(3)
                .allSatisfy(item -> assertThat(item.keySet()).containsExactlyInAnyOrder("pk", "sk", "shard", "name"));

        // The filter runs after the limit: a page can hold fewer items than it scanned.
        List<QueryResponse> filtered = pages(byAge("a").limit(4).filterExpression("#n = :x")
                .expressionAttributeNames(Map.of("#n", "name")).expressionAttributeValues(Map.of(":s", s("a"), ":x", s("x")))
                .projectionExpression("pk, #n").build());
        assertThat(filtered.getFirst().count()).isEqualTo(2);
        assertThat(filtered.getFirst().scannedCount()).isEqualTo(4);
        assertThat(filtered.getFirst().items()).allSatisfy(item -> assertThat(item.keySet()).containsExactlyInAnyOrder("pk", "name"));
    }

    /**
     * The same seeded sequence of writes of every kind (overwrites, SET/REMOVE of index keys, conditional
     * failures, batches, committed and cancelled transactions across two tables) and GSI queries (every range
     * operator, both directions, limits, filters, projections, paged to the end) on both engines.
     */
    @Test
    void aSeededSequenceOfWritesAndQueriesAnswersAsMotoItself() {
        Random random = new Random(20_261_203L);
        int queries = 0;
        for (int step = 0; step < 700; step++) {
            double r = random.nextDouble();
            if (r < 0.22) {
                Map<String, AttributeValue> item = randomItem(random);
                boolean conditional = random.nextInt(5) == 0;
                write(d -> d.putItem(b -> b.tableName(ITEMS).item(item).conditionExpression(conditional ? "attribute_not_exists(pk)" : null)));
            } else if (r < 0.30) {
                Map<String, AttributeValue> item = authorisation("a" + random.nextInt(15), random.nextInt(4) == 0 ? null : "s" + random.nextInt(2),
                        100L * random.nextInt(4));
                write(d -> d.putItem(b -> b.tableName(authorisations).item(item)));
            } else if (r < 0.48) {
                Map<String, AttributeValue> key = randomKey(random);
                Map<String, Object> update = randomUpdate(random);
                boolean conditional = random.nextInt(5) == 0;
                write(d -> d.updateItem(b -> b.tableName(ITEMS).key(key)
                        .updateExpression((String) update.get("expression"))
                        .expressionAttributeValues(values(update))
                        .conditionExpression(conditional ? "attribute_exists(pk)" : null)));
            } else if (r < 0.55) {
                Map<String, AttributeValue> key = randomKey(random);
                boolean conditional = random.nextBoolean();
                write(d -> d.deleteItem(b -> b.tableName(ITEMS).key(key).conditionExpression(conditional ? "attribute_exists(shard)" : null)));
            } else if (r < 0.61) {
                Map<String, WriteRequest> requests = new LinkedHashMap<>();
                for (int i = random.nextInt(1, 6); i > 0; i--) {
                    if (random.nextInt(3) > 0) {
                        Map<String, AttributeValue> item = randomItem(random);
                        requests.putIfAbsent(item.get("pk").s() + "/" + item.get("sk").n(),
                                WriteRequest.builder().putRequest(PutRequest.builder().item(item).build()).build());
                    } else {
                        Map<String, AttributeValue> key = randomKey(random);
                        requests.putIfAbsent(key.get("pk").s() + "/" + key.get("sk").n(),
                                WriteRequest.builder().deleteRequest(DeleteRequest.builder().key(key).build()).build());
                    }
                }
                write(d -> d.batchWriteItem(b -> b.requestItems(Map.of(ITEMS, List.copyOf(requests.values())))));
            } else if (r < 0.72) {
                List<TransactWriteItem> actions = randomTransaction(random);
                write(d -> d.transactWriteItems(b -> b.transactItems(actions)));
            } else {
                queries++;
                pages(random.nextInt(4) == 0 ? randomPendingQuery(random) : randomItemsQuery(random));
            }
        }
        assertThat(queries).isGreaterThan(150);
        for (String table : List.of(ITEMS, authorisations)) {
            assertThat(contents(patched, table)).as(table).isEqualTo(contents(moto, table)).isNotEmpty();
        }
    }

    private static Set<Map<String, AttributeValue>> contents(DynamoDbClient dynamo, String table) {
        return new java.util.HashSet<>(dynamo.scan(b -> b.tableName(table)).items());
    }

    // --- the two engines ---------------------------------------------------------------------------------

    /** Runs a write on both engines (so it must not draw random numbers itself); returns its outcome, the same on both. */
    private String write(Function<DynamoDbClient, Object> call) {
        String mine = outcome(call, patched);
        assertThat(mine).as("the write's outcome on the patched engine").isEqualTo(outcome(call, moto));
        return mine;
    }

    private static String outcome(Function<DynamoDbClient, Object> call, DynamoDbClient dynamo) {
        try {
            call.apply(dynamo);
            return "ok";
        } catch (TransactionCanceledException e) {
            return "TransactionCanceledException " + e.cancellationReasons().stream().map(CancellationReason::code).toList();
        } catch (DynamoDbException e) {
            return e.getClass().getSimpleName() + " " + e.awsErrorDetails().errorCode();
        }
    }

    /** Every page of a query on both engines, compared page by page; the patched engine's pages. */
    private List<QueryResponse> pages(QueryRequest request) {
        List<QueryResponse> pages = new ArrayList<>();
        QueryRequest next = request;
        while (true) {
            QueryResponse mine = patched.query(next);
            QueryResponse theirs = moto.query(next);
            assertThat(comparable(mine)).as("page %d of %s", pages.size() + 1, next).isEqualTo(comparable(theirs));
            pages.add(mine);
            if (!mine.hasLastEvaluatedKey() || mine.lastEvaluatedKey().isEmpty()) {
                return pages;
            }
            assertThat(pages).as("pages of %s", request).hasSizeLessThan(500);
            next = next.toBuilder().exclusiveStartKey(mine.lastEvaluatedKey()).build();
        }
    }

    private static List<Object> comparable(QueryResponse response) {
        return List.of(response.items(), response.count(), response.scannedCount(),
                response.hasLastEvaluatedKey() ? response.lastEvaluatedKey() : "no LastEvaluatedKey");
    }

    private static void createItemsTable(DynamoDbClient dynamo) {
        dynamo.createTable(b -> b.tableName(ITEMS).billingMode(BillingMode.PAY_PER_REQUEST)
                .keySchema(key("pk", KeyType.HASH), key("sk", KeyType.RANGE))
                .attributeDefinitions(attribute("pk", ScalarAttributeType.S), attribute("sk", ScalarAttributeType.N),
                        attribute("shard", ScalarAttributeType.S), attribute("age", ScalarAttributeType.N),
                        attribute("name", ScalarAttributeType.S))
                .globalSecondaryIndexes(
                        GlobalSecondaryIndex.builder().indexName(BY_AGE).keySchema(key("shard", KeyType.HASH), key("age", KeyType.RANGE))
                                .projection(Projection.builder().projectionType(ProjectionType.ALL).build()).build(),
                        GlobalSecondaryIndex.builder().indexName(BY_NAME).keySchema(key("shard", KeyType.HASH), key("name", KeyType.RANGE))
                                .projection(Projection.builder().projectionType(ProjectionType.KEYS_ONLY).build()).build()));
    }

    private static KeySchemaElement key(String name, KeyType type) {
        return KeySchemaElement.builder().attributeName(name).keyType(type).build();
    }

    private static AttributeDefinition attribute(String name, ScalarAttributeType type) {
        return AttributeDefinition.builder().attributeName(name).attributeType(type).build();
    }

    // --- items and queries -------------------------------------------------------------------------------

    private void putAuthorisation(String id, String shard, long authorisedAt) {
        Map<String, AttributeValue> item = authorisation(id, shard, authorisedAt);
        write(d -> d.putItem(b -> b.tableName(authorisations).item(item)));
    }

    private static Map<String, AttributeValue> authorisation(String id, String shard, long authorisedAt) {
        Map<String, AttributeValue> item = new HashMap<>(Map.of(Authorisations.AUTHORISATION_ID, s(id),
                Authorisations.STATE, s(shard == null ? Authorisations.STATE_SETTLED : Authorisations.STATE_AUTHORISED),
                Authorisations.AUTHORISED_AT, n(authorisedAt)));
        if (shard != null) {
            item.put(Authorisations.PENDING_SHARD, s(shard));
        }
        return item;
    }

    private static Map<String, AttributeValue> authKey(String id) {
        return Map.of(Authorisations.AUTHORISATION_ID, s(id));
    }

    private List<String> pending(String shard) {
        return ids(pages(pendingQuery(shard).limit(2).build()));
    }

    private QueryRequest.Builder pendingQuery(String shard) {
        return QueryRequest.builder().tableName(authorisations).indexName(Authorisations.PENDING_BY_AGE)
                .keyConditionExpression("pendingShard = :s").expressionAttributeValues(Map.of(":s", s(shard)));
    }

    private static List<String> ids(List<QueryResponse> pages) {
        return pages.stream().flatMap(p -> p.items().stream()).map(item -> item.get(Authorisations.AUTHORISATION_ID).s()).toList();
    }

    private void putItem(String pk, long sk, String shard, String age, String name) {
        Map<String, AttributeValue> item = new HashMap<>(Map.of("pk", s(pk), "sk", n(sk)));
        if (shard != null) {
            item.put("shard", s(shard));
        }
        if (age != null) {
            item.put("age", AttributeValue.fromN(age));
        }
        if (name != null) {
            item.put("name", s(name));
        }
        write(d -> d.putItem(b -> b.tableName(ITEMS).item(item)));
    }

    private static QueryRequest.Builder byAge(String shard) {
        return QueryRequest.builder().tableName(ITEMS).indexName(BY_AGE)
                .keyConditionExpression("shard = :s").expressionAttributeValues(Map.of(":s", s(shard)));
    }

    private static List<String> keys(List<QueryResponse> pages) {
        return pages.stream().flatMap(p -> p.items().stream()).map(item -> item.get("pk").s() + "/" + item.get("sk").n()).toList();
    }

    private static final List<String> AGES = List.of("1", "2", "2.0", "3", "10", "-1", "0.5");

    private static Map<String, AttributeValue> randomKey(Random random) {
        return Map.of("pk", s("p" + random.nextInt(10)), "sk", n(List.of(1, 2, 3, 10).get(random.nextInt(4))));
    }

    private static Map<String, AttributeValue> randomItem(Random random) {
        Map<String, AttributeValue> item = new HashMap<>(randomKey(random));
        if (random.nextInt(5) > 0) {
            item.put("shard", s(List.of("a", "b", "c").get(random.nextInt(3))));
        }
        if (random.nextInt(5) > 0) {
            item.put("age", AttributeValue.fromN(AGES.get(random.nextInt(AGES.size()))));
        }
        if (random.nextBoolean()) {
            item.put("name", s(List.of("x", "y", "xx").get(random.nextInt(3))));
        }
        item.put("v", n(random.nextInt(100)));
        return item;
    }

    /** "expression" -> an update expression of SET and REMOVE on index keys and others; ":name" -> values. */
    private static Map<String, Object> randomUpdate(Random random) {
        List<String> sets = new ArrayList<>();
        List<String> removes = new ArrayList<>();
        Map<String, Object> update = new HashMap<>();
        for (String attribute : List.of("shard", "age", "name", "v")) {
            double r = random.nextDouble();
            if (r < 0.3) {
                sets.add(attribute + " = :" + attribute);
                update.put(":" + attribute, switch (attribute) {
                    case "shard" -> s(List.of("a", "b", "c").get(random.nextInt(3)));
                    case "name" -> s(List.of("x", "y").get(random.nextInt(2)));
                    case "age" -> AttributeValue.fromN(AGES.get(random.nextInt(AGES.size())));
                    default -> n(random.nextInt(100));
                });
            } else if (r < 0.45) {
                removes.add(attribute);
            }
        }
        if (sets.isEmpty() && removes.isEmpty()) {
            sets.add("v = :v");
            update.put(":v", n(1));
        }
        update.put("expression", ((sets.isEmpty() ? "" : "SET " + String.join(", ", sets))
                + (removes.isEmpty() ? "" : " REMOVE " + String.join(", ", removes))).trim());
        return update;
    }

    private static Map<String, AttributeValue> values(Map<String, Object> update) {
        Map<String, AttributeValue> values = new HashMap<>();
        update.forEach((name, value) -> {
            if (value instanceof AttributeValue attributeValue) {
                values.put(name, attributeValue);
            }
        });
        return values.isEmpty() ? null : values;
    }

    private List<TransactWriteItem> randomTransaction(Random random) {
        List<TransactWriteItem> actions = new ArrayList<>();
        Set<String> named = new LinkedHashSet<>();
        for (int i = random.nextInt(1, 5); i > 0; i--) {
            double r = random.nextDouble();
            if (r < 0.2) {
                String id = "a" + random.nextInt(15);
                boolean remove = random.nextBoolean();
                if (named.add(id)) {
                    actions.add(TransactWriteItem.builder().update(u -> u.tableName(authorisations).key(authKey(id))
                            .updateExpression(remove ? "REMOVE pendingShard" : "SET pendingShard = :s")
                            .expressionAttributeValues(remove ? null : Map.of(":s", s("s1")))).build());
                }
                continue;
            }
            Map<String, AttributeValue> key = randomKey(random);
            if (!named.add(key.get("pk").s() + "/" + key.get("sk").n())) {
                continue;
            }
            if (r < 0.45) {
                Map<String, AttributeValue> item = new HashMap<>(randomItem(random));
                item.putAll(key);
                actions.add(TransactWriteItem.builder().put(p -> p.tableName(ITEMS).item(item)).build());
            } else if (r < 0.7) {
                Map<String, Object> update = randomUpdate(random);
                actions.add(TransactWriteItem.builder().update(u -> u.tableName(ITEMS).key(key)
                        .updateExpression((String) update.get("expression")).expressionAttributeValues(values(update))).build());
            } else if (r < 0.85) {
                actions.add(TransactWriteItem.builder().delete(x -> x.tableName(ITEMS).key(key)).build());
            } else {
                actions.add(TransactWriteItem.builder().conditionCheck(c -> c.tableName(ITEMS).key(key)
                        .conditionExpression("attribute_exists(pk)")).build());
            }
        }
        return actions;
    }

    private QueryRequest randomPendingQuery(Random random) {
        QueryRequest.Builder query = QueryRequest.builder().tableName(authorisations).indexName(Authorisations.PENDING_BY_AGE)
                .keyConditionExpression("pendingShard = :s AND authorisedAt < :cutoff")
                .expressionAttributeValues(Map.of(":s", s("s" + random.nextInt(3)), ":cutoff", n(100L * random.nextInt(5))))
                .limit(random.nextInt(1, 5));
        return query.scanIndexForward(random.nextBoolean()).build();
    }

    private static QueryRequest randomItemsQuery(Random random) {
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":s", s(List.of("a", "b", "c", "d").get(random.nextInt(4)))));
        Map<String, String> names = new HashMap<>();
        String condition = "shard = :s";
        String index = random.nextInt(4) == 0 ? BY_NAME : BY_AGE;
        double r = random.nextDouble();
        if (index.equals(BY_AGE)) {
            String low = List.of("0", "1", "2", "3").get(random.nextInt(4));
            String high = List.of("3", "4", "10").get(random.nextInt(3));
            String operator = List.of("<", "<=", ">", ">=", "=").get(random.nextInt(5));
            if (r < 0.6) {
                condition += " AND age " + operator + " :low";
                values.put(":low", AttributeValue.fromN(low));
            } else if (r < 0.75) {
                condition += " AND age BETWEEN :low AND :high";
                values.put(":low", AttributeValue.fromN(low));
                values.put(":high", AttributeValue.fromN(high));
            }
        } else if (r < 0.5) {
            condition += random.nextBoolean() ? " AND begins_with(#n, :p)" : " AND #n < :p";
            names.put("#n", "name");
            values.put(":p", s(random.nextBoolean() ? "x" : "y"));
        }
        QueryRequest.Builder query = QueryRequest.builder().tableName(ITEMS).indexName(index).keyConditionExpression(condition)
                .scanIndexForward(random.nextInt(3) > 0);
        if (random.nextInt(5) > 0) {
            query.limit(random.nextInt(1, 6));
        }
        if (random.nextInt(5) == 0 && index.equals(BY_AGE)) {
            query.filterExpression("v > :v");
            values.put(":v", n(50));
        }
        if (random.nextInt(5) == 0) {
            query.projectionExpression("pk, sk");
        }
        if (!names.isEmpty()) {
            query.expressionAttributeNames(names);
        }
        return query.expressionAttributeValues(values).build();
    }
}
