package com.payments.reconciler.delivery;

import com.amazonaws.services.lambda.runtime.Context;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.testing.MutableClock;
import com.payments.reconciler.workflow.ProviderQuota;
import com.payments.reconciler.workflow.Timing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The facts a release depends on — its authorisation's settlement and end — are fresh when its request leaves
 * (docs/design.md §6): re-read after any wait, and never sent by a worker whose lease may have passed.
 */
@ExtendWith(LocalDynamo.class)
class FreshFactsAtTheCallTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private final TestContext context = new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT);
    private final ExecutorService background = Executors.newSingleThreadExecutor();
    private DeliveryWorld world;

    @AfterEach
    void close() {
        background.shutdownNow();
        if (world != null) {
            world.close();
        }
    }

    /**
     * Worker A read the command's facts (no settlement) and froze before its provider request; its lease ran out,
     * B took over, a settlement arrived and B ended the command CANCELLED_SETTLED. A wakes: it must send nothing.
     * Before the fix A's first request skipped the superseded check, and nothing checked the lease or the facts again.
     */
    @Test
    void aSenderFrozenAfterItsReadSendsNothingOnceANewerLeaderCancelledTheCommand(LocalDynamo.Engine engine) throws Exception {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken a = world.acquire("worker-A", Timing.LEASE_DURATION);
        String op = world.command(a, "auth-1").getFirst();
        MutableClock clockA = new MutableClock(world.clock.instant());
        CountDownLatch frozen = new CountDownLatch(1);
        CountDownLatch thawed = new CountDownLatch(1);
        DeliverCommandsHandler handlerA = world.handler(new FreezingGuard(world.fixedGuard(), frozen, thawed), 1, clockA);

        CompletableFuture<DeliveryBatch> callA = CompletableFuture.supplyAsync(() -> world.invoke(handlerA, a, 0, null, context), background);
        assertThat(frozen.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("A read the facts and reached its provider request").isTrue();
        world.clock.advance(Timing.LEASE_DURATION.plusSeconds(1));
        LeaseToken b = world.acquire("worker-B", Timing.LEASE_DURATION);
        assertThat(b.epoch()).isEqualTo(2);
        world.ingestion.settle("auth-1", world.clock.instant());
        world.invoke(world.handler(world.fixedGuard(), 1), b, 0, null, new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT, "request-B"));
        assertThat(world.status(op)).isEqualTo(ReleaseCommands.STATUS_CANCELLED_SETTLED);
        clockA.advance(Timing.LEASE_DURATION.plusSeconds(1));   // A wakes, its clock showing the time that passed
        thawed.countDown();

        Throwable failure = catchThrowable(() -> callA.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertThat(world.provider.effect(op).requests()).as("A sent nothing after the settlement").isZero();
        assertThat(world.status(op)).isEqualTo(ReleaseCommands.STATUS_CANCELLED_SETTLED);
        assertThat(failure).as("A ends superseded").isNotNull();
        assertThat(world.audit(false).violations()).isEmpty();
    }

    /** A Retry-After longer than the facts may be old: the settlement that arrived meanwhile is read before the retry. */
    @Test
    void aSettlementArrivingDuringARetryAfterWaitCancelsTheCommandInsteadOfSendingIt(LocalDynamo.Engine engine) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = world.acquire("worker-A", Timing.LEASE_DURATION);
        String op = world.command(lease, "auth-1").getFirst();
        AtomicBoolean throttledOnce = new AtomicBoolean();
        ProviderClient provider = command -> throttledOnce.compareAndSet(false, true)
                ? new ProviderResult.Throttled(429, Optional.of(Duration.ofSeconds(30)))
                : world.client().release(command);
        DeliveryPacing pacing = new DeliveryPacing(new ProviderQuota(10_000, 1_000), duration -> {
            if (duration.compareTo(Duration.ofSeconds(10)) >= 0) {
                world.ingestion.settle("auth-1", world.clock.instant());
            }
            world.clock.advance(duration);
        });

        world.invoke(world.handler(world.fixedGuard(), 1, provider, pacing), lease, 0, null, context);

        assertThat(throttledOnce).as("the first request was throttled").isTrue();
        assertThat(world.provider.effect(op).requests()).as("not sent after the settlement").isZero();
        assertThat(world.status(op)).isEqualTo(ReleaseCommands.STATUS_CANCELLED_SETTLED);
        assertThat(world.audit(false).violations()).isEmpty();
    }

    /** The provider's pace makes the second command wait longer than the facts may be old; it was voided meanwhile. */
    @Test
    void aVoidArrivingDuringAPacingWaitCancelsTheCommandInsteadOfSendingIt(LocalDynamo.Engine engine) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = world.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = world.command(lease, "auth-1", "auth-2");
        AtomicBoolean voided = new AtomicBoolean();
        // One request per 20 s: the second command's turn is 20 s after the first.
        DeliveryPacing pacing = new DeliveryPacing(new ProviderQuota(0.05, Timing.DELIVERY_MAP_CONCURRENCY), duration -> {
            if (world.provider.effect(ops.getFirst()).requests() > 0 && voided.compareAndSet(false, true)) {
                world.ingestion.end("auth-2", "authorisation.voided", world.clock.instant());
            }
            world.clock.advance(duration);
        });

        world.invoke(world.handler(world.fixedGuard(), 1, world.client(), pacing), lease, 0, null, context);

        assertThat(voided).as("auth-2 was voided while its request waited for its turn").isTrue();
        assertThat(world.status(ops.getFirst())).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        assertThat(world.provider.effect(ops.get(1)).requests()).as("not sent after the void").isZero();
        assertThat(world.status(ops.get(1))).isEqualTo("CANCELLED_ENDED");
        assertThat(world.audit(false).violations()).isEmpty();
    }

    /**
     * Freshness must not cost a read per round: the facts of many commands come in one strongly consistent
     * BatchGetItem (at most 100 keys in all, across both tables). 100 commands at parallelism 8 took 13 reads, one per
     * round; then 2 (50 commands, 100 keys each); since the read also takes each command's hold for feed and the
     * night-wide one (3 keys a command + 1), 3 (33 commands, 100 keys each), when no wait made any fact older than the limit.
     */
    @Test
    void theFactsOfAPageOfCommandsAreReadInThreeRequestsNotOnePerRound(LocalDynamo.Engine engine) {
        world = new DeliveryWorld(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = world.acquire("worker-A", Timing.LEASE_DURATION);
        // One delivery page (99 commands: what one stamp transaction covers): three reads of up to 33 commands' keys.
        List<String> ops = world.command(lease, DeliveryWorld.ids("auth", Timing.DELIVERY_BATCH_SIZE).toArray(String[]::new));
        List<Integer> keysPerRead = new CopyOnWriteArrayList<>();
        List<Boolean> consistent = new CopyOnWriteArrayList<>();
        ExecutionInterceptor reads = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(software.amazon.awssdk.core.interceptor.Context.BeforeExecution execution, ExecutionAttributes attributes) {
                if (execution.request() instanceof BatchGetItemRequest batch) {
                    keysPerRead.add(batch.requestItems().values().stream().mapToInt(k -> k.keys().size()).sum());
                    consistent.add(batch.requestItems().values().stream().allMatch(KeysAndAttributes::consistentRead));
                }
            }
        };

        DeliveryBatch result = world.invoke(world.handlerReadingThrough(world.fixedGuard(), Timing.DELIVERY_PARALLELISM, world.client(),
                DeliveryWorld.UNMETERED, reads), lease, 0, null, context);

        assertThat(result.totals().delivered()).isEqualTo(Timing.DELIVERY_BATCH_SIZE);
        assertThat(ops).allSatisfy(op -> assertThat(world.provider.effect(op).requests()).isEqualTo(1));
        assertThat(keysPerRead).as("keys per BatchGetItem").hasSize(3).allSatisfy(keys -> assertThat(keys).isLessThanOrEqualTo(100));
        assertThat(consistent).containsOnly(true);
    }

    /** Freezes the delivery thread inside the guard, after the facts were read and before the provider request. */
    private record FreezingGuard(OperationGuard inner, CountDownLatch frozen, CountDownLatch thawed) implements OperationGuard {
        @Override
        public <T> T once(GuardedOperation operation, Context context, Class<T> resultType, Supplier<T> body) {
            frozen.countDown();
            try {
                if (!thawed.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                    throw new IllegalStateException("never thawed");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return inner.once(operation, context, resultType, body);
        }

        @Override
        public <T> Optional<T> recorded(GuardedOperation operation, Class<T> resultType) {
            return inner.recorded(operation, resultType);
        }
    }
}
