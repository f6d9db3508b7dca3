package com.payments.reconciler.delivery;

import com.payments.reconciler.audit.InvariantAudit;
import com.payments.reconciler.audit.ProviderEffect;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.faults.DynamoFaults;
import com.payments.reconciler.local.provider.Fault;
import com.payments.reconciler.local.provider.Gate;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.lease.LeaseStore;
import com.payments.reconciler.reconcile.FencedWriter;
import com.payments.reconciler.store.Tables.Idempotency;
import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.LaggingIndex;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.testing.MutableClock;
import com.payments.reconciler.workflow.IdempotencyAlreadyInProgress;
import com.payments.reconciler.workflow.InvalidInput;
import com.payments.reconciler.workflow.LeaseLost;
import com.payments.reconciler.workflow.ProviderUnavailable;
import com.payments.reconciler.workflow.StoreContention;
import com.payments.reconciler.workflow.Timing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.lambda.powertools.idempotency.exceptions.IdempotencyInconsistentStateException;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static com.payments.reconciler.store.Attr.n;
import static com.payments.reconciler.store.Attr.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

@ExtendWith(LocalDynamo.class)
class DeliverCommandsHandlerTest {

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

    private DeliveryWorld world(LocalDynamo.Engine engine, SimulatedProvider.Builder provider, int shards) {
        world = new DeliveryWorld(engine, provider, shards);
        return world;
    }

    @Test
    void everyPendingCommandIsDeliveredOnceAcrossSeveralIndexPagesAndMarkedDelivered(LocalDynamo.Engine engine) {
        DeliveryWorld w = world(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
        int count = Timing.DELIVERY_BATCH_SIZE + 30;
        List<String> ops = w.command(lease, DeliveryWorld.ids("auth", count).toArray(String[]::new));

        DeliveryBatch result = w.invoke(w.handler(w.fixedGuard(), Timing.DELIVERY_PARALLELISM), lease, 0, null, context);

        assertThat(result).usingRecursiveComparison().ignoringFields("plan").isEqualTo(new DeliveryBatch(false, new DeliveryTotals(1, count, 0, count)));
        assertThat(w.provider.effects()).hasSize(count).allSatisfy(effect -> {
            assertThat(effect.performed()).isEqualTo(1);
            assertThat(effect.requests()).isEqualTo(1);
        });
        for (String op : ops) {
            Map<String, AttributeValue> command = w.command(op);
            assertThat(command.get(ReleaseCommands.STATUS).s()).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
            assertThat(command.get(ReleaseCommands.PROVIDER_REFERENCE).s()).matches("PRV-\\d{8}");
            assertThat(command.get(ReleaseCommands.DELIVERED_EPOCH).n()).isEqualTo("1");
            assertThat(command.get(ReleaseCommands.ATTEMPTS).n()).isEqualTo("1");
            assertThat(command).doesNotContainKey(ReleaseCommands.DELIVERY_SHARD);
        }
        InvariantAudit.Report report = w.audit(true);
        assertThat(report.violations()).isEmpty();
        assertThat(w.metricLines).anySatisfy(line -> assertThat(line).contains("\"Deliveries\":" + count));
    }

    @Test
    void aCallDeliversOnlyItsOwnShard(LocalDynamo.Engine engine) {
        DeliveryWorld w = world(engine, SimulatedProvider.builder(), 2);
        LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = w.command(lease, DeliveryWorld.ids("auth", 10).toArray(String[]::new));
        List<String> shardZero = ops.stream()
                .filter(op -> w.command(op).get(ReleaseCommands.DELIVERY_SHARD).s().equals("0")).toList();
        assertThat(shardZero).isNotEmpty().hasSizeLessThan(ops.size());

        DeliveryBatch result = w.invoke(w.handler(w.fixedGuard(), 4), lease, 0, null, context);

        assertThat(result.totals().delivered()).isEqualTo(shardZero.size());
        assertThat(w.provider.effects()).extracting(com.payments.reconciler.local.provider.ProviderEffect::operationId)
                .containsExactlyInAnyOrderElementsOf(shardZero);
    }

    @Test
    void aPermanentRefusalMarksTheCommandRejectedWithItsReasonAndIsNotRetried(LocalDynamo.Engine engine) {
        DeliveryWorld w = world(engine, SimulatedProvider.builder().unknownHolds(Set.of("closed-1")), 1);
        LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = w.command(lease, "open-1", "closed-1", "open-2");
        DeliverCommandsHandler handler = w.handler(w.fixedGuard(), 2);

        DeliveryBatch first = w.invoke(handler, lease, 0, null, context);
        DeliveryBatch second = w.invoke(handler, lease, 0, first, context);

        assertThat(first).usingRecursiveComparison().ignoringFields("plan").isEqualTo(new DeliveryBatch(false, new DeliveryTotals(1, 2, 1, 3)));
        assertThat(second).usingRecursiveComparison().ignoringFields("plan").isEqualTo(new DeliveryBatch(false, new DeliveryTotals(2, 2, 1, 3)));
        Map<String, AttributeValue> closed = w.command(ops.get(1));
        assertThat(closed.get(ReleaseCommands.STATUS).s()).isEqualTo(ReleaseCommands.STATUS_REJECTED);
        assertThat(closed.get(ReleaseCommands.REJECTION_REASON).s()).startsWith(SimulatedProvider.CODE_HOLD_NOT_FOUND + ": ");
        assertThat(w.provider.effect(ops.get(1)).requests()).isEqualTo(1);
        assertThat(w.provider.totalRequests()).isEqualTo(3);
        assertThat(w.audit(true).violations()).isEmpty();
    }

    @Test
    void performThenDropIsRecoveredByRetryingWithTheSameKeyAndThReleaseIsPerformedOnce(LocalDynamo.Engine engine) {
        DeliveryWorld w = world(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = w.command(lease, "auth-1", "auth-2");
        w.provider.forceNext(ops.getFirst(), Fault.PERFORM_THEN_DROP);

        DeliveryBatch result = w.invoke(w.handler(w.fixedGuard(), 2), lease, 0, null, context);

        assertThat(result).usingRecursiveComparison().ignoringFields("plan").isEqualTo(new DeliveryBatch(false, new DeliveryTotals(1, 2, 0, 3)));
        assertThat(w.provider.effect(ops.getFirst())).isEqualTo(
                new com.payments.reconciler.local.provider.ProviderEffect(ops.getFirst(), "auth-1", 1, 2));
        assertThat(w.command(ops.getFirst()).get(ReleaseCommands.ATTEMPTS).n()).isEqualTo("2");
        assertThat(w.status(ops.getFirst())).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        assertThat(w.audit(true).violations()).isEmpty();
    }

    @Test
    void aRetriedCallAfterCommittedWorkFindsNothingPendingAndMakesNoProviderCall(LocalDynamo.Engine engine) {
        DeliveryWorld w = world(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = w.command(lease, "auth-1", "auth-2", "auth-3");
        DeliverCommandsHandler handler = w.handler(w.fixedGuard(), 2);
        String sameInput = DeliveryWorld.input(w.window(), lease, 0, null);

        DeliveryWorld.invoke(handler, sameInput, context);          // committed; its response is lost
        long requestsAfterFirst = w.provider.totalRequests();
        DeliveryBatch retried = DeliveryWorld.invoke(handler, sameInput, context);

        assertThat(retried).usingRecursiveComparison().ignoringFields("plan").isEqualTo(new DeliveryBatch(false, new DeliveryTotals(1, 0, 0, 0)));
        assertThat(w.provider.totalRequests()).isEqualTo(requestsAfterFirst).isEqualTo(3);
        assertThat(w.effects()).extracting(ProviderEffect::performed).containsOnly(1);
        ops.forEach(op -> assertThat(w.status(op)).isEqualTo(ReleaseCommands.STATUS_DELIVERED));
    }

    @Test
    void whenTheInvocationFailsAfterTheProviderPerformedTheRetryIsAnsweredByTheGuardNotTheProvider(LocalDynamo.Engine engine) {
        DeliveryWorld w = world(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = w.command(lease, "auth-1", "auth-2");
        ExecutionInterceptor marksNeverLand = new ExecutionInterceptor() {
            @Override
            public void beforeTransmission(Context.BeforeTransmission ctx, ExecutionAttributes attributes) {
                // The marks, not the first-attempt stamp that goes before any request.
                if (ctx.request() instanceof TransactWriteItemsRequest tx && tx.transactItems().stream().noneMatch(item ->
                        item.update() != null && item.update().updateExpression().contains(ReleaseCommands.FIRST_ATTEMPT_AT))) {
                    throw SdkClientException.create("simulated: the store did not answer");
                }
            }
        };
        String sameInput = DeliveryWorld.input(w.window(), lease, 0, null);
        DeliverCommandsHandler failing = w.handler(w.fixedGuard(), 2, Timing.LEASE_DURATION, engine.client(marksNeverLand));

        assertThatThrownBy(() -> DeliveryWorld.invoke(failing, sameInput, context)).isInstanceOf(StoreContention.class);
        assertThat(w.provider.totalRequests()).isEqualTo(2);
        ops.forEach(op -> assertThat(w.status(op)).isEqualTo(ReleaseCommands.STATUS_PENDING));

        DeliveryBatch retried = DeliveryWorld.invoke(w.handler(w.fixedGuard(), 2), sameInput, context);

        assertThat(retried).usingRecursiveComparison().ignoringFields("plan").isEqualTo(new DeliveryBatch(false, new DeliveryTotals(1, 2, 0, 0)));
        assertThat(w.provider.totalRequests()).as("answered from the idempotency record").isEqualTo(2);
        assertThat(w.effects()).extracting(ProviderEffect::performed).containsOnly(1);
        ops.forEach(op -> assertThat(w.status(op)).isEqualTo(ReleaseCommands.STATUS_DELIVERED));
        assertThat(w.audit(true).violations()).isEmpty();
    }

    @Test
    void aWorkerWakingAfterATakeoverStartsNoFurtherDeliveryAndMarksNothing(LocalDynamo.Engine engine) throws Exception {
        DeliveryWorld w = world(engine, SimulatedProvider.builder(), 1);
        LeaseToken a = w.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = w.command(a, "auth-1", "auth-2", "auth-3", "auth-4", "auth-5");
        Gate third = w.provider.hold(ops.get(2));
        MutableClock clockA = new MutableClock(w.clock.instant());
        DeliverCommandsHandler handlerA = w.handler(w.fixedGuard(), 1, clockA);

        CompletableFuture<DeliveryBatch> callA = CompletableFuture.supplyAsync(
                () -> w.invoke(handlerA, a, 0, null, context), background);
        assertThat(third.awaitArrival(WAIT)).isTrue();          // A is paused (a GC pause) with the third release performed
        w.clock.advance(Timing.LEASE_DURATION.plusSeconds(1));
        LeaseToken b = w.acquire("worker-B", Timing.LEASE_DURATION);
        assertThat(b.epoch()).isEqualTo(2);
        long writesAtTakeover = engine.writes().getLast().seq();
        clockA.advance(Timing.LEASE_DURATION.plusSeconds(1));    // A wakes
        third.open();

        Throwable failure = catchThrowable(() -> callA.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertThat(failure.getCause()).isInstanceOf(LeaseLost.class).hasMessageContaining("newer epoch 2");
        assertThat(ops).as("A's answers were waiting for one batched mark; a superseded call marks nothing")
                .allSatisfy(op -> assertThat(w.status(op)).isEqualTo(ReleaseCommands.STATUS_PENDING));
        assertThat(w.provider.effect(ops.get(3)).requests()).as("no provider call once A knows it was superseded").isZero();
        assertThat(w.provider.effect(ops.get(4)).requests()).isZero();
        assertThat(engine.writes()).filteredOn(write -> write.seq() > writesAtTakeover)
                .noneSatisfy(write -> assertThat(write.operation()).isEqualTo("TransactWriteItems"));
        assertThat(w.audit(false).violations()).isEmpty();

        DeliveryBatch byB = w.invoke(w.handler(w.fixedGuard(), 2, Timing.LEASE_DURATION, w.dynamo), b, 0, null, context);

        assertThat(byB.totals().delivered()).isEqualTo(5);
        assertThat(ops.subList(0, 3)).as("B was answered by A's idempotency records")
                .allSatisfy(op -> assertThat(w.provider.effect(op).requests()).isEqualTo(1));
        ops.forEach(op -> assertThat(w.command(op).get(ReleaseCommands.DELIVERED_EPOCH).n()).isEqualTo("2"));
        assertThat(w.effects()).extracting(ProviderEffect::performed).containsOnly(1);
        assertThat(w.audit(true).violations()).isEmpty();
    }

    @Test
    void theLeaseIsRenewedWhileTheCallWaitsForADeliveryInFlight(LocalDynamo.Engine engine) throws Exception {
        DeliveryWorld w = world(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = w.command(lease, "auth-1", "auth-2", "auth-3");
        Gate second = w.provider.hold(ops.get(1));
        CountDownLatch renewed = new CountDownLatch(2);   // the renewal at the start, then one while waiting
        ExecutionInterceptor renewals = new ExecutionInterceptor() {
            @Override
            public void afterExecution(Context.AfterExecution ctx, ExecutionAttributes attributes) {
                if (ctx.request() instanceof UpdateItemRequest update && update.tableName().equals(engine.tables().leases())) {
                    renewed.countDown();
                }
            }
        };
        DeliverCommandsHandler handler = w.handlerBuilder(w.fixedGuard(), 1, w.client())
                .leases(new LeaseStore(engine.client(renewals), engine.tables().leases(), Timing.LEASE_DURATION)).build();

        CompletableFuture<DeliveryBatch> call = CompletableFuture.supplyAsync(
                () -> w.invoke(handler, lease, 0, null, context), background);
        assertThat(second.awaitArrival(WAIT)).isTrue();
        w.clock.advance(Timing.LEASE_RENEW_INTERVAL.plusSeconds(1));
        assertThat(renewed.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("renewed while waiting").isTrue();
        second.open();

        assertThat(call.get(WAIT.toSeconds(), TimeUnit.SECONDS).totals().delivered()).isEqualTo(3);
        Map<String, AttributeValue> leaseItem = w.dynamo.getItem(b -> b.tableName(engine.tables().leases()).consistentRead(true)
                .key(Map.of(Leases.LEASE_NAME, s(DeliveryWorld.LEASE)))).item();
        assertThat(Long.parseLong(leaseItem.get(Leases.RENEWED_AT).n())).isEqualTo(w.clock.millis());
        assertThat(Long.parseLong(leaseItem.get(Leases.EXPIRES_AT).n()))
                .isEqualTo(w.clock.instant().plus(Timing.LEASE_DURATION).toEpochMilli());
    }

    @Test
    void aLeaseAlreadyLostEndsTheCallBeforeAnyProviderCall(LocalDynamo.Engine engine) {
        DeliveryWorld w = world(engine, SimulatedProvider.builder(), 1);
        Duration shortLease = Duration.ofSeconds(30);
        LeaseToken a = w.acquire("worker-A", shortLease);
        w.command(a, "auth-1");
        w.clock.advance(shortLease.plusSeconds(1));
        w.acquire("worker-B", shortLease);

        assertThatThrownBy(() -> w.invoke(w.handler(w.fixedGuard(), 2), a, 0, null, context))
                .isInstanceOf(LeaseLost.class).hasMessageContaining("newer epoch 2");
        assertThat(w.provider.totalRequests()).isZero();
    }

    @Test
    void aProviderThatStaysUnavailableEndsTheCallAfterRecordingWhatSucceeded(LocalDynamo.Engine engine) {
        DeliveryWorld w = world(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = w.command(lease, "auth-1", "auth-2", "auth-3", "auth-4");
        for (int i = 0; i < DeliverCommandsHandler.PROVIDER_ATTEMPTS_PER_COMMAND; i++) {
            w.provider.forceNext(ops.get(1), Fault.ERROR_5XX);
        }
        DeliverCommandsHandler handler = w.handler(w.fixedGuard(), 1);

        assertThatThrownBy(() -> w.invoke(handler, lease, 0, null, context))
                .isInstanceOf(ProviderUnavailable.class).hasMessageContaining(ops.get(1)).hasMessageContaining("503");
        assertThat(w.status(ops.get(0))).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        assertThat(ops.subList(1, 4)).allSatisfy(op -> assertThat(w.status(op)).isEqualTo(ReleaseCommands.STATUS_PENDING));
        assertThat(w.provider.effect(ops.get(1)).performed()).isZero();
        assertThat(w.provider.effect(ops.get(2)).requests()).as("stopped starting deliveries").isZero();

        DeliveryBatch retried = w.invoke(handler, lease, 0, null, context);    // the workflow's retry, same input

        assertThat(retried).usingRecursiveComparison().ignoringFields("plan").isEqualTo(new DeliveryBatch(false, new DeliveryTotals(1, 3, 0, 3)));
        assertThat(w.provider.effect(ops.get(1))).isEqualTo(new com.payments.reconciler.local.provider.ProviderEffect(
                ops.get(1), "auth-2", 1, DeliverCommandsHandler.PROVIDER_ATTEMPTS_PER_COMMAND + 1));
        assertThat(w.audit(true).violations()).isEmpty();
    }

    @Test
    void aRecordLeftInProgressIsAlreadyInProgressUntilItsWindowPassesThenTheFixLetsTheRetryTakeOver(LocalDynamo.Engine engine) {
        DeliveryWorld w = world(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = w.command(lease, "auth-1", "auth-2");
        String stuck = ops.getFirst();
        long nowMs = Clock.systemUTC().millis();   // Powertools reads the wall clock
        seedInProgress(w, stuck, nowMs + Duration.ofMinutes(2).toMillis());
        InProgressExpiryFix fix = new InProgressExpiryFix(Clock.systemUTC());
        DeliverCommandsHandler fixed = w.handler(w.guard(fix), 2);

        assertThatThrownBy(() -> w.invoke(fixed, lease, 0, null, context))
                .isInstanceOf(IdempotencyAlreadyInProgress.class).hasMessageContaining(stuck);
        assertThat(w.status(ops.get(1))).as("the other command was delivered").isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        assertThat(w.provider.effect(stuck).requests()).isZero();

        // The invocation that wrote the record timed out: its in-progress window has passed.
        expireInProgress(w, stuck, nowMs - 1);

        DeliverCommandsHandler unfixed = w.handler(w.guard(), 2);
        Throwable bug = catchThrowable(() -> w.invoke(unfixed, lease, 0, null, context));
        assertThat(bug).as("bug #1281 without the fix: the expired record is never taken over")
                .isInstanceOf(IdempotencyAlreadyInProgress.class)
                .hasCauseInstanceOf(IdempotencyInconsistentStateException.class);
        assertThat(w.provider.effect(stuck).requests()).isZero();

        long rewrittenBefore = fix.rewritten();
        DeliveryBatch result = w.invoke(w.handler(w.guard(fix), 2), lease, 0, null, context);

        assertThat(fix.rewritten()).as("the fix rewrote the library's condition").isGreaterThan(rewrittenBefore);
        assertThat(result.totals().delivered()).isEqualTo(1);
        assertThat(w.status(stuck)).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        assertThat(w.provider.effect(stuck).performed()).isEqualTo(1);
        Map<String, AttributeValue> record = idempotencyRecord(w, stuck);
        assertThat(record.get("status").s()).isEqualTo("COMPLETED");
    }

    @Test
    void nearTheDeadlineTheCallStopsStartingDeliveriesAndAsksForMore(LocalDynamo.Engine engine) throws Exception {
        DeliveryWorld w = world(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = w.command(lease, "auth-1", "auth-2", "auth-3", "auth-4");
        Gate second = w.provider.hold(ops.get(1));
        DeliverCommandsHandler handler = w.handler(w.fixedGuard(), 1);

        CompletableFuture<DeliveryBatch> call = CompletableFuture.supplyAsync(
                () -> w.invoke(handler, lease, 0, null, context), background);
        assertThat(second.awaitArrival(WAIT)).isTrue();
        context.remaining(Timing.DEADLINE_MARGIN.minusSeconds(1));
        second.open();
        DeliveryBatch first = call.get(WAIT.toSeconds(), TimeUnit.SECONDS);

        assertThat(first).usingRecursiveComparison().ignoringFields("plan").isEqualTo(new DeliveryBatch(true, new DeliveryTotals(1, 2, 0, 2)));
        assertThat(w.provider.effect(ops.get(2)).requests()).isZero();

        context.remaining(Timing.DELIVER_COMMANDS_TIMEOUT);
        DeliveryBatch next = w.invoke(handler, lease, 0, first, context);

        assertThat(next).usingRecursiveComparison().ignoringFields("plan").isEqualTo(new DeliveryBatch(false, new DeliveryTotals(2, 4, 0, 4)));
        assertThat(w.audit(true).violations()).isEmpty();
    }

    @Test
    void aDryRunDeliversNothing(LocalDynamo.Engine engine) {
        DeliveryWorld w = world(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
        var window = new com.payments.reconciler.window.NightWindow("2026-12-01", DeliveryWorld.WINDOW_START,
                DeliveryWorld.CUTOFF, DeliveryWorld.GRACE, true, 1);

        DeliveryBatch result = DeliveryWorld.invoke(w.handler(w.fixedGuard(), 2),
                DeliveryWorld.input(window, lease, 0, null), context);

        assertThat(result).usingRecursiveComparison().ignoringFields("plan").isEqualTo(new DeliveryBatch(false, new DeliveryTotals(1, 0, 0, 0)));
        assertThat(w.provider.totalRequests()).isZero();
    }

    @Test
    void badInputIsRefusedNamingTheFieldBeforeAnythingHappens(LocalDynamo.Engine engine) {
        DeliveryWorld w = world(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
        w.command(lease, "auth-1");
        DeliverCommandsHandler handler = w.handler(w.fixedGuard(), 2);
        String good = DeliveryWorld.input(w.window(), lease, 0, null);

        assertThat(field(handler, good.replace("\"shard\":0", "\"shard\":1"))).isEqualTo("shard");
        assertThat(field(handler, good.replace("\"shard\":0", "\"shard\":\"0\""))).isEqualTo("shard");
        assertThat(field(handler, good.replace("\"epoch\":1", "\"epoch\":0"))).isEqualTo("lease.epoch");
        assertThat(field(handler, good.replace("\"batch\":null", "\"batch\":null,\"commands\":[]"))).isEqualTo("commands");
        assertThat(field(handler, "{\"window\":" + JsonHandlerAccess.window(w) + ",\"shard\":0,\"batch\":null}")).isEqualTo("lease");
        assertThat(w.provider.totalRequests()).isZero();
        assertThat(w.status(Candidates.op("auth-1"))).isEqualTo(ReleaseCommands.STATUS_PENDING);
    }

    /**
     * The workflow retries a DeliverCommands call whose response was lost; the retry (a new Lambda
     * invocation, a new request id) reads a lagging image of the pending-delivery index, so it faces the same
     * commands and marks the same batch at the same epoch. Its transaction differs from the first call's (its own
     * clock, no provider call), so reusing the first call's request token would cost an attempt in
     * IdempotentParameterMismatch; the fault layer gives moto DynamoDB's token rule.
     */
    @Test
    void aRetriedTaskAttemptFacingTheSameBatchDoesNotMeetIdempotentParameterMismatch(LocalDynamo.Engine engine) {
        DeliveryWorld w = world(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = w.command(lease, "auth-1", "auth-2");
        DynamoFaults tokens = DynamoFaults.builder(1).clock(w.clock).build();
        DeliverCommandsHandler handler = w.handlerBuilder(w.fixedGuard(), 1, w.client())
                .commands(new PendingCommands(engine.client(new LaggingIndex()), engine.tables().releaseCommands()))
                .writer(new FencedWriter(engine.clientWithoutBackoff(tokens), engine.tables(), DeliveryWorld.NO_WAIT)).build();
        String sameInput = DeliveryWorld.input(w.window(), lease, 0, null);

        DeliveryWorld.invoke(handler, sameInput, new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT, "invocation-1"));
        w.clock.advance(Duration.ofSeconds(40));
        DeliveryWorld.invoke(handler, sameInput, new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT, "invocation-2"));

        assertThat(tokens.tokenMismatches()).as("request tokens of the retried attempt refused by DynamoDB").isZero();
        assertThat(w.provider.totalRequests()).as("the retry was answered by the idempotency records").isEqualTo(2);
        ops.forEach(op -> assertThat(w.status(op)).isEqualTo(ReleaseCommands.STATUS_DELIVERED));
        ops.forEach(op -> assertThat(w.command(op).get(ReleaseCommands.ATTEMPTS).n()).as("marked once").isEqualTo("1"));
    }

    /**
     * The coordinating thread renews when due right after it took a delivery slot. A renewal failing
     * there with an error nobody classified (here AccessDenied, as a role missing UpdateItem would answer) must not
     * take the slot with it: the call stops starting deliveries, the one in flight finishes and is marked, and the
     * call ends with that error instead of waiting for the slot until the Lambda timeout. Every reading of the
     * worker's clock is a renewal interval later, so every check finds a renewal due and the fifth renewal is the
     * one after the second command's slot was taken (the start, then before and after each slot).
     */
    @Test
    void aRenewalThatFailsAfterASlotWasAcquiredDoesNotHangDelivery(LocalDynamo.Engine engine) {
        DeliveryWorld w = world(engine, SimulatedProvider.builder(), 1);
        LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
        List<String> ops = w.command(lease, "auth-1", "auth-2", "auth-3");
        // Stamped already, so the call reads no facts before its rounds: on a clock a renewal interval further on at every
        // reading no fact is ever fresh, and this is about the slots, not the facts.
        w.stampFirstAttempts(lease, ops, w.clock.instant());
        Clock everyReadingDue = new SteppingClock(w.clock.instant(), Timing.LEASE_RENEW_INTERVAL.plusSeconds(1));
        AtomicInteger renewals = new AtomicInteger();
        ExecutionInterceptor fifthRenewalRefused = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution ctx, ExecutionAttributes attributes) {
                if (ctx.request() instanceof UpdateItemRequest && renewals.incrementAndGet() == 5) {
                    throw DynamoDbException.builder().message("simulated: not authorized to perform dynamodb:UpdateItem")
                            .statusCode(400).awsErrorDetails(AwsErrorDetails.builder().errorCode("AccessDeniedException").build())
                            .build();
                }
            }
        };
        DeliverCommandsHandler handler = w.handlerBuilder(w.fixedGuard(), 2, w.client())
                .leases(new LeaseStore(engine.client(fifthRenewalRefused), engine.tables().leases(), Timing.LEASE_DURATION))
                .metrics(new EmfMetrics(everyReadingDue, "DeliverCommands", w.metricLines::add)).clock(everyReadingDue).build();

        // A hang detector only: the call ends in well under a second once the slot is released.
        Throwable failure = assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> catchThrowable(() -> w.invoke(handler, lease, 0, null, context)),
                "the call waited for a delivery slot that the failed renewal never gave back");

        assertThat(failure).isInstanceOf(DynamoDbException.class);
        assertThat(((DynamoDbException) failure).awsErrorDetails().errorCode()).isEqualTo("AccessDeniedException");
        assertThat(renewals).hasValueGreaterThanOrEqualTo(5);
        // Slots are taken a round at a time, so the refusal meets the round before any of its calls: whatever was sent
        // before it was marked, and nothing was sent after it.
        assertThat(ops).as("sent and marked, or not sent at all").allSatisfy(op -> {
            if (w.provider.effect(op).requests() == 0) {
                assertThat(w.status(op)).isEqualTo(ReleaseCommands.STATUS_PENDING);
            } else {
                assertThat(w.status(op)).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
            }
        });
        assertThat(ops.stream().filter(op -> w.provider.effect(op).requests() == 0)).as("no delivery started after the failed renewal")
                .isNotEmpty();
    }

    /** A clock that moves {@code step} forward at every reading. */
    private static final class SteppingClock extends Clock {
        private final AtomicReference<Instant> next;
        private final Duration step;

        SteppingClock(Instant start, Duration step) {
            this.next = new AtomicReference<>(start);
            this.step = step;
        }

        @Override
        public Instant instant() {
            return next.getAndUpdate(t -> t.plus(step));
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }


    private String field(DeliverCommandsHandler handler, String input) {
        Throwable thrown = catchThrowable(() -> DeliveryWorld.invoke(handler, input, context));
        assertThat(thrown).isInstanceOf(InvalidInput.class);
        return ((InvalidInput) thrown).field();
    }

    private static void seedInProgress(DeliveryWorld w, String operationId, long inProgressUntilMs) {
        PendingCommand command = PendingCommand.fromItem(w.command(operationId));
        w.dynamo.putItem(b -> b.tableName(w.engine.tables().idempotency()).item(Map.of(
                Idempotency.ID, s(PowertoolsOperationGuard.recordId(operationId)),
                "status", s("INPROGRESS"),
                Idempotency.EXPIRATION, n(Clock.systemUTC().instant().plus(Timing.IDEMPOTENCY_EXPIRY).getEpochSecond()),
                "in_progress_expiration", n(inProgressUntilMs),
                "validation", s(PowertoolsOperationGuard.validationHash(command.fingerprint())))));
    }

    private static void expireInProgress(DeliveryWorld w, String operationId, long inProgressUntilMs) {
        w.dynamo.updateItem(b -> b.tableName(w.engine.tables().idempotency())
                .key(Map.of(Idempotency.ID, s(PowertoolsOperationGuard.recordId(operationId))))
                .updateExpression("SET in_progress_expiration = :until")
                .expressionAttributeValues(Map.of(":until", n(inProgressUntilMs))));
    }

    private static Map<String, AttributeValue> idempotencyRecord(DeliveryWorld w, String operationId) {
        return w.dynamo.getItem(b -> b.tableName(w.engine.tables().idempotency()).consistentRead(true)
                .key(Map.of(Idempotency.ID, s(PowertoolsOperationGuard.recordId(operationId))))).item();
    }

    private static final class Candidates {
        static String op(String authorisationId) {
            return com.payments.reconciler.reconcile.Candidate.operationIdFor(authorisationId);
        }
    }

    private static final class JsonHandlerAccess {
        static String window(DeliveryWorld w) {
            return com.payments.reconciler.workflow.JsonHandler.json().valueToTree(w.window()).toString();
        }
    }
}
