package com.payments.reconciler.lease;

import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.workflow.LeaseLost;
import com.payments.reconciler.workflow.StoreContention;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(LocalDynamo.class)
class LeaseStoreTest {

    private static final Duration DURATION = Duration.ofSeconds(30);
    private static final Instant T0 = Instant.parse("2026-12-02T02:00:00Z");

    @Test
    void firstAcquireStartsTheEpochAtOneAndTakeoverAdvancesIt(LocalDynamo.Engine engine) {
        LeaseStore store = new LeaseStore(engine.client(), engine.tables().leases(), DURATION);

        AcquireResult first = store.acquire("job", "run-a/1", T0);
        assertThat(first).isEqualTo(new AcquireResult.Acquired(new Lease("job", "run-a/1", 1, T0.plus(DURATION)), false));

        AcquireResult whileHeld = store.acquire("job", "run-b/1", T0.plusSeconds(29));
        assertThat(whileHeld).isEqualTo(new AcquireResult.Held("run-a/1", 1, T0.plus(DURATION)));

        AcquireResult takeover = store.acquire("job", "run-b/1", T0.plusSeconds(30));
        assertThat(takeover).isInstanceOf(AcquireResult.Acquired.class);
        assertThat(((AcquireResult.Acquired) takeover).lease().epoch()).isEqualTo(2);
    }

    @Test
    void renewKeepsTheEpochAndRefusesAStaleHolderNamingTheNewerEpoch(LocalDynamo.Engine engine) {
        LeaseStore store = new LeaseStore(engine.client(), engine.tables().leases(), DURATION);
        Lease a = ((AcquireResult.Acquired) store.acquire("job", "a", T0)).lease();

        Lease renewed = store.renew(a.token(), T0.plusSeconds(10));
        assertThat(renewed.epoch()).isEqualTo(1);
        assertThat(renewed.expiresAt()).isEqualTo(T0.plusSeconds(40));

        // Expired but not taken over: still ours, the epoch is what fences.
        assertThat(store.renew(a.token(), T0.plusSeconds(100)).epoch()).isEqualTo(1);

        store.acquire("job", "b", T0.plusSeconds(200));
        assertThatThrownBy(() -> store.renew(a.token(), T0.plusSeconds(201)))
                .isInstanceOf(LeaseLost.class)
                .hasMessageContaining("newer epoch 2")
                .hasMessageContaining("held by b");
    }

    @Test
    void releaseKeepsTheRecordAndTheEpochAndIsIdempotent(LocalDynamo.Engine engine) {
        LeaseStore store = new LeaseStore(engine.client(), engine.tables().leases(), DURATION);
        Lease a = ((AcquireResult.Acquired) store.acquire("job", "a", T0)).lease();

        store.release(a.token(), T0.plusSeconds(5));
        store.release(a.token(), T0.plusSeconds(6));

        Map<String, AttributeValue> item = leaseItem(engine);
        assertThat(item).doesNotContainKey(Leases.OWNER);
        assertThat(item.get(Leases.EPOCH).n()).isEqualTo("1");

        // Free again at once, and the counter continues rather than restarting (I5).
        Lease b = ((AcquireResult.Acquired) store.acquire("job", "b", T0.plusSeconds(7))).lease();
        assertThat(b.epoch()).isEqualTo(2);
        assertThatThrownBy(() -> store.release(a.token(), T0.plusSeconds(8))).isInstanceOf(LeaseLost.class);
    }

    @Test
    void aRetriedAcquireWhoseFirstResponseWasLostReturnsTheEpochAlreadyHeld(LocalDynamo.Engine engine) {
        AtomicInteger dropped = new AtomicInteger();
        ExecutionInterceptor loseFirstResponse = new ExecutionInterceptor() {
            @Override
            public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
                if (dropped.getAndIncrement() == 0) {
                    throw SdkClientException.create("lost response", new IOException("Connection reset"));
                }
            }
        };
        LeaseStore store = new LeaseStore(engine.client(loseFirstResponse), engine.tables().leases(), DURATION);

        AcquireResult result = store.acquire("job", "a", T0);

        assertThat(dropped.get()).as("the SDK re-sent after the lost response").isEqualTo(2);
        assertThat(result).isEqualTo(new AcquireResult.Acquired(new Lease("job", "a", 1, T0.plus(DURATION)), true));
        assertThat(leaseItem(engine).get(Leases.EPOCH).n()).as("no double bump").isEqualTo("1");
    }

    @Test
    void aWorkerThatLostTheLeaseAndReacquiresGetsANewIdentityAndEpoch(LocalDynamo.Engine engine) {
        LeaseStore store = new LeaseStore(engine.client(), engine.tables().leases(), DURATION);
        Lease a1 = ((AcquireResult.Acquired) store.acquire("job", "run-a/attempt-1", T0)).lease();
        store.acquire("job", "run-b/attempt-1", T0.plusSeconds(31));
        Lease a2 = ((AcquireResult.Acquired) store.acquire("job", "run-a/attempt-2", T0.plusSeconds(62))).lease();

        assertThat(a2.epoch()).isEqualTo(3);
        assertThatThrownBy(() -> store.renew(a1.token(), T0.plusSeconds(63))).isInstanceOf(LeaseLost.class);
    }

    /**
     * What a redriven task finds (docs/decisions.md, Redrive): the failed execution kept its lease, so the
     * restarted task presents the same owner and epoch. Renewal checks those two only, never expiry: after
     * expiry without a takeover the lease is still ours; after a takeover the epoch fences the redrive.
     */
    enum AfterTheFailure {
        NOTHING_AND_THE_REDRIVE_COMES_WITHIN_THE_LEASE(Duration.ofSeconds(10), 1),
        NOTHING_AND_THE_REDRIVE_COMES_DAYS_AFTER_EXPIRY(Duration.ofDays(3), 1),
        A_RERUN_TOOK_OVER_AFTER_EXPIRY(Duration.ofDays(3), 2),
        A_RERUN_TOOK_OVER_AND_HANDED_IT_BACK(Duration.ofDays(3), 2),
        A_RERUN_TOOK_OVER_AND_ITS_LEASE_EXPIRED_TOO(Duration.ofDays(3), 2),
        THE_FAILED_RUN_HANDED_IT_BACK_ITSELF(Duration.ofMinutes(1), 1);

        final Duration redriveAfter;
        final long currentEpoch;

        AfterTheFailure(Duration redriveAfter, long currentEpoch) {
            this.redriveAfter = redriveAfter;
            this.currentEpoch = currentEpoch;
        }

        void happen(LeaseStore store, LeaseToken failed) {
            Instant afterExpiry = T0.plus(DURATION).plusSeconds(1);
            switch (this) {
                case A_RERUN_TOOK_OVER_AFTER_EXPIRY, A_RERUN_TOOK_OVER_AND_ITS_LEASE_EXPIRED_TOO ->
                        assertThat(store.acquire("job", "rerun-1/b", afterExpiry)).isInstanceOf(AcquireResult.Acquired.class);
                case A_RERUN_TOOK_OVER_AND_HANDED_IT_BACK -> {
                    Lease rerun = ((AcquireResult.Acquired) store.acquire("job", "rerun-1/b", afterExpiry)).lease();
                    store.release(rerun.token(), afterExpiry.plusSeconds(5));
                }
                // The failure path before the redrive decision: ReleaseLeaseAfterFailure removed the owner.
                case THE_FAILED_RUN_HANDED_IT_BACK_ITSELF -> store.release(failed, T0.plusSeconds(5));
                default -> {
                }
            }
        }

        boolean renewalSucceeds() {
            return this == NOTHING_AND_THE_REDRIVE_COMES_WITHIN_THE_LEASE || this == NOTHING_AND_THE_REDRIVE_COMES_DAYS_AFTER_EXPIRY;
        }
    }

    @ParameterizedTest
    @EnumSource(AfterTheFailure.class)
    void aRedrivenTaskRenewsWithTheSameOwnerAndEpochUnlessTheLeaseWasTakenOverOrHandedBack(AfterTheFailure after, LocalDynamo.Engine engine) {
        LeaseStore store = new LeaseStore(engine.client(), engine.tables().leases(), DURATION);
        LeaseToken failed = ((AcquireResult.Acquired) store.acquire("job", "reconcile-2026-12-01/a", T0)).lease().token();
        after.happen(store, failed);
        Instant redrive = T0.plus(after.redriveAfter);

        if (after.renewalSucceeds()) {
            Lease renewed = store.renew(failed, redrive);
            assertThat(renewed).isEqualTo(new Lease("job", failed.ownerId(), 1, redrive.plus(DURATION)));
            // Renewed, it is held again: a rerun arriving now waits instead of taking over.
            assertThat(store.acquire("job", "rerun-1/c", redrive.plusSeconds(1))).isInstanceOf(AcquireResult.Held.class);
        } else {
            assertThatThrownBy(() -> store.renew(failed, redrive)).isInstanceOf(LeaseLost.class)
                    .hasMessageContaining("newer epoch " + after.currentEpoch);
        }
        assertThat(leaseItem(engine).get(Leases.EPOCH).n()).as("I5: the epoch never goes back").isEqualTo(Long.toString(after.currentEpoch));
    }

    @Test
    void aRedrivenAcquireLeaseWithTheMintedOwnerIdGetsBackTheEpochItAlreadyHeldEvenAfterExpiry(LocalDynamo.Engine engine) {
        LeaseStore store = new LeaseStore(engine.client(), engine.tables().leases(), DURATION);
        store.acquire("job", "reconcile-2026-12-01/a", T0);

        // The restarted AcquireLease has MintOwnerId's output as its input: the same owner id, no second bump.
        AcquireResult again = store.acquire("job", "reconcile-2026-12-01/a", T0.plus(Duration.ofDays(2)));

        assertThat(again).isEqualTo(new AcquireResult.Acquired(new Lease("job", "reconcile-2026-12-01/a", 1, T0.plus(DURATION)), true));
        assertThat(store.renew(((AcquireResult.Acquired) again).lease().token(), T0.plus(Duration.ofDays(2))).epoch()).isEqualTo(1);
    }

    private static Map<String, AttributeValue> leaseItem(LocalDynamo.Engine engine) {
        return engine.client().getItem(b -> b.tableName(engine.tables().leases()).consistentRead(true)
                .key(Map.of(Leases.LEASE_NAME, AttributeValue.fromS("job")))).item();
    }

    /**
     * DynamoDB answers TransactionConflictException to an UpdateItem on an item an in-flight transaction
     * holds (every fenced write checks the lease item). It must reach the workflow as StoreContention, which it
     * retries, on acquire, renew and release alike — not as an untyped DynamoDbException.
     */
    @Test
    void aConflictWithAnInFlightTransactionIsContentionOnEveryLeaseWrite(LocalDynamo.Engine engine) {
        LeaseStore clean = new LeaseStore(engine.client(), engine.tables().leases(), DURATION);
        AcquireResult.Acquired held = (AcquireResult.Acquired) clean.acquire("lease-conflict", "worker-A", T0);
        LeaseToken token = held.lease().token();
        ConflictingWrites conflicts = new ConflictingWrites(Integer.MAX_VALUE);
        LeaseStore conflicted = new LeaseStore(engine.client(conflicts), engine.tables().leases(), DURATION, NO_WAIT);

        assertThatThrownBy(() -> conflicted.renew(token, T0.plusSeconds(1))).isInstanceOf(StoreContention.class)
                .hasMessageContaining("renew lease lease-conflict").hasMessageContaining("TransactionConflict");
        assertThatThrownBy(() -> conflicted.acquire("lease-conflict", "worker-B", T0.plusSeconds(1))).isInstanceOf(StoreContention.class);
        assertThatThrownBy(() -> conflicted.release(token, T0.plusSeconds(1))).isInstanceOf(StoreContention.class);
        assertThat(conflicts.refused()).as("each write tried a bounded number of times").isEqualTo(3 * NO_WAIT.maxAttempts());
    }

    /**
     * A conflict with an in-flight transaction is momentary (the transaction holds the item for its own
     * duration) and refuses the write without applying it, so acquire, renew and release try again, with the store's
     * backoff, before they give up as StoreContention.
     */
    @Test
    void aLeaseWriteThatMeetsAnInFlightTransactionIsRetriedAndSucceeds(LocalDynamo.Engine engine) {
        ConflictingWrites conflicts = new ConflictingWrites(2);
        LeaseStore store = new LeaseStore(engine.client(conflicts), engine.tables().leases(), DURATION, NO_WAIT);

        AcquireResult acquired = store.acquire("lease-retry", "worker-A", T0);
        conflicts.refuseNext(2);
        Lease renewed = store.renew(((AcquireResult.Acquired) acquired).lease().token(), T0.plusSeconds(10));
        conflicts.refuseNext(2);
        store.release(renewed.token(), T0.plusSeconds(20));

        assertThat(acquired).isEqualTo(new AcquireResult.Acquired(new Lease("lease-retry", "worker-A", 1, T0.plus(DURATION)), false));
        assertThat(renewed.expiresAt()).isEqualTo(T0.plusSeconds(40));
        assertThat(engine.client().getItem(b -> b.tableName(engine.tables().leases()).consistentRead(true)
                .key(Map.of(Leases.LEASE_NAME, AttributeValue.fromS("lease-retry")))).item()).doesNotContainKey(Leases.OWNER);
        assertThat(conflicts.refused()).isEqualTo(6);
    }

    private static final Backoff NO_WAIT = new Backoff(3, d -> { }, 6, Duration.ofMillis(1), Duration.ofMillis(5));

    /** Refuses the next writes with TransactionConflictException, as DynamoDB does while a transaction holds the item. */
    private static final class ConflictingWrites implements ExecutionInterceptor {
        private final AtomicInteger toRefuse;
        private final AtomicInteger refused = new AtomicInteger();

        ConflictingWrites(int first) {
            this.toRefuse = new AtomicInteger(first);
        }

        void refuseNext(int count) {
            toRefuse.set(count);
        }

        int refused() {
            return refused.get();
        }

        @Override
        public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
            if (toRefuse.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                refused.incrementAndGet();
                throw TransactionConflictException.builder().message("Transaction is ongoing for the item").statusCode(400)
                        .awsErrorDetails(AwsErrorDetails.builder().errorCode("TransactionConflictException").build()).build();
            }
        }
    }
}
