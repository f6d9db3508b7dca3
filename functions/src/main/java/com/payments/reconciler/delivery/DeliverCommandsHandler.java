package com.payments.reconciler.delivery;

import com.amazonaws.services.lambda.runtime.Context;
import com.payments.reconciler.lease.LeaseStore;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.reconcile.DeliveryMark;
import com.payments.reconciler.reconcile.DeliveryRecord;
import com.payments.reconciler.reconcile.FencedWriter;
import com.payments.reconciler.reconcile.SettlementCheck;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.workflow.Deadline;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.Fenced;
import com.payments.reconciler.workflow.HandlerEnvironment;
import com.payments.reconciler.workflow.IdempotencyAlreadyInProgress;
import com.payments.reconciler.workflow.JsonHandler;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.LeaseLost;
import com.payments.reconciler.workflow.Metrics;
import com.payments.reconciler.workflow.ProviderContractViolation;
import com.payments.reconciler.workflow.ProviderQuota;
import com.payments.reconciler.workflow.ProviderUnavailable;
import com.payments.reconciler.workflow.StoreContention;
import com.payments.reconciler.workflow.Timing;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Phaser;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One DeliverCommands call for one shard (docs/design.md §6): renew the lease, read the shard's PENDING
 * commands from the {@code pending-delivery} index in pages of {@link Timing#DELIVERY_BATCH_SIZE}, and
 * deliver up to {@link Timing#DELIVERY_PARALLELISM} at a time: each through the {@link OperationGuard}
 * (a retried call is answered from the idempotency record, not sent again) and the
 * {@link ProviderClient} ({@code Idempotency-Key: {operationId}}). The answers are marked DELIVERED or
 * REJECTED through the fenced path in batches ({@link FencedWriter#recordDeliveries}, up to
 * {@link FencedWriter#MARKS_PER_TRANSACTION} per transaction, the rest when the call ends): a command
 * delivered but not yet marked when the call dies stays PENDING, and its next delivery is answered by
 * its idempotency record, not sent again.
 *
 * <ul>
 *   <li>A refused lease check is {@link Fenced} and a refused renewal {@link LeaseLost}: no further
 *   provider call, no further write, and the call ends with that error (the workflow's Superseded).</li>
 *   <li>A command whose provider stayed unavailable for {@link #PROVIDER_ATTEMPTS_PER_COMMAND} attempts
 *   stops new deliveries; those in flight finish and are recorded; the call ends with
 *   {@link ProviderUnavailable}, which the workflow retries with the same keys.</li>
 *   <li>An operation in progress in another invocation is {@link IdempotencyAlreadyInProgress} after the
 *   others were delivered.</li>
 *   <li>Before its Lambda deadline ({@link Timing#DEADLINE_MARGIN}) the call stops starting deliveries and
 *   returns {@code more = true}; the lease is renewed at least every {@link Timing#LEASE_RENEW_INTERVAL},
 *   also while waiting for deliveries in flight.</li>
 * </ul>
 * Logs carry ids and counts only (window, epoch, shard, operation id on every line); never amounts,
 * never the API key.
 */
public final class DeliverCommandsHandler extends JsonHandler<DeliveryRequest, DeliveryBatch> {

    /**
     * Provider attempts per command within one call, derived so that a command started just before the
     * deadline margin still finishes inside it: each attempt takes at most connect + request timeout.
     * More attempts are the workflow's retries (with the same key).
     */
    public static final int PROVIDER_ATTEMPTS_PER_COMMAND = (int) Math.max(1,
            Timing.DEADLINE_MARGIN.minus(Timing.STORE_BACKOFF_CAP).toMillis()
                    / Timing.PROVIDER_CONNECT_TIMEOUT.plus(Timing.PROVIDER_REQUEST_TIMEOUT).toMillis());

    /** How long the coordinating thread waits for a free slot before it checks the lease renewal again. */
    private static final Duration SLOT_WAIT = Duration.ofMillis(500);
    private static final Logger LOG = LoggerFactory.getLogger(DeliverCommandsHandler.class);

    private final PendingCommands commands;
    private final SettlementCheck settlements;
    private final FencedWriter writer;
    private final LeaseStore leases;
    private final OperationGuard guard;
    private final ProviderClient provider;
    private final Backoff providerRetry;
    private final EmfMetrics metrics;
    private final Clock clock;
    private final int parallelism;
    private final DeliveryPacing pacing;

    public DeliverCommandsHandler() {
        this(HandlerEnvironment.fromSystem());
    }

    /** Lambda and the local runner: everything from the environment (tables, provider URL, credentials). */
    public DeliverCommandsHandler(HandlerEnvironment env) {
        this(env, env.tables(), env.aws().dynamo());
    }

    private DeliverCommandsHandler(HandlerEnvironment env, TableNames tables, DynamoDbClient dynamo) {
        this(new PendingCommands(dynamo, tables.releaseCommands()),
                new SettlementCheck(dynamo, tables.settlements(), Backoff.standard()),
                new FencedWriter(dynamo, tables, Backoff.standard()),
                new LeaseStore(dynamo, tables.leases(), Timing.LEASE_DURATION),
                PowertoolsOperationGuard.create(env.aws(), tables.idempotency()),
                HttpProviderClient.create(providerUrl(env), ProviderCredentials.fromEnvironment(env), env.clock()),
                Backoff.standard(),
                EmfMetrics.toStdout(env.clock(), LambdaFunction.DELIVER_COMMANDS.logicalName()),
                env.clock(), Timing.DELIVERY_PARALLELISM, DeliveryPacing.sleeping(ProviderQuota.fromEnvironment(env)));
    }

    public DeliverCommandsHandler(PendingCommands commands, SettlementCheck settlements, FencedWriter writer,
                                  LeaseStore leases, OperationGuard guard,
                                  ProviderClient provider, Backoff providerRetry, EmfMetrics metrics, Clock clock,
                                  int parallelism, DeliveryPacing pacing) {
        super(DeliveryRequest.class);
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be at least 1, was " + parallelism);
        }
        this.commands = commands;
        this.settlements = settlements;
        this.writer = writer;
        this.leases = leases;
        this.guard = guard;
        this.provider = provider;
        this.providerRetry = providerRetry;
        this.metrics = metrics;
        this.clock = clock;
        this.parallelism = parallelism;
        this.pacing = pacing;
    }

    @Override
    protected DeliveryBatch handle(DeliveryRequest request, Context context) {
        if (context == null) {
            throw new IllegalStateException("DeliverCommands needs its Lambda context (deadline and in-progress window)");
        }
        // JsonHandler has put the request's log fields on this thread; the delivery threads put them on theirs.
        return new Call(request, context, request.logContext()).deliver();
    }

    /** One invocation's state: shared by the coordinating thread and the delivery threads. */
    private final class Call {
        private final DeliveryRequest request;
        private final LeaseToken lease;
        private final Context context;
        private final Map<String, String> logContext;
        private final Deadline deadline;
        /** The handler's writer bound to this invocation: its request tokens are this attempt's own. */
        private final FencedWriter writer;
        /** This call's part of the night's provider quota (issue 17): its rate, and its concurrency as the slots. */
        private final ProviderQuota.Share share;
        private final Semaphore slots;
        /** The deliveries started and not finished, apart from the slots: waiting for them cannot hang on a slot. */
        private final Phaser inFlight = new Phaser(1);
        private final DeliveryFailures failures = new DeliveryFailures();
        private final AtomicLong delivered = new AtomicLong();
        private final AtomicLong rejected = new AtomicLong();
        private final AtomicLong cancelledSettled = new AtomicLong();
        private final AtomicLong quarantined = new AtomicLong();
        private final AtomicLong escalated = new AtomicLong();
        /** Answers outside the contract so far in this call, recorded or not: the limit's count. */
        private final AtomicInteger violations = new AtomicInteger();
        private final AtomicLong attempts = new AtomicLong();
        private final AtomicLong throttledAnswers = new AtomicLong();
        /** A command could not be sent inside this call (a Retry-After past its deadline): it stays PENDING, the shard goes on. */
        private volatile boolean deferred;
        private ShardPlan plan;
        private SendingRate rate;
        /** Final answers waiting to be marked on their commands; the coordinating thread marks them. */
        private final Queue<DeliveryMark> answered = new LinkedBlockingQueue<>();   // size() is O(1): read per command
        private Instant lastRenewal;
        private int started;

        Call(DeliveryRequest request, Context context, Map<String, String> logContext) {
            this.request = request;
            this.lease = request.lease();
            this.context = context;
            this.logContext = logContext;
            this.deadline = Deadline.of(context);
            this.writer = DeliverCommandsHandler.this.writer.forInvocation(context);
            this.share = pacing.quota().share(Math.min(request.window().shards(), Timing.DELIVERY_MAP_CONCURRENCY));
            this.slots = new Semaphore(Math.min(parallelism, share.maxConcurrentRequests()));
        }

        DeliveryBatch deliver() {
            renew();
            if (request.window().dryRun()) {
                LOG.info("dry run: nothing was commanded, nothing to deliver");
                return new DeliveryBatch(false, request.batch().totals().plus(new DeliveryTotals(1, 0, 0, 0)), ShardPlan.unplanned());
            }
            plan = request.batch().plan() != null ? request.batch().plan() : planShard();
            rate = new SendingRate(share, clock, Instant.ofEpochMilli(plan.resumeAt()), plan.throttledSinceAnswerMillis());
            boolean exhausted = false;
            try (ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor()) {
                try {
                    exhausted = dispatchAll(workers);
                } catch (RuntimeException e) {
                    failures.add(e);
                }
                awaitInFlight();
            }
            while (!answered.isEmpty() && !failures.superseded()) {
                markAnswered();
            }
            DeliveryTotals call = new DeliveryTotals(1, delivered.get(), rejected.get(), attempts.get(),
                    cancelledSettled.get(), quarantined.get(), escalated.get(), 0, throttledAnswers.get(), rate.throttledMillis());
            boolean more = failures.count() > 0 || deferred || !(exhausted || planSpent(call));
            if (!more) {
                call = call.plus(new DeliveryTotals(0, 0, 0, 0, 0, 0, 0, commands.count(request.shard()), 0, 0));
            }
            metrics.count(Map.of(Metrics.DELIVERIES, call.delivered(), Metrics.DELIVERY_REJECTED, call.rejected(),
                    Metrics.DELIVERY_CANCELLED_SETTLED, call.cancelledSettled(), Metrics.DELIVERY_QUARANTINED, call.quarantined(),
                    Metrics.DELIVERY_ESCALATED, call.escalated(), Metrics.BACKLOG_LEFT, call.backlogLeft(),
                    Metrics.PROVIDER_THROTTLED, call.throttledAnswers()));
            LOG.info("delivery call: {} commands started, {} delivered, {} rejected, {} cancelled as settled, {} quarantined, "
                            + "{} escalated, {} provider requests, {} failures, shard read to the end {}",
                    started, call.delivered(), call.rejected(), call.cancelledSettled(), call.quarantined(), call.escalated(),
                    call.attempts(), failures.count(), exhausted);
            failures.throwIfAny();
            if (!more && call.backlogLeft() > 0) {
                LOG.warn("shard {} ends its night with {} commands left PENDING for the next run (plan: backlog {}, fits {})",
                        request.shard(), call.backlogLeft(), plan.backlog(), plan.allotment());
            }
            return new DeliveryBatch(more, request.batch().totals().plus(call),
                    plan.withPacing(rate.pausedUntil(), rate.throttledSinceAnswerMillis()));
        }

        /**
         * The shard's plan, at its first call (issue 17): its backlog against what its share of the quota sends before
         * the night's delivery budget ends. A backlog that does not fit is delivered oldest first up to what fits.
         */
        private ShardPlan planShard() {
            Optional<Instant> started = request.executionStart();
            if (started.isEmpty()) {
                return ShardPlan.unplanned();
            }
            long backlog = commands.count(request.shard());
            ShardPlan made = ShardPlan.plan(backlog, share, clock.instant(), ShardPlan.deliverUntil(started.get()));
            if (made.fitsAll()) {
                LOG.info("shard plan: {} commands pending, all fit at {} requests/s before {}", backlog,
                        share.requestsPerSecond(), Instant.ofEpochMilli(made.deliverUntil()));
            } else {
                LOG.warn("shard plan: {} commands pending, {} fit at {} requests/s before {}; the rest wait for the next run",
                        backlog, made.allotment(), share.requestsPerSecond(), Instant.ofEpochMilli(made.deliverUntil()));
            }
            return made;
        }

        /** Whether this shard has ended as many commands as its plan allows tonight, or its budget is over. */
        private boolean planSpent(DeliveryTotals call) {
            return request.batch().totals().ended() + call.ended() >= plan.allotment() || plan.budgetPassed(clock.instant());
        }

        /** Commands this call may still start under the plan. */
        private long allowedToStart() {
            if (plan.budgetPassed(clock.instant())) {
                return 0;
            }
            return Math.max(0, plan.allotment() - request.batch().totals().ended() - started);
        }

        /** Returns whether every pending command of the shard was started. */
        private boolean dispatchAll(ExecutorService workers) {
            Map<String, AttributeValue> startKey = Map.of();
            while (canStart()) {
                PendingCommands.Page page = commands.page(request.shard(), startKey, Timing.DELIVERY_BATCH_SIZE);
                page.malformed().forEach(bad -> LOG.warn("skipped malformed command {}: {}", bad.operationId(), bad.problem()));
                List<PendingCommand> read = page.commands();
                for (int from = 0; from < read.size(); from += parallelism) {
                    if (!dispatchRound(workers, read.subList(from, Math.min(read.size(), from + parallelism)))) {
                        return false;
                    }
                }
                if (!page.hasMore()) {
                    return true;
                }
                startKey = page.nextKey();
            }
            return false;
        }

        /** Hands the slot over to a delivery thread, which releases it; false (the slot still ours) if it could not start. */
        private boolean start(ExecutorService workers, PendingCommand command) {
            inFlight.register();
            try {
                workers.execute(() -> {
                    try {
                        deliverOne(command);
                    } finally {
                        slots.release();
                        inFlight.arriveAndDeregister();
                    }
                });
            } catch (RuntimeException e) {
                inFlight.arriveAndDeregister();
                failures.add(e);
                return false;
            }
            started++;
            return true;
        }

        /**
         * One round of up to {@link #parallelism} commands (issues 15.2, 15.3). The slots are taken first and the
         * round's settlements read after (one strongly consistent BatchGetItem), so the read is no older than the
         * calls it guards take to start; then each command is sent, or ends here. False once the call may start no more.
         */
        private boolean dispatchRound(ExecutorService workers, List<PendingCommand> whole) {
            if (!canStart()) {
                return false;
            }
            List<PendingCommand> round = whole.subList(0, (int) Math.min(whole.size(), allowedToStart()));
            if (round.size() < whole.size()) {
                LOG.info("shard {} reached its plan for tonight ({} commands)", request.shard(), plan.allotment());
                if (round.isEmpty()) {
                    return false;
                }
            }
            if (answered.size() >= FencedWriter.MARKS_PER_TRANSACTION) {
                markAnswered();
            }
            int held = 0;
            while (held < round.size()) {
                if (!acquireSlot()) {
                    slots.release(held);
                    return false;
                }
                held++;
            }
            List<PendingCommand> send;
            try {
                send = canStart() ? sendable(round) : null;
            } catch (RuntimeException e) {
                slots.release(held);
                throw e;
            }
            if (send == null) {
                slots.release(held);
                return false;
            }
            slots.release(held - send.size());
            for (int k = 0; k < send.size(); k++) {
                if (!start(workers, send.get(k))) {
                    slots.release(send.size() - k);
                    return false;
                }
            }
            return true;
        }

        /**
         * The commands of {@code round} to send now. The others end here, queued as marks like answers: settled ones
         * CANCELLED_SETTLED, those past automatic delivery ESCALATED — unless an earlier attempt already has the
         * provider's answer recorded, which is then what the command is marked with (it was sent, and answered).
         */
        private List<PendingCommand> sendable(List<PendingCommand> round) {
            Map<String, Optional<Instant>> settled = settlements.settlementsOf(round.stream().map(PendingCommand::authorisationId).toList());
            Instant now = clock.instant();
            List<PendingCommand> send = new ArrayList<>(round.size());
            for (PendingCommand command : round) {
                DeliveryRecord.Result unsent;
                String why;
                switch (DeliveryDecision.decide(command, settled, now)) {
                    case DeliveryDecision.Deliver deliver -> {
                        send.add(command);
                        continue;
                    }
                    case DeliveryDecision.CancelSettled cancel -> {
                        unsent = new DeliveryRecord.Result.CancelledSettled(cancel.settledAt());
                        why = "its authorisation settled at " + cancel.settledAt();
                    }
                    case DeliveryDecision.Escalate escalate -> {
                        unsent = new DeliveryRecord.Result.Escalated(escalate.reason(), request.shard());
                        why = escalate.reason();
                    }
                }
                Optional<ProviderResult.Final> answeredBefore = guard.recorded(GuardedOperation.of(command), ProviderResult.Final.class);
                if (answeredBefore.isPresent()) {
                    LOG.info("{} was answered by the provider in an earlier attempt; recording that answer", command.operationId());
                    answered.add(new DeliveryMark(command.operationId(), recordOf(answeredBefore.get()), 0));
                } else {
                    LOG.warn("not sending {}: {}", command.operationId(), why);
                    answered.add(new DeliveryMark(command.operationId(), unsent, 0));
                }
            }
            return send;
        }

        private static DeliveryRecord.Result recordOf(ProviderResult.Final result) {
            return switch (result) {
                case ProviderResult.Released released -> new DeliveryRecord.Result.Delivered(released.providerReference());
                case ProviderResult.Rejected refused -> new DeliveryRecord.Result.Rejected(refused.code(), refused.reason());
            };
        }

        private boolean canStart() {
            return !failures.halted() && !deferred && !deadline.near() && allowedToStart() > 0;
        }

        /** Waits for a free slot, renewing the lease meanwhile; false once the call halted. */
        private boolean acquireSlot() {
            while (!failures.halted()) {
                renewIfDue();
                try {
                    if (slots.tryAcquire(SLOT_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                        // Marks are batched, so no lease check follows each delivery: a call that waited (or was
                        // paused) past its renewal learns whether it still leads before it starts another one.
                        boolean kept = false;
                        try {
                            renewIfDue();
                            kept = true;
                        } finally {
                            if (!kept) {
                                slots.release();
                            }
                        }
                        return true;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    failures.add(new IllegalStateException("interrupted while waiting for a delivery slot", e));
                }
            }
            return false;
        }

        /**
         * Every delivery in flight finishes (each is bounded by the provider timeouts); renewals go on. Waits for the
         * deliveries themselves, not for their slots, so a slot lost on some path cannot hold the call to its timeout.
         */
        private void awaitInFlight() {
            int phase = inFlight.arrive();
            while (true) {
                try {
                    inFlight.awaitAdvanceInterruptibly(phase, SLOT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                    return;
                } catch (TimeoutException e) {
                    renewIfDue();
                } catch (InterruptedException e) {
                    // Lambda is ending the invocation; the executor's close still waits for the threads.
                    Thread.currentThread().interrupt();
                    failures.add(new IllegalStateException("interrupted while waiting for deliveries in flight", e));
                    return;
                }
            }
        }

        private void deliverOne(PendingCommand command) {
            logContext.forEach(MDC::put);
            MDC.put("operationId", command.operationId());
            AtomicInteger calls = new AtomicInteger();
            try {
                if (failures.halted()) {
                    return;
                }
                ProviderResult.Final result;
                try {
                    result = guard.once(GuardedOperation.of(command), context, ProviderResult.Final.class,
                            () -> callProvider(command, calls));
                } finally {
                    attempts.addAndGet(calls.get());
                }
                if (failures.superseded()) {
                    return;
                }
                answered.add(new DeliveryMark(command.operationId(), recordOf(result), calls.get()));
            } catch (Deferred later) {
                LOG.info("{} deferred to the next call: {}", command.operationId(), later.getMessage());
                deferred = true;
            } catch (ProviderContractViolation violation) {
                if (!violation.aboutTheCommand()) {
                    LOG.warn("delivery of {} ended with {}: {}", command.operationId(), violation.getClass().getSimpleName(), violation.getMessage());
                    failures.add(violation);
                    return;
                }
                quarantine(command, violation, calls.get());
            } catch (RuntimeException e) {
                LOG.warn("delivery of {} ended with {}", command.operationId(), e.getClass().getSimpleName());
                failures.add(e);
            } finally {
                MDC.clear();
            }
        }

        /**
         * Issue 15.5: one answer outside the contract parks its command (the body is kept on the command, not in
         * the log); the others go on. So many in one call that it looks like the provider's fault stops the call.
         */
        private void quarantine(PendingCommand command, ProviderContractViolation violation, int providerRequests) {
            LOG.warn("quarantining {}: {}", command.operationId(), violation.getMessage());
            if (failures.superseded()) {
                return;
            }
            answered.add(new DeliveryMark(command.operationId(),
                    new DeliveryRecord.Result.Quarantined(violation.answer(), request.shard()), providerRequests));
            if (violations.incrementAndGet() == Timing.QUARANTINES_PER_CALL_LIMIT) {
                failures.add(ProviderContractViolation.ofEveryCommand(Timing.QUARANTINES_PER_CALL_LIMIT
                        + " answers outside the provider's contract in one call (the last for " + command.operationId()
                        + "): the provider or its URL looks misconfigured; those commands are QUARANTINED"));
            }
        }

        /**
         * Sends until a final answer, at this call's pace: each request waits for its turn at the share's rate. A
         * throttling answer slows the pace and pauses it for its Retry-After without using up the command's
         * unavailable attempts; a wait that would pass the call's deadline defers the command to the next call; so
         * long throttled without any answer that the provider looks down, and the call ends ProviderUnavailable.
         */
        private ProviderResult.Final callProvider(PendingCommand command, AtomicInteger calls) {
            ProviderResult.Unavailable last = null;
            int unavailable = 0;
            while (true) {
                Duration wait = rate.claimTurn();
                if (!deadline.allowsWait(wait)) {
                    // Wait out what this call can (the next call waits for the rest), rather than handing over at
                    // once: a pause of many minutes must not become a tight loop of short calls.
                    pacing.pause().pause(deadline.spare());
                    throw new Deferred("its turn at the provider's pace is " + wait.toMillis() + " ms away, past this call's deadline");
                }
                if (!wait.isZero()) {
                    pacing.pause().pause(wait);
                }
                if (calls.get() > 0 && failures.superseded()) {
                    break;
                }
                calls.incrementAndGet();
                switch (provider.release(command)) {
                    case ProviderResult.Final answer -> {
                        rate.answered();
                        return answer;
                    }
                    case ProviderResult.Throttled throttled -> {
                        throttledAnswers.incrementAndGet();
                        rate.throttled(throttled.retryAfter().orElse(null));
                        LOG.info("provider throttled {} ({}), Retry-After {}", command.operationId(), throttled.status(),
                                throttled.retryAfter().map(Duration::toString).orElse("none"));
                        if (rate.throttledSinceAnswerMillis() > Timing.THROTTLED_WITHOUT_PROGRESS_LIMIT.toMillis()) {
                            throw new ProviderUnavailable("provider throttled every request for "
                                    + rate.throttledSinceAnswerMillis() / 1000 + " s without one answer (the last for "
                                    + command.operationId() + "); treated as down, keys intact");
                        }
                    }
                    case ProviderResult.Unavailable down -> {
                        rate.answered();
                        last = down;
                        unavailable++;
                        LOG.warn("provider unavailable for {} on attempt {}: {}", command.operationId(), unavailable, down.cause());
                        if (unavailable >= PROVIDER_ATTEMPTS_PER_COMMAND || failures.superseded()) {
                            throw new ProviderUnavailable("provider unavailable for " + command.operationId() + " after "
                                    + calls.get() + " attempts (same Idempotency-Key each time): " + down.cause());
                        }
                        providerRetry.beforeRetry(unavailable);
                    }
                }
            }
            throw new ProviderUnavailable("provider unavailable for " + command.operationId() + " after " + calls.get()
                    + " attempts (same Idempotency-Key each time): " + (last == null ? "not attempted" : last.cause()));
        }

        /**
         * Marks up to one transaction's worth of answers, fenced. A superseded call marks nothing: its marks would
         * be refused, and the next leader's delivery of those commands is answered by their idempotency records.
         */
        private void markAnswered() {
            List<DeliveryMark> marks = new ArrayList<>(FencedWriter.MARKS_PER_TRANSACTION);
            for (DeliveryMark mark; marks.size() < FencedWriter.MARKS_PER_TRANSACTION && (mark = answered.poll()) != null; ) {
                marks.add(mark);
            }
            if (marks.isEmpty() || failures.superseded()) {
                return;
            }
            try {
                List<DeliveryRecord> outcomes = writer.recordDeliveries(lease, marks, clock.instant());
                for (int i = 0; i < marks.size(); i++) {
                    count(marks.get(i), outcomes.get(i));
                }
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }

        private void count(DeliveryMark mark, DeliveryRecord outcome) {
            switch (outcome) {
                case DeliveryRecord.Recorded recorded -> {
                    switch (mark.result()) {
                        case DeliveryRecord.Result.Delivered d -> delivered.incrementAndGet();
                        case DeliveryRecord.Result.Rejected r -> {
                            rejected.incrementAndGet();
                            LOG.warn("provider refused {} permanently: {}", mark.operationId(), r.code());
                        }
                        case DeliveryRecord.Result.CancelledSettled c -> cancelledSettled.incrementAndGet();
                        case DeliveryRecord.Result.Quarantined q -> quarantined.incrementAndGet();
                        case DeliveryRecord.Result.Escalated e -> escalated.incrementAndGet();
                    }
                }
                case DeliveryRecord.Fenced fenced -> {
                    // A refused lease check refuses the whole batch: one refusal, one error, not one per mark.
                    if (!failures.superseded()) {
                        metrics.count(Metrics.FENCED_REFUSALS, 1);
                        failures.add(new Fenced("lease " + lease.leaseName() + " refused epoch " + lease.epoch() + " marking "
                                + mark.operationId() + ": newer epoch " + fenced.currentEpoch() + " held by " + fenced.currentOwner()));
                    }
                }
                case DeliveryRecord.AlreadyFinal already -> LOG.info("command {} was already {} ({})", mark.operationId(),
                        already.status(), already.byUs() ? "by this epoch" : "by another epoch");
                case DeliveryRecord.Contention contention -> failures.add(new StoreContention(
                        "marking " + mark.operationId() + " met contention after in-function retries: " + contention.detail()));
            }
        }

        private void renewIfDue() {
            if (failures.superseded() || clock.instant().isBefore(lastRenewal.plus(Timing.LEASE_RENEW_INTERVAL))) {
                return;
            }
            try {
                renew();
            } catch (RuntimeException e) {
                // Not only LeaseLost and StoreContention: whatever ends the renewal halts the call here, so the
                // deliveries in flight finish and their answers are marked, instead of escaping past them.
                failures.add(e);
            }
        }

        private void renew() {
            Instant now = clock.instant();
            leases.renew(lease, now);
            lastRenewal = now;
        }
    }

    /** A command whose next request cannot go inside this call: it stays PENDING and the next call sends it. */
    private static final class Deferred extends RuntimeException {
        Deferred(String message) {
            super(message, null, false, false);
        }
    }

    private static URI providerUrl(HandlerEnvironment env) {
        String value = env.required(EnvVars.PROVIDER_BASE_URL);
        try {
            URI uri = URI.create(value);
            if (uri.getHost() == null) {
                throw new IllegalArgumentException("no host");
            }
            return uri;
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("environment variable " + EnvVars.PROVIDER_BASE_URL
                    + " must be the provider's base URL, e.g. https://provider.example/api, was '" + value + "'");
        }
    }
}
