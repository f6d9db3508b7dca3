package com.payments.reconciler.local.faults;

import com.payments.reconciler.local.LocalClients;
import com.payments.reconciler.local.moto.MotoServer;
import com.payments.reconciler.local.moto.WriteLog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.IdempotentParameterMismatchException;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.ThrottlingException;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The fault layer against moto through the real SDK: what is applied, what the caller sees, what is counted. */
class DynamoFaultsTest {

    private static final String TABLE = "faults-test";
    private static MotoServer moto;

    private final List<DynamoDbClient> opened = new ArrayList<>();
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-01T02:00:00Z"));
    private final InstantSource clock = () -> now.get();
    private final AttemptCounter attempts = new AttemptCounter();
    private DynamoDbClient plain;

    @BeforeAll
    static void start() {
        moto = MotoServer.start(Path.of(System.getProperty("reconciler.target", "target")).resolve("moto-faults"));
    }

    @AfterAll
    static void stop() {
        moto.close();
    }

    @BeforeEach
    void table() {
        moto.reset();
        plain = client();
        plain.createTable(b -> b.tableName(TABLE).billingMode(BillingMode.PAY_PER_REQUEST)
                .keySchema(k -> k.attributeName("id").keyType(KeyType.HASH))
                .attributeDefinitions(a -> a.attributeName("id").attributeType(ScalarAttributeType.S)));
    }

    @AfterEach
    void close() {
        opened.forEach(DynamoDbClient::close);
    }

    @Test
    void aThrottledAttemptIsNotAppliedAndTheSdkRetriesItAsThrottling() {
        DynamoFaults faults = DynamoFaults.builder(1).build();
        DynamoDbClient dynamo = client(attempts, faults);
        faults.inject(DynamoOperation.UPDATE_ITEM, 1, Fault.PROVISIONED_THROUGHPUT_EXCEEDED);

        increment(dynamo, "a");

        assertThat(counter("a")).isEqualTo(1);
        assertThat(attempts.sent()).as("first attempt refused before sending, the retry sent").isEqualTo(1);
        assertThat(attempts.started()).isEqualTo(2);
        assertThat(faults.counts()).containsEntry(Fault.PROVISIONED_THROUGHPUT_EXCEEDED, 1L).containsEntry(Fault.RESPONSE_LOST, 0L);
        assertThat(faults.count(Fault.PROVISIONED_THROUGHPUT_EXCEEDED, DynamoOperation.UPDATE_ITEM)).isEqualTo(1);
    }

    @Test
    void throttlingOnEveryAttemptReachesTheCallerAndNothingIsApplied() {
        DynamoFaults faults = DynamoFaults.builder(1).build();
        DynamoDbClient dynamo = client(attempts, faults);
        faults.inject(DynamoOperation.UPDATE_ITEM, 3, Fault.THROTTLING);

        assertThatThrownBy(() -> increment(dynamo, "a"))
                .isInstanceOfSatisfying(ThrottlingException.class, e -> {
                    assertThat(e.isThrottlingException()).isTrue();
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ThrottlingException");
                });
        assertThat(attempts.started()).as("the SDK's standard policy: 3 attempts").isEqualTo(3);
        assertThat(attempts.sent()).isZero();
        assertThat(plain.getItem(b -> b.tableName(TABLE).key(key("a"))).hasItem()).isFalse();
        assertThat(new WriteLog(moto.endpoint()).entries()).isEmpty();
        assertThat(faults.counts()).containsEntry(Fault.THROTTLING, 3L);
    }

    @Test
    void aConflictCancelsTheWholeTransactionWithOneReasonPerItem() {
        DynamoFaults faults = DynamoFaults.builder(7).build();
        DynamoDbClient dynamo = client(attempts, faults);
        faults.inject(DynamoOperation.TRANSACT_WRITE_ITEMS, 1, Fault.TRANSACTION_CONFLICT);

        assertThatThrownBy(() -> dynamo.transactWriteItems(threeIncrements("x")))
                .isInstanceOfSatisfying(TransactionCanceledException.class, e -> {
                    List<String> codes = e.cancellationReasons().stream().map(CancellationReason::code).toList();
                    assertThat(codes).hasSize(3);
                    assertThat(codes).filteredOn("TransactionConflict"::equals).hasSize(1);
                    assertThat(codes).filteredOn("None"::equals).hasSize(2);
                    assertThat(e.getMessage()).contains("Transaction cancelled, please refer cancellation reasons");
                    assertThat(e.isThrottlingException()).isFalse();
                });
        assertThat(attempts.started()).as("the SDK does not retry a cancelled transaction").isEqualTo(1);
        assertThat(counter("x-0")).isZero();
        assertThat(counter("x-1")).isZero();
        assertThat(counter("x-2")).isZero();
        assertThat(faults.counts()).containsEntry(Fault.TRANSACTION_CONFLICT, 1L);
    }

    @Test
    void aLostResponseOfANonIdempotentUpdateIsAppliedTwiceByTheSdkRetryAsOnAws() {
        DynamoFaults faults = DynamoFaults.builder(1).build();
        DynamoDbClient dynamo = client(attempts, faults);
        faults.inject(DynamoOperation.UPDATE_ITEM, 1, Fault.RESPONSE_LOST);

        increment(dynamo, "a");

        assertThat(counter("a")).as("the hazard conditional writes guard against").isEqualTo(2);
        assertThat(attempts.sent()).isEqualTo(2);
        assertThat(faults.counts()).containsEntry(Fault.RESPONSE_LOST, 1L);
    }

    @Test
    void lostResponsesOnEveryAttemptEndAsAnIoErrorAfterEveryAttemptWasApplied() {
        DynamoFaults faults = DynamoFaults.builder(1).build();
        DynamoDbClient dynamo = client(attempts, faults);
        faults.inject(DynamoOperation.UPDATE_ITEM, 3, Fault.RESPONSE_LOST);

        assertThatThrownBy(() -> increment(dynamo, "a"))
                .isInstanceOf(SdkClientException.class)
                .hasRootCauseInstanceOf(IOException.class);
        assertThat(counter("a")).isEqualTo(3);
    }

    @Test
    void theSdkRetryOfATransactionWhoseResponseWasLostIsAnsweredFromItsTokenNotAppliedAgain() {
        DynamoFaults faults = DynamoFaults.builder(1).clock(clock).build();
        DynamoDbClient dynamo = client(attempts, faults);
        faults.inject(DynamoOperation.TRANSACT_WRITE_ITEMS, 1, Fault.RESPONSE_LOST);

        // No token given: the SDK generates one per call and keeps it across its retries.
        dynamo.transactWriteItems(threeIncrements("t"));

        assertThat(counter("t-0")).isEqualTo(1);
        assertThat(counter("t-2")).isEqualTo(1);
        assertThat(attempts.sent()).isEqualTo(2);
        assertThat(faults.tokenReplays()).isEqualTo(1);
        assertThat(faults.counts()).containsEntry(Fault.RESPONSE_LOST, 1L);
        assertThat(new WriteLog(moto.endpoint()).entries()).as("only the first attempt was applied").hasSize(1);
    }

    @Test
    void theSameTokenAndRequestWithinTenMinutesIsAnsweredWithoutBeingAppliedAndAfterwardsIsNew() {
        DynamoFaults faults = DynamoFaults.builder(1).clock(clock).build();
        DynamoDbClient dynamo = client(faults);
        TransactWriteItemsRequest request = threeIncrements("t").toBuilder().clientRequestToken("token-1").build();

        dynamo.transactWriteItems(request);
        now.set(now.get().plus(Duration.ofMinutes(10)));
        dynamo.transactWriteItems(request);
        assertThat(counter("t-1")).isEqualTo(1);
        assertThat(faults.tokenReplays()).isEqualTo(1);

        now.set(now.get().plusMillis(1));
        dynamo.transactWriteItems(request);
        assertThat(counter("t-1")).as("10 minutes after completion the token is new again").isEqualTo(2);
    }

    @Test
    void aDifferentRequestUnderAUsedTokenIsAMismatchAndNothingIsApplied() {
        DynamoFaults faults = DynamoFaults.builder(1).clock(clock).build();
        DynamoDbClient dynamo = client(faults);
        dynamo.transactWriteItems(threeIncrements("t").toBuilder().clientRequestToken("token-1").build());

        assertThatThrownBy(() -> dynamo.transactWriteItems(threeIncrements("other").toBuilder().clientRequestToken("token-1").build()))
                .isInstanceOfSatisfying(IdempotentParameterMismatchException.class,
                        e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("IdempotentParameterMismatchException"));
        assertThat(counter("other-0")).isZero();
        assertThat(faults.tokenMismatches()).isEqualTo(1);
    }

    @Test
    void aCancelledTransactionDoesNotUseUpItsToken() {
        DynamoFaults faults = DynamoFaults.builder(1).clock(clock).build();
        DynamoDbClient dynamo = client(faults);
        faults.inject(DynamoOperation.TRANSACT_WRITE_ITEMS, 1, Fault.TRANSACTION_CONFLICT);
        TransactWriteItemsRequest request = threeIncrements("t").toBuilder().clientRequestToken("token-1").build();

        assertThatThrownBy(() -> dynamo.transactWriteItems(request)).isInstanceOf(TransactionCanceledException.class);
        dynamo.transactWriteItems(request);

        assertThat(counter("t-0")).isEqualTo(1);
        assertThat(faults.tokenReplays()).isZero();
    }

    @Test
    void theScheduleIsAFunctionOfTheSeedAndTheRequestsNotOfTiming() {
        List<Long> first = scheduleOf(42);
        List<Long> second = scheduleOf(42);
        List<Long> other = scheduleOf(43);

        assertThat(first).isEqualTo(second);
        assertThat(first).isNotEqualTo(other);
        long faults = first.getLast();
        long attemptsMade = 200 + faults - first.stream().filter(n -> n < 0).count();
        assertThat((double) faults / attemptsMade).as("share of throttled attempts, configured 0.3").isBetween(0.2, 0.4);
    }

    @Test
    void disablingPausesTheScheduleButNotForcedFaults() {
        DynamoFaults faults = DynamoFaults.builder(3).probability(Fault.THROTTLING, 1.0, DynamoOperation.GET_ITEM).build();
        DynamoDbClient dynamo = client(faults);
        faults.disable();
        for (int i = 0; i < 20; i++) {
            dynamo.getItem(b -> b.tableName(TABLE).key(key("a")));
        }
        assertThat(faults.totalFaults()).isZero();

        faults.inject(DynamoOperation.GET_ITEM, 1, Fault.PROVISIONED_THROUGHPUT_EXCEEDED);
        dynamo.getItem(b -> b.tableName(TABLE).key(key("a")));
        assertThat(faults.counts()).containsEntry(Fault.PROVISIONED_THROUGHPUT_EXCEEDED, 1L).containsEntry(Fault.THROTTLING, 0L);
        assertThat(faults.pendingInjections()).isZero();

        faults.enable();
        assertThatThrownBy(() -> dynamo.getItem(b -> b.tableName(TABLE).key(key("a")))).isInstanceOf(ThrottlingException.class);
    }

    @Test
    void configurationErrorsNameTheFaultAndTheRule() {
        assertThatThrownBy(() -> DynamoFaults.builder(1).probability(Fault.TRANSACTION_CONFLICT, 0.1, DynamoOperation.UPDATE_ITEM))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TRANSACTION_CONFLICT").hasMessageContaining("UpdateItem");
        assertThatThrownBy(() -> DynamoFaults.builder(1).probability(Fault.THROTTLING, 1.5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("from 0 to 1");
        assertThatThrownBy(() -> DynamoFaults.builder(1).probability(Fault.THROTTLING, 0.6).probability(Fault.RESPONSE_LOST, 0.6).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not exceed 1");
        DynamoFaults faults = DynamoFaults.builder(1).build();
        assertThatThrownBy(() -> faults.inject(DynamoOperation.PUT_ITEM, 1, Fault.TRANSACTION_CONFLICT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PutItem");
        assertThatThrownBy(() -> DynamoFaults.builder(1).probability(Fault.ITEM_CONFLICT, 0.1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("itemConflict");
        assertThatThrownBy(() -> faults.inject(DynamoOperation.TRANSACT_WRITE_ITEMS, 1, Fault.ITEM_CONFLICT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TransactWriteItems");
        assertThatThrownBy(() -> faults.inject(DynamoOperation.PUT_ITEM, 0, Fault.THROTTLING))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1");
    }

    @Test
    void aSpecBuildsTheDynamoPart() {
        DynamoFaults faults = DynamoFaults.from(FaultSpec.parse("ddb-lost-response=1"), 5, clock);
        DynamoDbClient dynamo = client(attempts, faults);

        assertThatThrownBy(() -> increment(dynamo, "a")).isInstanceOf(SdkClientException.class);
        assertThat(faults.counts()).containsEntry(Fault.RESPONSE_LOST, 3L);
        assertThat(counter("a")).isEqualTo(3);
    }

    @Test
    void aWriteOnAnItemThatATransactionInFlightNamesIsRefusedWithTransactionConflictAndNothingIsApplied() throws Exception {
        DynamoFaults faults = DynamoFaults.builder(1).itemConflict(1.0).build();
        HoldTransaction hold = new HoldTransaction();
        DynamoDbClient transacting = client(faults, hold);
        DynamoDbClient writer = client(attempts, faults);
        Thread transaction = Thread.ofVirtual().start(() -> transacting.transactWriteItems(threeIncrements("t")));
        assertThat(hold.sent.await(30, TimeUnit.SECONDS)).isTrue();

        assertThatThrownBy(() -> increment(writer, "t-1"))
                .isInstanceOfSatisfying(TransactionConflictException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("TransactionConflictException");
                });
        assertThat(attempts.started()).as("the SDK's standard policy does not retry TransactionConflictException").isEqualTo(1);
        assertThatThrownBy(() -> writer.putItem(b -> b.tableName(TABLE).item(Map.of("id", AttributeValue.fromS("t-2"), "n", AttributeValue.fromN("9")))))
                .as("a Put's item holds the transaction's key").isInstanceOf(TransactionConflictException.class);
        assertThatThrownBy(() -> writer.deleteItem(b -> b.tableName(TABLE).key(key("t-0")))).isInstanceOf(TransactionConflictException.class);
        increment(writer, "other");
        assertThat(attempts.sent()).as("only the write on an item the transaction does not name was sent").isEqualTo(1);

        hold.release.countDown();
        transaction.join();
        increment(writer, "t-1");
        assertThat(counter("t-1")).as("the transaction's increment and the write after it; the refused ones applied nothing").isEqualTo(2);
        assertThat(counter("t-2")).isEqualTo(1);
        assertThat(counter("other")).isEqualTo(1);
        assertThat(faults.count(Fault.ITEM_CONFLICT, DynamoOperation.UPDATE_ITEM)).isEqualTo(1);
        assertThat(faults.count(Fault.ITEM_CONFLICT, DynamoOperation.PUT_ITEM)).isPositive();
        assertThat(faults.count(Fault.ITEM_CONFLICT, DynamoOperation.DELETE_ITEM)).isPositive();
        assertThat(faults.effects()).extracting(DynamoFaults.Effect::fault).containsOnly(Fault.ITEM_CONFLICT);
    }

    @Test
    void anItemConflictNeedsATransactionInFlightOnTheItemAndARateAboveZero() throws Exception {
        DynamoFaults off = DynamoFaults.builder(1).build();
        HoldTransaction hold = new HoldTransaction();
        DynamoDbClient transacting = client(off, hold);
        DynamoDbClient writer = client(off);
        Thread transaction = Thread.ofVirtual().start(() -> transacting.transactWriteItems(threeIncrements("t")));
        assertThat(hold.sent.await(30, TimeUnit.SECONDS)).isTrue();
        increment(writer, "t-1");
        hold.release.countDown();
        transaction.join();
        assertThat(off.totalFaults()).as("rate 0: the overlap alone refuses nothing").isZero();

        DynamoFaults on = DynamoFaults.builder(1).itemConflict(1.0).build();
        DynamoDbClient afterwards = client(on);
        afterwards.transactWriteItems(threeIncrements("u"));
        increment(afterwards, "u-1");
        assertThat(on.totalFaults()).as("the transaction had been answered: it holds nothing").isZero();
        assertThat(counter("u-1")).isEqualTo(2);
    }

    @Test
    void aLostAnswerCountsOnlyWhenItHidACommittedWrite() {
        DynamoFaults faults = DynamoFaults.builder(1).build();
        DynamoDbClient dynamo = client(faults);
        increment(dynamo, "a");
        faults.inject(DynamoOperation.GET_ITEM, 1, Fault.RESPONSE_LOST);
        dynamo.getItem(b -> b.tableName(TABLE).key(key("a")));
        faults.inject(DynamoOperation.UPDATE_ITEM, 1, Fault.RESPONSE_LOST);
        assertThatThrownBy(() -> dynamo.updateItem(b -> b.tableName(TABLE).key(key("a")).updateExpression("ADD #n :one")
                .conditionExpression("attribute_not_exists(id)")
                .expressionAttributeNames(Map.of("#n", "n")).expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1")))))
                .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException.class);
        assertThat(faults.count(Fault.RESPONSE_LOST, DynamoOperation.GET_ITEM)).as("a read changed nothing").isZero();
        assertThat(faults.count(Fault.RESPONSE_LOST, DynamoOperation.UPDATE_ITEM)).as("an error answer changed nothing").isZero();

        faults.inject(DynamoOperation.UPDATE_ITEM, 1, Fault.RESPONSE_LOST);
        increment(dynamo, "a");
        assertThat(faults.count(Fault.RESPONSE_LOST, DynamoOperation.UPDATE_ITEM)).isEqualTo(1);
        assertThat(faults.effects()).singleElement().satisfies(e -> assertThat(e.fault()).isEqualTo(Fault.RESPONSE_LOST));
    }

    @Test
    void eachCallerMeetsTheSameFaultsWhateverTheOrderOfOtherCallersAndWhateverElseTheRequestCarries() {
        SortedMap<String, List<String>> first = streamsOf(42, List.of("A", "B"));
        SortedMap<String, List<String>> second = streamsOf(42, List.of("B", "A"));
        SortedMap<String, List<String>> otherSeed = streamsOf(43, List.of("A", "B"));

        assertThat(first).isNotEmpty();
        assertThat(second).as("same seed, callers interleaved the other way, every request with fresh random content").isEqualTo(first);
        assertThat(otherSeed).as("the comparison tells two schedules apart").isNotEqualTo(first);
    }

    /** Two callers each update 30 items 3 times, each write carrying a random value; runs them caller by caller in {@code order}. */
    private SortedMap<String, List<String>> streamsOf(long seed, List<String> order) {
        AtomicReference<String> caller = new AtomicReference<>("");
        DynamoFaults faults = DynamoFaults.builder(seed).streamContext(caller::get)
                .probability(Fault.THROTTLING, 0.2, DynamoOperation.UPDATE_ITEM).build();
        DynamoDbClient dynamo = client(faults);
        for (String name : order) {
            caller.set(name);
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 30; i++) {
                    String id = name + "-" + i;
                    try {
                        dynamo.updateItem(b -> b.tableName(TABLE).key(key(id)).updateExpression("SET #o = :owner")
                                .expressionAttributeNames(Map.of("#o", "owner"))
                                .expressionAttributeValues(Map.of(":owner", AttributeValue.fromS(UUID.randomUUID().toString()))));
                    } catch (ThrottlingException throttledThrice) {
                        // part of the schedule
                    }
                }
            }
        }
        return faults.effectsByStream();
    }

    /** Registered after the fault layer: holds a TransactWriteItems attempt after the layer let it go, before it is sent. */
    private static final class HoldTransaction implements ExecutionInterceptor {
        final CountDownLatch sent = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            if ("TransactWriteItems".equals(attributes.getAttribute(software.amazon.awssdk.core.interceptor.SdkExecutionAttribute.OPERATION_NAME))) {
                sent.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** Faults injected so far after each of 200 reads (negated when the read failed after the SDK's retries). */
    private List<Long> scheduleOf(long seed) {
        DynamoFaults faults = DynamoFaults.builder(seed)
                .probability(Fault.PROVISIONED_THROUGHPUT_EXCEEDED, 0.3, DynamoOperation.GET_ITEM).build();
        DynamoDbClient dynamo = client(faults);
        List<Long> outcomes = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            String id = "k" + (i % 50);
            try {
                dynamo.getItem(b -> b.tableName(TABLE).key(key(id)));
                outcomes.add(faults.totalFaults());
            } catch (ProvisionedThroughputExceededException throttledThrice) {
                outcomes.add(-faults.totalFaults());
            }
        }
        outcomes.add(faults.totalFaults());
        return outcomes;
    }

    private static TransactWriteItemsRequest threeIncrements(String prefix) {
        List<TransactWriteItem> items = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String id = prefix + "-" + i;
            items.add(TransactWriteItem.builder().update(u -> u.tableName(TABLE).key(key(id))
                    .updateExpression("ADD #n :one").expressionAttributeNames(Map.of("#n", "n"))
                    .expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1")))).build());
        }
        return TransactWriteItemsRequest.builder().transactItems(items).build();
    }

    private static void increment(DynamoDbClient dynamo, String id) {
        dynamo.updateItem(b -> b.tableName(TABLE).key(key(id)).updateExpression("ADD #n :one")
                .expressionAttributeNames(Map.of("#n", "n")).expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1"))));
    }

    private long counter(String id) {
        Map<String, AttributeValue> item = plain.getItem(b -> b.tableName(TABLE).key(key(id)).consistentRead(true)).item();
        return item == null || !item.containsKey("n") ? 0 : Long.parseLong(item.get("n").n());
    }

    private static Map<String, AttributeValue> key(String id) {
        return Map.of("id", AttributeValue.fromS(id));
    }

    private DynamoDbClient client(ExecutionInterceptor... interceptors) {
        DynamoDbClient client = LocalClients.dynamo(moto.endpoint())
                .overrideConfiguration(o -> o.retryStrategy(ImmediateRetries.standard()).executionInterceptors(List.of(interceptors)))
                .build();
        opened.add(client);
        return client;
    }

    /** Registered before the fault layer: "started" sees every attempt, "sent" only those that went out on the wire. */
    private static final class AttemptCounter implements ExecutionInterceptor {
        private final AtomicInteger started = new AtomicInteger();
        private final AtomicInteger sent = new AtomicInteger();

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            started.incrementAndGet();
        }

        @Override
        public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
            sent.incrementAndGet();
        }

        int started() {
            return started.get();
        }

        int sent() {
            return sent.get();
        }
    }
}
