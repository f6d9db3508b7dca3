package com.payments.reconciler.harness.bench;

import com.payments.reconciler.harness.local.InvocationHook;
import com.payments.reconciler.harness.local.ShiftableClock;
import com.payments.reconciler.delivery.DeliveryRequest;
import com.payments.reconciler.delivery.ShardPlan;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.LambdaFunction;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

/**
 * Shortens a night's delivery budget to {@code budget} without waiting hours: at the first DeliverCommands call of
 * each execution (before its shards plan), the handlers' clock is moved to {@code budget} before that execution's
 * {@code deliverUntil} (its {@code $$.Execution.StartTime}, which moto stamps in real time, plus the execution timeout
 * less the finish reserve). The reconcile phase runs on the unshifted clock; every shard of the execution plans
 * against the same shortened budget. In-process handlers only (they share the harness's clock). The hours skipped are
 * hours the card platform kept publishing: its settlement watermark is brought up to the moved clock, or delivery's feed
 * gate would rightly refuse a feed that went quiet for longer than {@code maxSettlementFeedLag}.
 */
final class BudgetShift implements InvocationHook {

    private final ShiftableClock clock;
    private final Duration budget;
    private final Runnable feedCaughtUp;
    private final Set<String> shifted = new HashSet<>();

    BudgetShift(ShiftableClock clock, Duration budget, Runnable feedCaughtUp) {
        this.clock = clock;
        this.budget = budget;
        this.feedCaughtUp = feedCaughtUp;
    }

    @Override
    public synchronized InjectedFailure before(LambdaFunction function, int invocation, byte[] payload) {
        if (function != LambdaFunction.DELIVER_COMMANDS) {
            return null;
        }
        DeliveryRequest request;
        try {
            request = Json.mapper().readValue(payload, DeliveryRequest.class);
        } catch (IOException e) {
            throw new IllegalStateException("a DeliverCommands payload the bench cannot read: " + e.getMessage(), e);
        }
        Instant start = request.executionStart()
                .orElseThrow(() -> new IllegalStateException("DeliverCommands without executionStartedAt: the ASL passes it"));
        // One shift per execution, before its first call: later calls and other shards keep the same budget.
        if (shifted.add(request.lease().ownerId())) {
            Instant target = ShardPlan.deliverUntil(start).minus(budget);
            clock.advance(Duration.between(clock.instant(), target));
            feedCaughtUp.run();
        }
        return null;
    }
}
