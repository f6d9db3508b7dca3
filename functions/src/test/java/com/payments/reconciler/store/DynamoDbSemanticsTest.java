package com.payments.reconciler.store;

import com.payments.reconciler.local.faults.DynamoFaults;
import com.payments.reconciler.local.faults.DynamoOperation;
import com.payments.reconciler.local.faults.Fault;
import com.payments.reconciler.reconcile.Shards;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.testing.Ingestion;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.IdempotentParameterMismatchException;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static com.payments.reconciler.store.Attr.n;
import static com.payments.reconciler.store.Attr.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Pins the DynamoDB behaviour the design relies on (docs/design.md §3–§5), against the local engine as the tests
 * and the local job run it: moto through the launcher, with the item-level transaction rollback patch.
 * Where moto differs from documented DynamoDB behaviour, the test says so and pins moto's behaviour too,
 * so a moto upgrade that changes it is noticed; the list is in {@code docs/emulator-differences.md}.
 */
@ExtendWith(LocalDynamo.class)
class DynamoDbSemanticsTest {

    private static final Instant T0 = Instant.parse("2026-12-01T02:00:00Z");

    @Test
    void runsOnThePatchedLauncher(LocalDynamo.Engine engine) throws Exception {
        Path log = LocalDynamo.buildDir().resolve("moto").resolve("moto-" + engine.moto().port() + ".log");
        assertThat(Files.readString(log)).contains("transactions_patch: TransactWriteItems rolls back the named items only");
    }

    @Test
    void aCancelledTransactionAppliesNothingAndReportsReasonsInItemOrder(LocalDynamo.Engine engine) {
        DynamoDbClient dynamo = engine.client();
        TableNames t = engine.tables();
        dynamo.putItem(b -> b.tableName(t.leases()).item(Map.of(Leases.LEASE_NAME, s("job"), Leases.OWNER, s("a"), Leases.EPOCH, n(1))));
        dynamo.putItem(b -> b.tableName(t.authorisations()).item(Map.of(Authorisations.AUTHORISATION_ID, s("x"),
                Authorisations.STATE, s(Authorisations.STATE_AUTHORISED), Authorisations.VERSION, n(2))));

        // [lease check passes, update's condition fails, settlement check passes, put would create a command]
        TransactWriteItemsRequest request = TransactWriteItemsRequest.builder().transactItems(
                leaseCheck(t, "a", 1),
                TransactWriteItem.builder().update(u -> u.tableName(t.authorisations())
                        .key(Map.of(Authorisations.AUTHORISATION_ID, s("x")))
                        .conditionExpression("version = :observed")
                        .updateExpression("SET version = version + :one")
                        .expressionAttributeValues(Map.of(":observed", n(1), ":one", n(1)))
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)).build(),
                TransactWriteItem.builder().conditionCheck(c -> c.tableName(t.settlements())
                        .key(Map.of(Settlements.AUTHORISATION_ID, s("x")))
                        .conditionExpression("attribute_not_exists(authorisationId)")).build(),
                TransactWriteItem.builder().put(p -> p.tableName(t.releaseCommands())
                        .item(Map.of(ReleaseCommands.OPERATION_ID, s("release-hold:x")))
                        .conditionExpression("attribute_not_exists(operationId)")).build()).build();

        assertThatThrownBy(() -> dynamo.transactWriteItems(request))
                .isInstanceOfSatisfying(TransactionCanceledException.class, e -> {
                    assertThat(e.cancellationReasons()).extracting(CancellationReason::code)
                            .containsExactly("None", "ConditionalCheckFailed", "None", "None");
                    // ReturnValuesOnConditionCheckFailure=ALL_OLD: the item as it was, in the failed reason.
                    assertThat(e.cancellationReasons().get(1).item())
                            .containsEntry(Authorisations.VERSION, n(2))
                            .containsEntry(Authorisations.STATE, s(Authorisations.STATE_AUTHORISED));
                    assertThat(e.cancellationReasons().get(0).item()).as("no item for a reason that did not fail").isEmpty();
                });
        assertThat(item(dynamo, t.authorisations(), Authorisations.AUTHORISATION_ID, "x")).containsEntry(Authorisations.VERSION, n(2));
        assertThat(item(dynamo, t.releaseCommands(), ReleaseCommands.OPERATION_ID, "release-hold:x")).as("all or nothing").isEmpty();
    }

    @Test
    void aFailedConditionCancelsWritesOnEveryOtherItemIncludingThoseAfterIt(LocalDynamo.Engine engine) {
        DynamoDbClient dynamo = engine.client();
        TableNames t = engine.tables();
        dynamo.putItem(b -> b.tableName(t.settlements()).item(Map.of(Settlements.AUTHORISATION_ID, s("settled"))));

        // moto keeps applying the items after a failed one and relies on the rollback: the patch must undo them all.
        assertThatThrownBy(() -> dynamo.transactWriteItems(b -> b.transactItems(
                put(t.releaseCommands(), ReleaseCommands.OPERATION_ID, "before"),
                TransactWriteItem.builder().conditionCheck(c -> c.tableName(t.settlements())
                        .key(Map.of(Settlements.AUTHORISATION_ID, s("settled")))
                        .conditionExpression("attribute_not_exists(authorisationId)")).build(),
                put(t.releaseCommands(), ReleaseCommands.OPERATION_ID, "after"),
                put(t.authorisations(), Authorisations.AUTHORISATION_ID, "after-too"))))
                .isInstanceOfSatisfying(TransactionCanceledException.class, e -> assertThat(e.cancellationReasons())
                        .extracting(CancellationReason::code).containsExactly("None", "ConditionalCheckFailed", "None", "None"));

        assertThat(item(dynamo, t.releaseCommands(), ReleaseCommands.OPERATION_ID, "before")).isEmpty();
        assertThat(item(dynamo, t.releaseCommands(), ReleaseCommands.OPERATION_ID, "after")).isEmpty();
        assertThat(item(dynamo, t.authorisations(), Authorisations.AUTHORISATION_ID, "after-too")).isEmpty();
    }

    @Test
    void aConditionalUpdateThatFailsReturnsTheOldItemWhenAsked(LocalDynamo.Engine engine) {
        DynamoDbClient dynamo = engine.client();
        TableNames t = engine.tables();
        dynamo.putItem(b -> b.tableName(t.leases()).item(Map.of(Leases.LEASE_NAME, s("job"), Leases.OWNER, s("b"), Leases.EPOCH, n(7))));

        assertThatThrownBy(() -> dynamo.updateItem(b -> b.tableName(t.leases()).key(Map.of(Leases.LEASE_NAME, s("job")))
                .conditionExpression("#owner = :me").updateExpression("SET expiresAt = :x")
                .expressionAttributeNames(Map.of("#owner", Leases.OWNER))
                .expressionAttributeValues(Map.of(":me", s("a"), ":x", n(1)))
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)))
                .isInstanceOfSatisfying(ConditionalCheckFailedException.class, e -> assertThat(e.item())
                        .containsEntry(Leases.OWNER, s("b")).containsEntry(Leases.EPOCH, n(7)));
    }

    @Test
    void twoActionsOnOneItemInATransactionAreRejected(LocalDynamo.Engine engine) {
        DynamoDbClient dynamo = engine.client();
        TableNames t = engine.tables();

        assertThatThrownBy(() -> dynamo.transactWriteItems(b -> b.transactItems(
                put(t.releaseCommands(), ReleaseCommands.OPERATION_ID, "same"),
                TransactWriteItem.builder().conditionCheck(c -> c.tableName(t.releaseCommands())
                        .key(Map.of(ReleaseCommands.OPERATION_ID, s("same")))
                        .conditionExpression("attribute_not_exists(operationId)")).build())))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> {
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException");
                    assertThat(e.getMessage()).contains("Transaction request cannot include multiple operations on one item");
                });
        assertThat(item(dynamo, t.releaseCommands(), ReleaseCommands.OPERATION_ID, "same")).isEmpty();
    }

    @Test
    void reservedWordsWorkOnlyThroughExpressionAttributeNames(LocalDynamo.Engine engine) {
        DynamoDbClient dynamo = engine.client();
        TableNames t = engine.tables();
        Map<String, AttributeValue> key = Map.of(Authorisations.AUTHORISATION_ID, s("x"));
        dynamo.putItem(b -> b.tableName(t.authorisations()).item(Map.of(Authorisations.AUTHORISATION_ID, s("x"),
                Authorisations.STATE, s(Authorisations.STATE_AUTHORISED))));

        assertThatThrownBy(() -> dynamo.updateItem(b -> b.tableName(t.authorisations()).key(key)
                .updateExpression("SET state = :s").expressionAttributeValues(Map.of(":s", s("SETTLED")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> {
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException");
                    assertThat(e.getMessage()).contains("reserved keyword").contains("state");
                });
        assertThatThrownBy(() -> dynamo.updateItem(b -> b.tableName(t.leases()).key(Map.of(Leases.LEASE_NAME, s("job")))
                .updateExpression("SET owner = :o").expressionAttributeValues(Map.of(":o", s("a")))))
                .isInstanceOf(DynamoDbException.class).hasMessageContaining("reserved keyword");

        dynamo.updateItem(b -> b.tableName(t.authorisations()).key(key)
                .conditionExpression("#state = :authorised").updateExpression("SET #state = :settled")
                .expressionAttributeNames(Map.of("#state", Authorisations.STATE))
                .expressionAttributeValues(Map.of(":authorised", s(Authorisations.STATE_AUTHORISED), ":settled", s(Authorisations.STATE_SETTLED))));
        assertThat(item(dynamo, t.authorisations(), Authorisations.AUTHORISATION_ID, "x"))
                .containsEntry(Authorisations.STATE, s(Authorisations.STATE_SETTLED));
    }

    @Test
    void conditionalUpdatesAreAtomicUnderEightConcurrentThreads(LocalDynamo.Engine engine) throws Exception {
        TableNames t = engine.tables();
        Map<String, AttributeValue> key = Map.of(Authorisations.AUTHORISATION_ID, s("contended"));
        engine.client().putItem(b -> b.tableName(t.authorisations()).item(Map.of(Authorisations.AUTHORISATION_ID, s("contended"),
                Authorisations.VERSION, n(0))));
        int threads = 8;
        int rounds = 15;
        CyclicBarrier everyRound = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<Integer>> successes = new ArrayList<>();
        try {
            for (int i = 0; i < threads; i++) {
                DynamoDbClient dynamo = engine.client();
                successes.add(pool.submit(() -> {
                    int won = 0;
                    for (int round = 0; round < rounds; round++) {
                        long observed = Long.parseLong(item(dynamo, t.authorisations(), Authorisations.AUTHORISATION_ID, "contended")
                                .get(Authorisations.VERSION).n());
                        // Everyone has read before anyone writes: each round is a real race on one version.
                        everyRound.await(30, TimeUnit.SECONDS);
                        try {
                            dynamo.updateItem(b -> b.tableName(t.authorisations()).key(key)
                                    .conditionExpression("version = :observed").updateExpression("SET version = version + :one")
                                    .expressionAttributeValues(Map.of(":observed", n(observed), ":one", n(1))));
                            won++;
                        } catch (ConditionalCheckFailedException lost) {
                            // another thread moved the version first
                        }
                        everyRound.await(30, TimeUnit.SECONDS);
                    }
                    return won;
                }));
            }
            int total = 0;
            for (Future<Integer> f : successes) {
                total += f.get(120, TimeUnit.SECONDS);
            }
            long finalVersion = Long.parseLong(item(engine.client(), t.authorisations(), Authorisations.AUTHORISATION_ID, "contended")
                    .get(Authorisations.VERSION).n());
            assertThat(finalVersion).isEqualTo(total);
            assertThat(total).as("exactly one winner per round: all read the same version").isEqualTo(rounds);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Emulator difference: DynamoDB answers a TransactWriteItems replayed under the same ClientRequestToken
     * (within 10 minutes) without applying it; moto ignores the token and applies the replay. Production
     * code therefore never depends on the token for correctness (conditions and versions are the guard);
     * tests that need AWS's behaviour get it from the fault layer.
     */
    @Test
    void motoIgnoresClientRequestTokenAndAppliesAReplay(LocalDynamo.Engine engine) {
        DynamoDbClient dynamo = engine.client();
        TransactWriteItemsRequest request = counterIncrement(engine.tables(), "replayed").toBuilder()
                .clientRequestToken("release-hold-x-e1-v1").build();

        dynamo.transactWriteItems(request);
        dynamo.transactWriteItems(request);

        assertThat(counter(dynamo, engine.tables(), "replayed")).as("moto re-applied the replay; AWS would not").isEqualTo(2);
    }

    @Test
    void theFaultLayerGivesAwsTokenSemanticsOnTopOfMoto(LocalDynamo.Engine engine) {
        MutableClock clock = new MutableClock(T0);
        DynamoFaults faults = DynamoFaults.builder(1).clock(clock).build();
        DynamoDbClient dynamo = engine.clientWithoutBackoff(faults);
        TransactWriteItemsRequest request = counterIncrement(engine.tables(), "replayed").toBuilder()
                .clientRequestToken("release-hold-x-e1-v1").build();

        dynamo.transactWriteItems(request);
        dynamo.transactWriteItems(request);
        assertThat(counter(dynamo, engine.tables(), "replayed")).isEqualTo(1);
        assertThat(faults.tokenReplays()).isEqualTo(1);

        assertThatThrownBy(() -> dynamo.transactWriteItems(counterIncrement(engine.tables(), "other").toBuilder()
                .clientRequestToken("release-hold-x-e1-v1").build()))
                .isInstanceOf(IdempotentParameterMismatchException.class);
        assertThat(counter(dynamo, engine.tables(), "other")).isZero();

        // The SDK's own retry after a lost response reuses the token: answered, not applied again.
        faults.inject(DynamoOperation.TRANSACT_WRITE_ITEMS, 1, Fault.RESPONSE_LOST);
        dynamo.transactWriteItems(counterIncrement(engine.tables(), "lost"));
        assertThat(counter(dynamo, engine.tables(), "lost")).isEqualTo(1);
        assertThat(faults.counts()).containsEntry(Fault.RESPONSE_LOST, 1L);

        clock.advance(Duration.ofMinutes(10).plusMillis(1));
        dynamo.transactWriteItems(request);
        assertThat(counter(dynamo, engine.tables(), "replayed")).as("after 10 minutes the token is new").isEqualTo(2);
    }

    @Test
    void aCancelledTransactionLeavesSparseIndexEntriesAsTheyWere(LocalDynamo.Engine engine) {
        DynamoDbClient dynamo = engine.client();
        TableNames t = engine.tables();
        Ingestion ingestion = new Ingestion(dynamo, t, 1);
        ingestion.authorise("x", 1_000, T0.minusSeconds(3_600));
        ingestion.settle("x", T0);
        Map<String, AttributeValue> before = ingestion.authorisation("x");

        // The release decision: leave the pending index, create a pending-delivery command; cancelled by the settlement.
        assertThatThrownBy(() -> dynamo.transactWriteItems(b -> b.transactItems(
                TransactWriteItem.builder().update(u -> u.tableName(t.authorisations())
                        .key(Map.of(Authorisations.AUTHORISATION_ID, s("x")))
                        .updateExpression("SET #state = :rr, version = version + :one REMOVE pendingShard")
                        .expressionAttributeNames(Map.of("#state", Authorisations.STATE))
                        .expressionAttributeValues(Map.of(":rr", s(Authorisations.STATE_RELEASE_REQUESTED), ":one", n(1)))).build(),
                TransactWriteItem.builder().conditionCheck(c -> c.tableName(t.settlements())
                        .key(Map.of(Settlements.AUTHORISATION_ID, s("x")))
                        .conditionExpression("attribute_not_exists(authorisationId)")).build(),
                TransactWriteItem.builder().put(p -> p.tableName(t.releaseCommands()).item(Map.of(
                        ReleaseCommands.OPERATION_ID, s("release-hold:x"), ReleaseCommands.DELIVERY_SHARD, s(Shards.key(0)),
                        ReleaseCommands.CREATED_AT, n(T0.toEpochMilli())))).build())))
                .isInstanceOf(TransactionCanceledException.class);

        assertThat(ingestion.authorisation("x")).isEqualTo(before);
        QueryResponse pending = dynamo.query(b -> b.tableName(t.authorisations()).indexName(Authorisations.PENDING_BY_AGE)
                .keyConditionExpression("pendingShard = :shard").expressionAttributeValues(Map.of(":shard", s(Shards.key(0)))));
        assertThat(pending.items()).containsExactly(before);
        QueryResponse commands = dynamo.query(b -> b.tableName(t.releaseCommands()).indexName(ReleaseCommands.PENDING_DELIVERY)
                .keyConditionExpression("deliveryShard = :shard").expressionAttributeValues(Map.of(":shard", s(Shards.key(0)))));
        assertThat(commands.items()).isEmpty();
    }

    @Test
    void aCommittedTransactionMovesTheItemOutOfTheSparseIndexAtOnce(LocalDynamo.Engine engine) {
        DynamoDbClient dynamo = engine.client();
        TableNames t = engine.tables();
        Ingestion ingestion = new Ingestion(dynamo, t, 1);
        ingestion.authorise("x", 1_000, T0.minusSeconds(3_600));

        dynamo.transactWriteItems(b -> b.transactItems(TransactWriteItem.builder().update(u -> u.tableName(t.authorisations())
                .key(Map.of(Authorisations.AUTHORISATION_ID, s("x")))
                .updateExpression("SET #state = :rr REMOVE pendingShard")
                .expressionAttributeNames(Map.of("#state", Authorisations.STATE))
                .expressionAttributeValues(Map.of(":rr", s(Authorisations.STATE_RELEASE_REQUESTED)))).build()));

        // Emulator difference: a GSI is eventually consistent on AWS (the entry may linger briefly); moto's is immediate.
        QueryResponse pending = dynamo.query(b -> b.tableName(t.authorisations()).indexName(Authorisations.PENDING_BY_AGE)
                .keyConditionExpression("pendingShard = :shard").expressionAttributeValues(Map.of(":shard", s(Shards.key(0)))));
        assertThat(pending.items()).isEmpty();
    }

    @Test
    void aStronglyConsistentReadOfAGlobalIndexIsRefused(LocalDynamo.Engine engine) {
        DynamoDbClient dynamo = engine.client();
        TableNames t = engine.tables();

        assertThatThrownBy(() -> dynamo.query(b -> b.tableName(t.authorisations()).indexName(Authorisations.PENDING_BY_AGE)
                .consistentRead(true).keyConditionExpression("pendingShard = :shard")
                .expressionAttributeValues(Map.of(":shard", s(Shards.key(0))))))
                .isInstanceOfSatisfying(DynamoDbException.class,
                        e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException"));
    }

    // ---- helpers -----------------------------------------------------------------------------------

    private static TransactWriteItem leaseCheck(TableNames t, String owner, long epoch) {
        return TransactWriteItem.builder().conditionCheck(c -> c.tableName(t.leases())
                .key(Map.of(Leases.LEASE_NAME, s("job")))
                .conditionExpression("#owner = :owner AND epoch = :epoch")
                .expressionAttributeNames(Map.of("#owner", Leases.OWNER))
                .expressionAttributeValues(Map.of(":owner", s(owner), ":epoch", n(epoch)))
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)).build();
    }

    private static TransactWriteItem put(String table, String keyName, String id) {
        return TransactWriteItem.builder().put(p -> p.tableName(table).item(Map.of(keyName, s(id)))).build();
    }

    /** A non-idempotent transaction (ADD), so a second application is visible. */
    private static TransactWriteItemsRequest counterIncrement(TableNames t, String id) {
        return TransactWriteItemsRequest.builder().transactItems(TransactWriteItem.builder().update(u -> u
                .tableName(t.releaseCommands()).key(Map.of(ReleaseCommands.OPERATION_ID, s(id)))
                .updateExpression("ADD attempts :one").expressionAttributeValues(Map.of(":one", n(1)))).build()).build();
    }

    private static long counter(DynamoDbClient dynamo, TableNames t, String id) {
        Map<String, AttributeValue> item = item(dynamo, t.releaseCommands(), ReleaseCommands.OPERATION_ID, id);
        return item.containsKey(ReleaseCommands.ATTEMPTS) ? Long.parseLong(item.get(ReleaseCommands.ATTEMPTS).n()) : 0;
    }

    private static Map<String, AttributeValue> item(DynamoDbClient dynamo, String table, String keyName, String id) {
        Map<String, AttributeValue> item = dynamo.getItem(b -> b.tableName(table).key(Map.of(keyName, s(id))).consistentRead(true)).item();
        return item == null ? Map.of() : item;
    }
}
