package com.payments.reconciler.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.workflow.Metrics;
import com.payments.reconciler.workflow.ProviderQuota;
import com.payments.reconciler.workflow.ProviderUnavailable;
import com.payments.reconciler.workflow.Timing;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Delivery capacity at the handler: a shard's plan against the night's budget, throttling answers honoured, and a provider
 * that throttles for good treated as down. The world's clock moves only by the pacing's waits.
 */
@ExtendWith(LocalDynamo.class)
class DeliveryCapacityTest {

    static final ProviderQuota QUOTA = new ProviderQuota(40, 32);

    /** An execution start that leaves the night's delivery {@code left} before its deliverUntil, on the world's clock. */
    private static Instant startedWithBudgetLeft(DeliveryWorld w, Duration left) {
        return w.clock.instant().minus(Timing.EXECUTION_TIMEOUT).plus(Timing.DELIVERY_FINISH_RESERVE).plus(left);
    }

    /**
     * Every request leaves with its command's first attempt stamped, also when settled commands ended unsent free up the
     * plan's allowance and the call reaches past the page's stamped prefix. Before, only the prefix the plan allowed at
     * the page's start was stamped: the 5 commands past it were sent unstamped, and a lost answer among them would have
     * been re-sent blindly after the provider forgot its key.
     */
    @Test
    void everyCommandSentCarriesItsFirstAttemptAlsoPastThePlansFirstPrefix(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1)) {
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
            List<String> ids = List.of(ids(30));
            List<String> ops = w.command(lease, ids.toArray(String[]::new));
            for (String id : ids.subList(0, 5)) {
                w.ingestion.settle(id, w.clock.instant());
            }
            DeliveryPacing pacing = new DeliveryPacing(QUOTA, w.clock::advance);
            DeliverCommandsHandler handler = w.handler(w.fixedGuard(), 8, w.client(), pacing);
            Instant startedAt = startedWithBudgetLeft(w, Duration.ofMillis(500));

            DeliveryBatch result = w.invoke(handler, lease, 0, null, startedAt, new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT));

            assertThat(result.plan().allotment()).isEqualTo(20);
            assertThat(result.totals().delivered()).as("the settled five freed room for five past the first twenty").isEqualTo(20);
            List<String> sent = w.effects().stream().filter(e -> e.requests() > 0).map(e -> e.operationId()).toList();
            assertThat(sent).hasSize(20).contains(ops.get(24));
            assertThat(sent).allSatisfy(op -> assertThat(w.command(op)).as(op).containsKey(ReleaseCommands.FIRST_ATTEMPT_AT));
        }
    }

    @Test
    void aBacklogLargerThanTheBudgetDeliversWhatFitsOldestFirstAndEndsWithTheRestLeft(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1)) {
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
            List<String> ops = w.command(lease, ids(30));
            DeliveryPacing pacing = new DeliveryPacing(QUOTA, w.clock::advance);
            DeliverCommandsHandler handler = w.handler(w.fixedGuard(), 8, w.client(), pacing);
            // 40 requests/s for the one shard (one call at once), with 0.5 s of budget left: 20 fit, 10 do not.
            Instant startedAt = startedWithBudgetLeft(w, Duration.ofMillis(500));

            DeliveryBatch result = w.invoke(handler, lease, 0, null, startedAt, new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT));

            assertThat(result.more()).as("the shard's night is over: not a loop into the execution's timeout").isFalse();
            assertThat(result.plan().backlog()).isEqualTo(30);
            assertThat(result.plan().allotment()).isEqualTo(20);
            assertThat(result.totals().delivered()).isEqualTo(20);
            assertThat(result.totals().backlogLeft()).isEqualTo(10);
            assertThat(ops.subList(0, 20)).as("oldest first").allSatisfy(op -> assertThat(w.status(op)).isEqualTo(ReleaseCommands.STATUS_DELIVERED));
            assertThat(ops.subList(20, 30)).allSatisfy(op -> assertThat(w.status(op)).isEqualTo(ReleaseCommands.STATUS_PENDING));
            assertThat(w.metricLines).anySatisfy(line -> assertThat(line).contains("\"" + Metrics.BACKLOG_LEFT + "\":10"));
            assertThat(w.auditWithBacklog(10).violations()).as("the 10 the run declared are not lost").isEmpty();
            assertThat(w.auditWithBacklog(9).violations()).as("one more PENDING than declared is")
                    .singleElement().satisfies(v -> assertThat(v.invariant()).isEqualTo("I4"));

            // The next run drains the rest: a fresh budget, the same commands, nothing sent twice.
            DeliveryBatch next = w.invoke(handler, lease, 0, null, w.clock.instant(), new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT));
            assertThat(next.totals().delivered()).isEqualTo(10);
            assertThat(next.totals().backlogLeft()).isZero();
            assertThat(w.effects()).hasSize(30).allSatisfy(effect -> assertThat(effect.performed()).isEqualTo(1));
        }
    }

    /**
     * A backlog night where the oldest commands settled before delivery: cancelling them sends no request, so they leave
     * the plan's allotment to the commands sent. The first call ends at its first request (its Lambda time runs out), with
     * the 45 settled cancelled; the next call carries its totals and sends until the allotment of 40 is sent. Before, the
     * allotment counted every command ended: the 45 cancellations and the first delivery spent it, the first call ended the
     * shard's night with 1 delivered and 49 left PENDING while time and quota remained (its {@code more} as well as its
     * allowance to start counted the cancellations; each reverted alone fails this test).
     */
    @Test
    void settledCommandsCancelledOnABacklogNightLeaveTheAllotmentToCommandsSent(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1)) {
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
            List<String> ids = List.of(ids(95));
            List<String> ops = w.command(lease, ids.toArray(String[]::new));
            for (String id : ids.subList(0, 45)) {
                w.ingestion.settle(id, w.clock.instant());
            }
            TestContext firstCall = new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT, "invocation-1");
            HttpProviderClient real = w.client();
            AtomicInteger requests = new AtomicInteger();
            // The first call's deadline comes near at its first request, as when its Lambda time runs out: it ends with the
            // shard's night under way, and the next call goes on from its totals.
            ProviderClient endingTheFirstCall = command -> {
                if (requests.getAndIncrement() == 0) {
                    firstCall.remaining(Timing.DEADLINE_MARGIN.minusSeconds(1));
                }
                return real.release(command);
            };
            DeliverCommandsHandler handler = w.handler(w.fixedGuard(), 1, endingTheFirstCall, new DeliveryPacing(QUOTA, w.clock::advance));
            // 40 requests/s for the one shard (one call at once), with 1 s of budget left: 40 fit of the 95. More settled
            // commands than that are cancelled before the first request, so a plan counting every end would be spent after
            // the first call.
            Instant startedAt = startedWithBudgetLeft(w, Duration.ofMillis(1000));

            DeliveryBatch first = w.invoke(handler, lease, 0, null, startedAt, firstCall);

            assertThat(first.more()).as("the first call ended at its deadline, the shard is not done").isTrue();
            assertThat(first.plan().backlog()).isEqualTo(95);
            assertThat(first.plan().allotment()).isEqualTo(40);
            assertThat(first.totals().cancelledSettled()).isEqualTo(45);
            assertThat(first.totals().delivered()).isEqualTo(1);

            DeliveryBatch next = w.invoke(handler, lease, 0, first, startedAt,
                    new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT, "invocation-2"));

            assertThat(next.more()).isFalse();
            assertThat(next.totals().cancelledSettled()).isEqualTo(45);
            assertThat(next.totals().delivered()).as("the allotment went to commands sent, not to cancellations").isEqualTo(40);
            assertThat(next.totals().backlogLeft()).isEqualTo(10);
            assertThat(ops.subList(0, 45)).allSatisfy(op -> assertThat(w.status(op)).isEqualTo(ReleaseCommands.STATUS_CANCELLED_SETTLED));
            assertThat(ops.subList(45, 85)).as("oldest first").allSatisfy(op -> assertThat(w.status(op)).isEqualTo(ReleaseCommands.STATUS_DELIVERED));
            assertThat(ops.subList(85, 95)).allSatisfy(op -> assertThat(w.status(op)).isEqualTo(ReleaseCommands.STATUS_PENDING));
            assertThat(w.effects().stream().filter(e -> e.requests() > 0)).hasSize(40).allSatisfy(e -> assertThat(e.performed()).isEqualTo(1));
            assertThat(w.auditWithBacklog(10).violations()).isEmpty();
        }
    }

    /**
     * A quota whose concurrency leaves a call fewer slots than its parallelism (4 concurrent requests, 8 threads). A round
     * used to be the parallelism's commands, each holding a slot before any was sent: the fifth waited for a slot only a
     * sent command gives back, and every call hung, renewing its lease, to its timeout with nothing sent (a local night at
     * 8 concurrent requests over 4 shards delivered 0 of 1,712). The timeout below only turns that hang into a failure.
     */
    @Test
    void aConcurrencyShareBelowTheParallelismStillDeliversEveryCommand(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1)) {
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
            w.command(lease, ids(12));
            ProviderQuota fewSlots = new ProviderQuota(40, Timing.DELIVERY_MAP_CONCURRENCY);
            DeliverCommandsHandler handler = w.handler(w.fixedGuard(), 8, w.client(), new DeliveryPacing(fewSlots, w.clock::advance));

            DeliveryBatch result = assertTimeoutPreemptively(Duration.ofMinutes(2),
                    () -> w.invoke(handler, lease, 0, null, w.clock.instant(), new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT)));

            assertThat(result.more()).isFalse();
            assertThat(result.totals().delivered()).isEqualTo(12);
            assertThat(w.effects()).hasSize(12).allSatisfy(effect -> assertThat(effect.performed()).isEqualTo(1));
        }
    }

    @Test
    void aBacklogThatFitsIsDeliveredWholeAndReportsNoBacklog(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1)) {
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
            w.command(lease, ids(12));
            DeliverCommandsHandler handler = w.handler(w.fixedGuard(), 8, w.client(), new DeliveryPacing(QUOTA, w.clock::advance));
            Instant before = w.clock.instant();

            DeliveryBatch result = w.invoke(handler, lease, 0, null, before, new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT));

            assertThat(result.more()).isFalse();
            assertThat(result.plan().fitsAll()).isTrue();
            assertThat(result.totals().delivered()).isEqualTo(12);
            assertThat(result.totals().backlogLeft()).isZero();
            assertThat(Duration.between(before, w.clock.instant())).as("12 requests at 40/s: the pace was kept")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(11 * 25));
        }
    }

    @Test
    void throttlingIsWaitedOutAtItsRetryAfterWithTheSameKeyAndReported(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1)) {
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
            List<String> ops = w.command(lease, ids(4));
            AtomicInteger throttles = new AtomicInteger(3);
            HttpProviderClient real = w.client();
            List<Instant> sentAt = new ArrayList<>();
            ProviderClient throttling = command -> {
                synchronized (sentAt) {
                    sentAt.add(w.clock.instant());
                }
                return throttles.getAndDecrement() > 0 ? new ProviderResult.Throttled(429, Optional.of(Duration.ofSeconds(2)))
                        : real.release(command);
            };
            DeliverCommandsHandler handler = w.handler(w.fixedGuard(), 1, throttling, new DeliveryPacing(QUOTA, w.clock::advance));
            Instant before = w.clock.instant();

            DeliveryBatch result = w.invoke(handler, lease, 0, null, before, new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT));

            assertThat(result.totals().delivered()).isEqualTo(4);
            assertThat(result.totals().throttledAnswers()).isEqualTo(3);
            assertThat(result.totals().throttledMillis()).isEqualTo(6000);
            assertThat(Duration.between(sentAt.get(0), sentAt.get(1))).as("the Retry-After was honoured").isGreaterThanOrEqualTo(Duration.ofSeconds(2));
            ops.forEach(op -> assertThat(w.status(op)).isEqualTo(ReleaseCommands.STATUS_DELIVERED));
            assertThat(w.effects()).hasSize(4).allSatisfy(effect -> assertThat(effect.performed()).isEqualTo(1));
        }
    }

    @Test
    void aRetryAfterPastTheCallsDeadlineDefersTheCommandToTheNextCallWhichHonoursTheRest(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1)) {
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
            List<String> ops = w.command(lease, ids(1));
            AtomicInteger throttles = new AtomicInteger(1);
            HttpProviderClient real = w.client();
            ProviderClient throttling = command -> throttles.getAndDecrement() > 0
                    ? new ProviderResult.Throttled(503, Optional.of(Duration.ofMinutes(10))) : real.release(command);
            DeliverCommandsHandler handler = w.handler(w.fixedGuard(), 1, throttling, new DeliveryPacing(QUOTA, w.clock::advance));

            DeliveryBatch first = w.invoke(handler, lease, 0, null, w.clock.instant(), new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT));

            assertThat(first.more()).as("the shard is not done: the command waits for the next call").isTrue();
            assertThat(w.status(ops.getFirst())).isEqualTo(ReleaseCommands.STATUS_PENDING);
            assertThat(Instant.ofEpochMilli(first.plan().resumeAt())).isAfter(w.clock.instant());

            DeliveryBatch second = w.invoke(handler, lease, 0, first, w.clock.instant(), new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT.multipliedBy(10)));
            assertThat(second.more()).isFalse();
            assertThat(w.status(ops.getFirst())).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
            assertThat(w.effects()).hasSize(1).allSatisfy(effect -> assertThat(effect.performed()).isEqualTo(1));
        }
    }

    @Test
    void aProviderThatThrottlesForGoodIsDownAfterTheLimitWithTheCommandPending(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1)) {
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
            List<String> ops = w.command(lease, ids(1));
            ProviderClient alwaysThrottled = command -> new ProviderResult.Throttled(429, Optional.of(Duration.ofSeconds(30)));
            DeliverCommandsHandler handler = w.handler(w.fixedGuard(), 1, alwaysThrottled, new DeliveryPacing(QUOTA, w.clock::advance));
            // A context whose time does not run out: only the throttling limit can end the call.
            TestContext endless = new TestContext(Duration.ofDays(1));

            assertThatThrownBy(() -> w.invoke(handler, lease, 0, null, w.clock.instant(), endless))
                    .isInstanceOf(ProviderUnavailable.class).hasMessageContaining("throttled every request");
            assertThat(w.status(ops.getFirst())).isEqualTo(ReleaseCommands.STATUS_PENDING);
        }
    }

    static String[] ids(int count) {
        return DeliveryWorld.ids("auth", count).toArray(String[]::new);
    }
}
