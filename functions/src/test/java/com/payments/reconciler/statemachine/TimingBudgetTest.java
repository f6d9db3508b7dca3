package com.payments.reconciler.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.ErrorNames;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.Timing;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The timing budget of docs/design.md §10, proved from the shipped ASL and the constants the functions and the CDK
 * stack deploy ({@link Timing}, {@link LambdaFunction}). Each figure is printed so a change shows
 * how much margin it used.
 */
class TimingBudgetTest {

    private final Asl asl = Asl.shipped();

    @Test
    void eachTaskTimeoutExceedsItsLambdasOwnDeadlineHandling() {
        for (Asl.Located task : asl.tasks()) {
            LambdaFunction function = Asl.functionOf(task);
            long taskTimeout = task.state().path("TimeoutSeconds").asLong();
            assertThat(taskTimeout).as("%s TimeoutSeconds", task.name()).isEqualTo(Timing.taskTimeoutSeconds(function.timeout()));
            assertThat(Duration.ofSeconds(taskTimeout)).as(task.name()).isGreaterThan(function.timeout());
            assertThat(Timing.DEADLINE_MARGIN).as("%s stops new work before its Lambda deadline", function).isLessThan(function.timeout());
            System.out.printf("%-16s task timeout %3d s > Lambda timeout %3d s > deadline margin %d s%n", task.name(), taskTimeout,
                    function.timeout().toSeconds(), Timing.DEADLINE_MARGIN.toSeconds());
        }
    }

    @Test
    void aStuckExecutionTimesOutLongBeforeTheNextNightsRun() {
        long executionTimeout = asl.root.path("TimeoutSeconds").asLong();
        assertThat(executionTimeout).as("the ASL's top-level TimeoutSeconds").isEqualTo(Timing.EXECUTION_TIMEOUT.toSeconds());
        assertThat(Timing.EXECUTION_TIMEOUT).as("ends before the next window starts").isLessThan(Timing.SCHEDULE_PERIOD.dividedBy(2));
        long longestTask = asl.tasks().stream().mapToLong(t -> t.state().path("TimeoutSeconds").asLong()).max().orElseThrow();
        assertThat(Duration.ofSeconds(longestTask).plus(Timing.LEASE_DURATION).multipliedBy(10))
                .as("room for many pages, retries and a lease wait").isLessThan(Timing.EXECUTION_TIMEOUT);
        System.out.printf("execution timeout %d s < half the schedule period %d s%n", executionTimeout, Timing.SCHEDULE_PERIOD.dividedBy(2).toSeconds());
    }

    @Test
    void providerCallsFinishInsideTheDeadlineMarginOfTheDeliveryLambda() {
        Duration providerWorstCase = Timing.PROVIDER_CONNECT_TIMEOUT.plus(Timing.PROVIDER_REQUEST_TIMEOUT);
        assertThat(providerWorstCase).as("a call started just before the deadline check completes before the Lambda timeout")
                .isLessThan(Timing.DEADLINE_MARGIN);
        assertThat(providerWorstCase.multipliedBy(4)).as("well under the delivery Lambda timeout")
                .isLessThan(LambdaFunction.DELIVER_COMMANDS.timeout());
    }

    /**
     * A delivery request leaves only while the lease as last renewed outlives it by {@link Timing#LEASE_SEND_MARGIN}: the
     * margin covers the request's worst case (connect + request timeouts) with seconds to spare for clocks, and a call that
     * renews on its interval never comes that close. Known bad: a 5 s margin, shorter than a request may take.
     */
    @Test
    void aDeliveryRequestIsAnsweredBeforeTheLeaseItLeftUnderCanExpire() {
        assertThat(sendMarginProblems(Timing.LEASE_SEND_MARGIN, Timing.LEASE_RENEW_INTERVAL, Timing.LEASE_DURATION)).isEmpty();
        assertThat(sendMarginProblems(Duration.ofSeconds(5), Timing.LEASE_RENEW_INTERVAL, Timing.LEASE_DURATION))
                .containsExactly("a request may still be unanswered when the lease expires");
        assertThat(sendMarginProblems(Timing.LEASE_SEND_MARGIN, Duration.ofMinutes(5), Timing.LEASE_DURATION))
                .containsExactly("a call renewing on its interval would stop sending");
        System.out.printf("lease send margin %d s >= provider worst case %d s + 3 s; renew interval %d s + margin < lease %d s%n",
                Timing.LEASE_SEND_MARGIN.toSeconds(), Timing.PROVIDER_CONNECT_TIMEOUT.plus(Timing.PROVIDER_REQUEST_TIMEOUT).toSeconds(),
                Timing.LEASE_RENEW_INTERVAL.toSeconds(), Timing.LEASE_DURATION.toSeconds());
    }

    private static List<String> sendMarginProblems(Duration margin, Duration renewInterval, Duration lease) {
        List<String> problems = new java.util.ArrayList<>();
        if (margin.compareTo(Timing.PROVIDER_CONNECT_TIMEOUT.plus(Timing.PROVIDER_REQUEST_TIMEOUT).plusSeconds(3)) < 0) {
            problems.add("a request may still be unanswered when the lease expires");
        }
        if (renewInterval.plus(margin).compareTo(lease) >= 0) {
            problems.add("a call renewing on its interval would stop sending");
        }
        return problems;
    }

    @Test
    void theLeaseOutlivesTheLongestStretchBetweenTwoRenewals() {
        // Inside a task: renewal every LEASE_RENEW_INTERVAL, checked between decisions; one decision can take
        // all its in-function attempts, each bounded by the SDK's call timeout plus the backoff cap.
        Duration oneDecision = Duration.ofSeconds(10).plus(Timing.STORE_BACKOFF_CAP).multipliedBy(Timing.STORE_MAX_ATTEMPTS);
        Duration insideTask = Timing.LEASE_RENEW_INTERVAL.plus(oneDecision);
        assertThat(insideTask).as("inside a task").isLessThan(Timing.LEASE_DURATION);
        // Across tasks: each task renews first; the gap is one whole attempt plus the longest retry wait before the next.
        for (Asl.Located task : asl.tasks()) {
            LambdaFunction function = Asl.functionOf(task);
            long longestWait = Asl.list(task.state().path("Retry")).stream()
                    .mapToLong(r -> r.path("MaxDelaySeconds").asLong(r.path("IntervalSeconds").asLong(1))).max().orElse(0);
            Duration gap = function.timeout().plus(Timing.TASK_TIMEOUT_SLACK).plusSeconds(longestWait);
            assertThat(gap).as("%s: an attempt plus the longest retry wait", task.name()).isLessThan(Timing.LEASE_DURATION);
            System.out.printf("%-16s longest stretch without renewal %4d s < lease %d s%n", task.name(), gap.toSeconds(),
                    Timing.LEASE_DURATION.toSeconds());
        }
    }

    @Test
    void idempotencyRecordsOutliveEveryRetryOfTheDeliveryState() {
        Asl.Located deliver = asl.tasks().stream().filter(t -> Asl.functionOf(t) == LambdaFunction.DELIVER_COMMANDS).findFirst().orElseThrow();
        List<JsonNode> retriers = Asl.list(deliver.state().path("Retry"));
        long horizon = 0;
        for (JsonNode retrier : retriers) {
            horizon += horizonSeconds(retrier, deliver.state().path("TimeoutSeconds").asLong());
        }
        System.out.printf("delivery retry horizon %d s; idempotency expiry %d s%n", horizon, Timing.IDEMPOTENCY_EXPIRY.toSeconds());
        assertThat(Duration.ofSeconds(horizon)).as("a retry after success is answered from the record").isLessThan(Timing.IDEMPOTENCY_EXPIRY);

        // An invocation that died holds its records IN_PROGRESS until the in-progress window (its remaining
        // time, at most the Lambda timeout) ends; the retrier for that error must wait longer than that in total.
        JsonNode inProgress = retriers.stream().filter(r -> Asl.names(r).contains(ErrorNames.IDEMPOTENCY_ALREADY_IN_PROGRESS)).findFirst().orElseThrow();
        assertThat(inProgress.has("JitterStrategy") && !"NONE".equals(inProgress.path("JitterStrategy").asText()))
                .as("the in-progress retrier's waits are exact (no jitter), so their sum is guaranteed").isFalse();
        long waits = totalWaitSeconds(inProgress);
        System.out.printf("in-progress retrier waits %d s in total > in-progress window %d s%n", waits,
                LambdaFunction.DELIVER_COMMANDS.timeout().toSeconds());
        assertThat(waits).isGreaterThan(LambdaFunction.DELIVER_COMMANDS.timeout().toSeconds());
    }

    /**
     * A command performed but never marked can be redelivered by the next nights, by reruns and by a
     * redrive up to its horizon; each redelivery must still find our idempotency record, or not happen on its own.
     * The rule: a delivery starts only while its command is younger than AUTOMATIC_DELIVERY_HORIZON (older ones are
     * ESCALATED), that horizon covers the next night and a late redrive, and the records outlive it by a whole
     * retried delivery state.
     */
    @Test
    void everyAutomaticRedeliveryOfACommandStillFindsItsIdempotencyRecord() {
        List<String> broken = redeliveryBudgetBreaks(Timing.AUTOMATIC_DELIVERY_HORIZON, Timing.IDEMPOTENCY_EXPIRY);
        assertThat(broken).as("the redelivery budget").isEmpty();
    }

    /** The rule above can fail: the budget it replaced (records for 24 h, the schedule period) breaks it. */
    @Test
    void theRedeliveryBudgetRefusesTheOneDayExpiryItReplaced() {
        assertThat(redeliveryBudgetBreaks(Duration.ofHours(24), Duration.ofHours(24)))
                .anySatisfy(rule -> assertThat(rule).contains("next night"))
                .anySatisfy(rule -> assertThat(rule).contains("redrive"));
        assertThat(redeliveryBudgetBreaks(Duration.ofDays(16), Duration.ofDays(16)))
                .singleElement().satisfies(rule -> assertThat(rule).contains("outlive"));
    }

    private List<String> redeliveryBudgetBreaks(Duration automaticHorizon, Duration expiry) {
        Duration execution = Duration.ofSeconds(asl.root.path("TimeoutSeconds").asLong());
        // The schedule the stack deploys uses this window (the cdk module's ScheduleTest pins the template to it).
        Duration flexible = Timing.SCHEDULE_FLEXIBLE_WINDOW;
        // Created as one night's run starts; that run fails; the next night's run delivers it at its very end.
        Duration nextNight = Timing.SCHEDULE_PERIOD.plus(flexible).plus(execution);
        // Created as a run starts; the run stops at its timeout; redriven at the end of the horizon, it runs to its timeout again.
        Duration lateRedrive = execution.plus(Timing.REDRIVE_HORIZON).plus(execution);
        Asl.Located deliver = asl.tasks().stream().filter(t -> Asl.functionOf(t) == LambdaFunction.DELIVER_COMMANDS).findFirst().orElseThrow();
        long retried = Asl.list(deliver.state().path("Retry")).stream()
                .mapToLong(r -> horizonSeconds(r, deliver.state().path("TimeoutSeconds").asLong())).sum();
        Duration lastDelivery = automaticHorizon.plusSeconds(retried);
        System.out.printf("automatic delivery horizon %s >= next night %s and late redrive %s; records %s > horizon + retried delivery state %s%n",
                automaticHorizon, nextNight, lateRedrive, expiry, lastDelivery);
        List<String> broken = new java.util.ArrayList<>();
        if (automaticHorizon.compareTo(nextNight) < 0) {
            broken.add("the next night's run would escalate a failed night's commands (" + nextNight + " > " + automaticHorizon + ")");
        }
        if (automaticHorizon.compareTo(lateRedrive) < 0) {
            broken.add("a redrive near its horizon would escalate its own commands (" + lateRedrive + " > " + automaticHorizon + ")");
        }
        if (expiry.compareTo(lastDelivery) <= 0) {
            broken.add("idempotency records must outlive the last automatic delivery (" + expiry + " <= " + lastDelivery + ")");
        }
        return broken;
    }

    /**
     * A rerun right after a run that failed, timed out or was aborted without handing its lease
     * back must outwait that lease (it expires LEASE_DURATION after its last renewal, which can be up to
     * LEASE_RENEW_INTERVAL late) before giving up as LeaseHeldByAnotherRun — whatever the jitter draws.
     */
    @Test
    void aRerunOutwaitsAFullLeaseWhateverTheJitterDraws() {
        Asl.Located acquire = asl.tasks().stream().filter(t -> Asl.functionOf(t) == LambdaFunction.ACQUIRE_LEASE).findFirst().orElseThrow();
        JsonNode leaseHeld = Asl.list(acquire.state().path("Retry")).stream()
                .filter(r -> Asl.names(r).contains(ErrorNames.LEASE_HELD)).findFirst().orElseThrow();
        long guaranteed = minimumTotalWaitSeconds(leaseHeld);
        Duration needed = Timing.LEASE_DURATION.plus(Timing.LEASE_RENEW_INTERVAL);
        System.out.printf("LeaseHeld retrier waits at least %d s in total >= lease %d s + renew interval %d s%n", guaranteed,
                Timing.LEASE_DURATION.toSeconds(), Timing.LEASE_RENEW_INTERVAL.toSeconds());
        assertThat(Duration.ofSeconds(guaranteed)).as("the LeaseHeld retrier's least total wait").isGreaterThanOrEqualTo(needed);
    }

    @Test
    void theLeastWaitOfAJitteredRetrierIsZero() {
        JsonNode jittered = Json.mapper().createObjectNode().put("IntervalSeconds", 30).put("BackoffRate", 2)
                .put("MaxAttempts", 4).put("MaxDelaySeconds", 240).put("JitterStrategy", "FULL");
        assertThat(minimumTotalWaitSeconds(jittered)).as("FULL jitter draws each wait from [0, delay]").isZero();
        assertThat(minimumTotalWaitSeconds(((com.fasterxml.jackson.databind.node.ObjectNode) jittered.deepCopy()).put("JitterStrategy", "NONE")))
                .isEqualTo(30 + 60 + 120 + 240);
    }

    /** FULL jitter waits a uniform draw from [0, delay]; only unjittered waits are guaranteed. */
    /** The quota is split by the calls that can run at once, which is the delivery Map's MaxConcurrency. */
    @Test
    void theDeliveryMapRunsAtMostAsManyCallsAsTheQuotaIsSplitBy() {
        JsonNode map = asl.root.path("States").path("DeliverReleases");
        assertThat(map.path("Type").asText()).isEqualTo("Map");
        assertThat(map.path("MaxConcurrency").asInt()).isEqualTo(Timing.DELIVERY_MAP_CONCURRENCY);
    }

    /**
     * Delivery plans to stop DELIVERY_FINISH_RESERVE before the execution's timeout; what may still run after
     * the last call starts (that call, its provider-unavailable retries, and ReleaseLease with its longest retrier)
     * must fit in the reserve, or a night with a backlog could still time out.
     */
    @Test
    void theFinishReserveCoversTheLastDeliveryCallAndReleasingTheLease() {
        Asl.Located deliver = asl.tasks().stream().filter(t -> Asl.functionOf(t) == LambdaFunction.DELIVER_COMMANDS).findFirst().orElseThrow();
        long deliverTimeout = deliver.state().path("TimeoutSeconds").asLong();
        JsonNode unavailable = Asl.list(deliver.state().path("Retry")).stream()
                .filter(r -> Asl.names(r).contains(ErrorNames.PROVIDER_UNAVAILABLE)).findFirst().orElseThrow();
        long lastDelivery = deliverTimeout + horizonSeconds(unavailable, deliverTimeout);
        Asl.Located release = asl.tasks().stream().filter(t -> Asl.functionOf(t) == LambdaFunction.RELEASE_LEASE).findFirst().orElseThrow();
        long releaseTimeout = release.state().path("TimeoutSeconds").asLong();
        long releasing = releaseTimeout + Asl.list(release.state().path("Retry")).stream()
                .mapToLong(r -> horizonSeconds(r, releaseTimeout)).max().orElse(0);
        System.out.printf("after the last delivery starts: %d s + %d s; reserve %d s%n", lastDelivery, releasing,
                Timing.DELIVERY_FINISH_RESERVE.toSeconds());
        assertThat(Duration.ofSeconds(lastDelivery + releasing)).isLessThanOrEqualTo(Timing.DELIVERY_FINISH_RESERVE);
        assertThat(Timing.DELIVERY_FINISH_RESERVE).as("and the reserve leaves most of the budget to delivery")
                .isLessThan(Timing.EXECUTION_TIMEOUT.dividedBy(4));
    }

    /**
     * A SnapStart version that is not ready (Inactive after 14 days without an invocation, or its environments recycled)
     * refuses invokes until it is Active again. Every task waits at least SNAPSTART_NOT_READY_PATIENCE for it, with
     * guaranteed (unjittered) waits; and a run that holds the lease still renews it in time: the longest a task runs
     * after its last renewal (the renew interval) plus every wait of the retrier stays inside the lease.
     */
    @Test
    void everyTaskWaitsMinutesForASnapStartVersionThatIsNotReadyWithinTheLease() {
        assertThat(snapStartBudgetBreaks(asl)).isEmpty();
    }

    /** The check can fail: the shipped ASL without its SnapStart retriers (the States.TaskFailed catch-all gives up in ~20 s). */
    @Test
    void theSnapStartBudgetFailsOnAnAslWithoutTheRetrier() {
        Asl bad = Asl.of(asl.root.deepCopy());
        for (Asl.Located task : bad.tasks()) {
            var retry = (com.fasterxml.jackson.databind.node.ArrayNode) task.state().path("Retry");
            for (int i = retry.size() - 1; i >= 0; i--) {
                if (Asl.names(retry.get(i)).contains(ErrorNames.LAMBDA_SNAPSTART_NOT_READY)) {
                    retry.remove(i);
                }
            }
        }
        assertThat(snapStartBudgetBreaks(bad)).hasSize(bad.tasks().size())
                .allSatisfy(b -> assertThat(b).contains("waits only"));
    }

    private static List<String> snapStartBudgetBreaks(Asl definition) {
        List<String> broken = new java.util.ArrayList<>();
        for (Asl.Located task : definition.tasks()) {
            List<JsonNode> retriers = Asl.list(task.state().path("Retry"));
            // The first retrier naming the error (or a catch-all) decides, as Step Functions does.
            JsonNode first = retriers.stream().filter(r -> Asl.names(r).contains(ErrorNames.LAMBDA_SNAPSTART_NOT_READY)
                    || Asl.names(r).contains("States.TaskFailed") || Asl.names(r).contains("States.ALL")).findFirst().orElse(null);
            long guaranteed = first == null ? 0 : minimumTotalWaitSeconds(first);
            long longest = first == null ? 0 : totalWaitSeconds(first);
            System.out.printf("%-16s SnapStart not ready: waits %d s at least, %d s at most; patience %d s; lease %d s%n", task.name(),
                    guaranteed, longest, Timing.SNAPSTART_NOT_READY_PATIENCE.toSeconds(), Timing.LEASE_DURATION.toSeconds());
            if (guaranteed < Timing.SNAPSTART_NOT_READY_PATIENCE.toSeconds()) {
                broken.add(task.name() + " waits only " + guaranteed + " s for a SnapStart version to become Active");
            }
            if (first != null && Asl.names(first).containsAll(ErrorNames.LAMBDA_SNAPSTART_WAIT)
                    && Timing.LEASE_RENEW_INTERVAL.plusSeconds(longest).compareTo(Timing.LEASE_DURATION) >= 0) {
                broken.add(task.name() + " waits " + longest + " s: the lease would expire before the next renewal");
            }
            if (first != null && Asl.names(first).contains(ErrorNames.LAMBDA_SNAPSTART_NOT_READY)
                    && !Asl.names(first).containsAll(ErrorNames.LAMBDA_SNAPSTART_WAIT)) {
                broken.add(task.name() + " waits for SnapStartNotReadyException but not SnapStartTimeoutException in the same retrier");
            }
        }
        return broken;
    }

    private static long minimumTotalWaitSeconds(JsonNode retrier) {
        return "FULL".equals(retrier.path("JitterStrategy").asText("NONE")) ? 0 : totalWaitSeconds(retrier);
    }

    private static long totalWaitSeconds(JsonNode retrier) {
        double interval = retrier.path("IntervalSeconds").asDouble(1);
        double rate = retrier.path("BackoffRate").asDouble(2);
        long cap = retrier.path("MaxDelaySeconds").asLong(Long.MAX_VALUE);
        long total = 0;
        for (int attempt = 0; attempt < retrier.path("MaxAttempts").asInt(3); attempt++) {
            total += Math.min(cap, (long) (interval * Math.pow(rate, attempt)));
        }
        return total;
    }

    private static long horizonSeconds(JsonNode retrier, long taskTimeout) {
        return totalWaitSeconds(retrier) + retrier.path("MaxAttempts").asInt(3) * taskTimeout;
    }
}
