package com.payments.reconciler.delivery;

import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.Tables.Idempotency;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.workflow.IdempotencyAlreadyInProgress;
import com.payments.reconciler.workflow.OperationMismatch;
import com.payments.reconciler.workflow.StoreContention;
import com.payments.reconciler.workflow.Timing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static com.payments.reconciler.store.Attr.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The guard on Powertools against moto's DynamoDB: once per operation id, with the hazards of the notes closed. */
@ExtendWith(LocalDynamo.class)
class PowertoolsOperationGuardTest {

    private static final Duration REMAINING = Duration.ofSeconds(90);
    private final TestContext context = new TestContext(REMAINING);
    private final ExecutorService other = Executors.newSingleThreadExecutor();
    private final AtomicInteger runs = new AtomicInteger();
    private LocalDynamo.Engine engine;
    private DynamoDbClient dynamo;
    private PowertoolsOperationGuard guard;

    @BeforeEach
    void guard(LocalDynamo.Engine engine) {
        this.engine = engine;
        this.dynamo = engine.client();
        this.guard = new PowertoolsOperationGuard(engine.client(new InProgressExpiryFix(Clock.systemUTC())),
                engine.tables().idempotency(), Timing.IDEMPOTENCY_EXPIRY);
    }

    @AfterEach
    void stop() {
        other.shutdownNow();
    }

    private ProviderResult.Final release(String operationId, String fingerprint, String reference) {
        return guard.once(new GuardedOperation(operationId, fingerprint), context, ProviderResult.Final.class, () -> {
            runs.incrementAndGet();
            return new ProviderResult.Released(reference);
        });
    }

    @Test
    void theBodyRunsOnceAndRepeatsGetTheRecordedResult() {
        assertThat(release("op-1", "a|1|EUR", "PRV-1")).isEqualTo(new ProviderResult.Released("PRV-1"));
        assertThat(release("op-1", "a|1|EUR", "PRV-other")).isEqualTo(new ProviderResult.Released("PRV-1"));
        assertThat(runs).hasValue(1);
        assertThat(record("op-1").get("status").s()).isEqualTo("COMPLETED");
    }

    @Test
    void eachOperationIdHasItsOwnRecord() {
        assertThat(release("op-1", "a|1|EUR", "PRV-1")).isEqualTo(new ProviderResult.Released("PRV-1"));
        assertThat(release("op-2", "b|1|EUR", "PRV-2")).isEqualTo(new ProviderResult.Released("PRV-2"));
        assertThat(runs).hasValue(2);
        assertThat(PowertoolsOperationGuard.recordId("op-1")).isNotEqualTo(PowertoolsOperationGuard.recordId("op-2"));
    }

    @Test
    void aRefusalIsRecordedAndReturnedAsARefusal() {
        ProviderResult.Final refused = guard.once(new GuardedOperation("op-1", "a|1|EUR"), context, ProviderResult.Final.class,
                () -> new ProviderResult.Rejected("HOLD_NOT_FOUND", "no open hold"));

        assertThat(release("op-1", "a|1|EUR", "PRV-1")).isEqualTo(refused)
                .isEqualTo(new ProviderResult.Rejected("HOLD_NOT_FOUND", "no open hold"));
        assertThat(runs).hasValue(0);
    }

    @Test
    void theSameIdWithAnotherFingerprintIsAMismatchAndTheBodyDoesNotRun() {
        release("op-1", "a|1|EUR", "PRV-1");

        assertThatThrownBy(() -> release("op-1", "a|999|EUR", "PRV-2")).isInstanceOf(OperationMismatch.class)
                .hasMessageContaining("op-1");
        assertThat(runs).hasValue(1);
    }

    @Test
    void whenTheBodyThrowsNothingIsRecordedAndTheNextCallRunsIt() {
        assertThatThrownBy(() -> guard.once(new GuardedOperation("op-1", "a|1|EUR"), context, ProviderResult.Final.class,
                () -> {
                    throw new IllegalStateException("provider call failed");
                })).isInstanceOf(IllegalStateException.class).hasMessage("provider call failed");
        assertThat(record("op-1")).isEmpty();

        assertThat(release("op-1", "a|1|EUR", "PRV-1")).isEqualTo(new ProviderResult.Released("PRV-1"));
        assertThat(runs).hasValue(1);
    }

    @Test
    void whileOneInvocationRunsTheOperationAnotherIsAlreadyInProgressAndTheWindowFollowsTheContext() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        long before = Clock.systemUTC().millis();
        CompletableFuture<ProviderResult.Final> first = CompletableFuture.supplyAsync(() ->
                guard.once(new GuardedOperation("op-1", "a|1|EUR"), context, ProviderResult.Final.class, () -> {
                    running.countDown();
                    await(finish);
                    return new ProviderResult.Released("PRV-1");
                }), other);
        assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
        long after = Clock.systemUTC().millis();

        Map<String, AttributeValue> inProgress = record("op-1");
        assertThat(inProgress.get("status").s()).isEqualTo("INPROGRESS");
        long until = Long.parseLong(inProgress.get("in_progress_expiration").n());
        assertThat(until).as("now + the invocation's remaining time")
                .isBetween(before + REMAINING.toMillis(), after + REMAINING.toMillis());
        assertThatThrownBy(() -> release("op-1", "a|1|EUR", "PRV-2")).isInstanceOf(IdempotencyAlreadyInProgress.class)
                .hasMessageContaining("op-1");

        finish.countDown();
        assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(new ProviderResult.Released("PRV-1"));
        assertThat(release("op-1", "a|1|EUR", "PRV-3")).isEqualTo(new ProviderResult.Released("PRV-1"));
        assertThat(runs).hasValue(0);
    }

    @Test
    void concurrentCallsOverlapInTheirBodiesAndEveryRecordLandsUnderItsOwnId() throws Exception {
        int threads = 8;
        int operations = 48;
        CountDownLatch allRunningAtOnce = new CountDownLatch(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<ProviderResult.Final>> results = new ArrayList<>();
            for (int i = 0; i < operations; i++) {
                String op = "op-" + i;
                boolean firstWave = i < threads;
                results.add(pool.submit(() -> guard.once(new GuardedOperation(op, op + "|1|EUR"), context,
                        ProviderResult.Final.class, () -> {
                            runs.incrementAndGet();
                            if (firstWave) {
                                // Only possible if bodies run concurrently: the guard serialises bookkeeping, not bodies.
                                allRunningAtOnce.countDown();
                                await(allRunningAtOnce);
                            }
                            return new ProviderResult.Released("PRV-" + op);
                        })));
            }
            for (int i = 0; i < operations; i++) {
                assertThat(results.get(i).get(60, TimeUnit.SECONDS)).isEqualTo(new ProviderResult.Released("PRV-op-" + i));
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(runs).hasValue(operations);
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < operations; i++) {
            expected.add(PowertoolsOperationGuard.recordId("op-" + i));
        }
        List<Map<String, AttributeValue>> records = dynamo.scan(b -> b.tableName(engine.tables().idempotency())).items();
        assertThat(records).extracting(r -> r.get(Idempotency.ID).s()).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(records).allSatisfy(r -> assertThat(r.get("status").s()).isEqualTo("COMPLETED"));
    }

    @Test
    void oneGuardsCallsWriteTheirRecordsAtTheSameTime() throws Exception {
        FirstRecordWriteWaits waits = new FirstRecordWriteWaits();
        PowertoolsOperationGuard concurrent = new PowertoolsOperationGuard(
                engine.client(new InProgressExpiryFix(Clock.systemUTC()), waits), engine.tables().idempotency(), Timing.IDEMPOTENCY_EXPIRY);
        assertThat(twoCallsAtOnce(concurrent, waits)).as("the second call's record write arrived while the first's was in flight").isTrue();
        List<Map<String, AttributeValue>> records = dynamo.scan(b -> b.tableName(engine.tables().idempotency())).items();
        assertThat(records).extracting(r -> r.get(Idempotency.ID).s())
                .containsExactlyInAnyOrder(PowertoolsOperationGuard.recordId("op-a"), PowertoolsOperationGuard.recordId("op-b"));
        assertThat(records).allSatisfy(r -> assertThat(r.get("status").s()).isEqualTo("COMPLETED"));
    }

    /**
     * The check above fails where a call's record writes cannot overlap: here serialised in the store's client (the
     * semaphore is the first interceptor, so the second write waits before the overlap check sees it).
     */
    @Test
    void serialisedRecordWritesFailTheOverlapCheck() throws Exception {
        FirstRecordWriteWaits waits = new FirstRecordWriteWaits();
        PowertoolsOperationGuard serialised = new PowertoolsOperationGuard(
                engine.client(new InProgressExpiryFix(Clock.systemUTC()), new OneRecordWriteAtATime(), waits),
                engine.tables().idempotency(), Timing.IDEMPOTENCY_EXPIRY);
        assertThat(twoCallsAtOnce(serialised, waits)).isFalse();
    }

    /** Whether the second of two concurrent calls wrote its INPROGRESS record before the first's was answered; both complete. */
    private boolean twoCallsAtOnce(PowertoolsOperationGuard under, FirstRecordWriteWaits waits) throws Exception {
        ExecutorService two = Executors.newFixedThreadPool(2);
        try {
            List<Future<ProviderResult.Final>> calls = new ArrayList<>();
            for (String op : List.of("op-a", "op-b")) {
                calls.add(two.submit(() -> under.once(new GuardedOperation(op, op + "|1|EUR"), context, ProviderResult.Final.class,
                        () -> new ProviderResult.Released("PRV-" + op))));
            }
            for (int i = 0; i < calls.size(); i++) {
                assertThat(calls.get(i).get(60, TimeUnit.SECONDS)).isInstanceOf(ProviderResult.Released.class);
            }
        } finally {
            two.shutdownNow();
        }
        return waits.overlapped();
    }

    /** Holds the first INPROGRESS write until a second one arrives (or a bound passes, and then says it did not). */
    private static final class FirstRecordWriteWaits implements ExecutionInterceptor {
        private final AtomicInteger writes = new AtomicInteger();
        private final CountDownLatch second = new CountDownLatch(1);
        private volatile boolean overlapped;

        @Override
        public void beforeExecution(Context.BeforeExecution ctx, ExecutionAttributes attributes) {
            if (!(ctx.request() instanceof PutItemRequest)) {
                return;
            }
            if (writes.incrementAndGet() == 1) {
                try {
                    // A bound only for the serialised case, where the second write cannot come until this one is answered.
                    overlapped = second.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
            } else {
                second.countDown();
            }
        }

        boolean overlapped() {
            return overlapped;
        }
    }

    /** The known-bad: one record write at a time through the store's client. */
    private static final class OneRecordWriteAtATime implements ExecutionInterceptor {
        private final java.util.concurrent.Semaphore one = new java.util.concurrent.Semaphore(1);

        @Override
        public void beforeExecution(Context.BeforeExecution ctx, ExecutionAttributes attributes) {
            one.acquireUninterruptibly();
        }

        @Override
        public void afterExecution(Context.AfterExecution ctx, ExecutionAttributes attributes) {
            one.release();
        }

        @Override
        public void onExecutionFailure(Context.FailedExecution ctx, ExecutionAttributes attributes) {
            one.release();
        }
    }

    @Test
    void aContextIsRequired() {
        assertThatThrownBy(() -> guard.once(new GuardedOperation("op-1", "f"), null, String.class, () -> "x"))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("in-progress window");
    }

    @Test
    void theFixRewritesOnlyTheLibrarysSecondsComparison() {
        String condition = "attribute_not_exists(#id) OR #expiry < :now OR (attribute_exists(#in_progress_expiry) "
                + "AND #in_progress_expiry < :now AND #status = :inprogress)";
        assertThat(InProgressExpiryFix.SECONDS_COMPARISON.matcher(condition).replaceAll(InProgressExpiryFix.MILLISECONDS_COMPARISON))
                .isEqualTo("attribute_not_exists(#id) OR #expiry < :now OR (attribute_exists(#in_progress_expiry) "
                        + "AND #in_progress_expiry < :now_ms AND #status = :inprogress)");
        assertThat(InProgressExpiryFix.SECONDS_COMPARISON.matcher("#in_progress_expiry < :now_ms").find()).isFalse();
    }

    private Map<String, AttributeValue> record(String operationId) {
        return dynamo.getItem(b -> b.tableName(engine.tables().idempotency()).consistentRead(true)
                .key(Map.of(Idempotency.ID, s(PowertoolsOperationGuard.recordId(operationId))))).item();
    }

    /**
     * A write of an idempotency record can be refused with TransactionConflictException (DynamoDB's answer
     * to a PutItem, UpdateItem or DeleteItem on an item an in-flight transaction holds), which the SDK does not retry
     * and which refuses the write without applying it. Each record write tries again with the store's backoff: the
     * in-progress record, the result and the body run once.
     */
    @Test
    void aConflictOnTheIdempotencyRecordsIsRetriedAndTheBodyRunsOnce() {
        ConflictingRecordWrites conflicts = new ConflictingRecordWrites(2);
        PowertoolsOperationGuard conflicted = guardWith(conflicts);

        ProviderResult.Final result = conflicted.once(new GuardedOperation("op-1", "a|1|EUR"), context, ProviderResult.Final.class,
                () -> {
                    runs.incrementAndGet();
                    return new ProviderResult.Released("PRV-1");
                });

        assertThat(result).isEqualTo(new ProviderResult.Released("PRV-1"));
        assertThat(runs).hasValue(1);
        assertThat(record("op-1").get("status").s()).isEqualTo("COMPLETED");
        assertThat(conflicts.refused()).as("two refusals of the in-progress PutItem, two of the result's UpdateItem").isEqualTo(4);
    }

    /** The body's own error is what the call ends with, not a conflict on deleting its in-progress record. */
    @Test
    void aConflictOnDeletingTheRecordOfAFailedBodyIsRetriedAndTheBodysErrorStands() {
        ConflictingRecordWrites conflicts = new ConflictingRecordWrites(0);
        PowertoolsOperationGuard conflicted = guardWith(conflicts);

        assertThatThrownBy(() -> conflicted.once(new GuardedOperation("op-1", "a|1|EUR"), context, ProviderResult.Final.class,
                () -> {
                    conflicts.refuseNextWrites(2);
                    throw new IllegalStateException("provider call failed");
                })).isInstanceOf(IllegalStateException.class).hasMessage("provider call failed");
        assertThat(record("op-1")).as("the in-progress record was deleted").isEmpty();
        assertThat(conflicts.refused()).isEqualTo(2);
    }

    @Test
    void aConflictThatOutlivesTheRetriesIsStoreContentionNamingIt() {
        ConflictingRecordWrites conflicts = new ConflictingRecordWrites(Integer.MAX_VALUE);
        PowertoolsOperationGuard conflicted = guardWith(conflicts);

        assertThatThrownBy(() -> conflicted.once(new GuardedOperation("op-1", "a|1|EUR"), context, ProviderResult.Final.class,
                () -> new ProviderResult.Released("PRV-1")))
                .isInstanceOf(StoreContention.class).hasMessageContaining("op-1").hasMessageContaining("TransactionConflict");
        assertThat(conflicts.refused()).as("bounded: the in-progress PutItem, tried as often as the backoff allows")
                .isEqualTo(NO_WAIT.maxAttempts());
        assertThat(record("op-1")).isEmpty();
    }

    private static final Backoff NO_WAIT = new Backoff(5, d -> { }, 6, Duration.ofMillis(1), Duration.ofMillis(5));

    private PowertoolsOperationGuard guardWith(ConflictingRecordWrites conflicts) {
        return new PowertoolsOperationGuard(engine.client(new InProgressExpiryFix(Clock.systemUTC()), conflicts),
                engine.tables().idempotency(), Timing.IDEMPOTENCY_EXPIRY, NO_WAIT);
    }

    /** Refuses the next writes of each kind (PutItem, UpdateItem, DeleteItem) as DynamoDB does while a transaction holds the item. */
    private static final class ConflictingRecordWrites implements ExecutionInterceptor {
        private final Map<Class<?>, AtomicInteger> toRefuse = new ConcurrentHashMap<>();
        private final AtomicInteger refused = new AtomicInteger();
        private volatile int perKind;

        ConflictingRecordWrites(int perKind) {
            this.perKind = perKind;
        }

        /** From now on, the next {@code count} writes of each kind are refused. */
        void refuseNextWrites(int count) {
            toRefuse.clear();
            perKind = count;
        }

        int refused() {
            return refused.get();
        }

        @Override
        public void beforeExecution(Context.BeforeExecution ctx, ExecutionAttributes attributes) {
            SdkRequest request = ctx.request();
            if (!(request instanceof PutItemRequest || request instanceof UpdateItemRequest || request instanceof DeleteItemRequest)) {
                return;
            }
            AtomicInteger left = toRefuse.computeIfAbsent(request.getClass(), k -> new AtomicInteger(perKind));
            if (left.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                refused.incrementAndGet();
                throw TransactionConflictException.builder().message("Transaction is ongoing for the item").statusCode(400)
                        .awsErrorDetails(AwsErrorDetails.builder().errorCode("TransactionConflictException").build()).build();
            }
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("latch not released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
