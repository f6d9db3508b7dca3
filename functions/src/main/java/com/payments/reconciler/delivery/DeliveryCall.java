package com.payments.reconciler.delivery;

import com.amazonaws.services.lambda.runtime.Context;
import com.payments.reconciler.reconcile.DeliveryMark;
import com.payments.reconciler.workflow.Deadline;
import com.payments.reconciler.workflow.Metrics;
import com.payments.reconciler.workflow.ProviderQuota;
import com.payments.reconciler.workflow.Timing;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * One DeliverCommands call for one shard, on its coordinating thread (docs/design.md §6): renews the lease, plans the
 * shard at its first call ({@link ShardPlan}), reads its PENDING commands in pages, and in rounds of up to its slots (the
 * parallelism within its share of the quota) takes the slots, makes sure the round's facts are fresh ({@link FreshFacts}: settlements and ends, read
 * for many commands at once), ends the commands not to send ({@link UnsentCommand})
 * and hands the others to the {@link CommandSender} as {@link DeliverySlots} free up; the answers are marked through {@link AnswerMarks}. The shared
 * state of the call is its {@link DeliveryFailures}, its {@link SendingRate} and its marks.
 */
final class DeliveryCall {

    private static final Logger LOG = LoggerFactory.getLogger(DeliveryCall.class);

    private final DeliveryServices services;
    private final DeliveryRequest request;
    private final Context context;
    private final Map<String, String> logContext;
    private final Clock clock;
    private final Deadline deadline;
    /** This call's part of the night's provider quota: its rate, and its concurrency as the slots. */
    private final ProviderQuota.Share share;
    /**
     * The slots, and so the size of a round: a round holds a slot for each of its commands before any is sent, so a round
     * larger than the slots would wait forever for a slot only a sent command gives back.
     */
    private final int concurrency;
    private final DeliverySlots slots;
    private final DeliveryFailures failures = new DeliveryFailures();
    private final LeaseRenewals renewals;
    private final AnswerMarks marks;
    private final FreshFacts facts;
    private final com.payments.reconciler.reconcile.FencedWriter writer;
    private ShardPlan plan;
    private SendingRate rate;
    private CommandSender sender;
    private int started;
    /** Commands a hold for feed kept PENDING in this call, seen in their round (the sender counts those seen later). */
    private long heldForFeed;
    /** Commands this call stamped with their first attempt (their read copies still show none). */
    private final java.util.Set<String> stamped = new java.util.HashSet<>();

    DeliveryCall(DeliveryServices services, DeliveryRequest request, Context context, Map<String, String> logContext) {
        this.services = services;
        this.request = request;
        this.context = context;
        this.logContext = logContext;
        this.clock = services.clock();
        this.deadline = Deadline.of(context);
        this.share = services.pacing().quota().share(Math.min(request.window().shards(), Timing.DELIVERY_MAP_CONCURRENCY));
        this.renewals = new LeaseRenewals(services.leases(), request.lease(), clock, failures);
        this.concurrency = Math.min(services.parallelism(), share.maxConcurrentRequests());
        this.slots = new DeliverySlots(concurrency, renewals, failures);
        this.writer = services.writer().forInvocation(context);
        this.marks = new AnswerMarks(writer, request.lease(), clock, services.metrics(), failures);
        this.facts = new FreshFacts(services.facts(), clock, Timing.FACTS_MAX_AGE);
    }

    DeliveryBatch deliver() {
        renewals.renew();
        if (request.window().dryRun()) {
            LOG.info("dry run: nothing was commanded, nothing to deliver");
            return new DeliveryBatch(false, request.batch().totals().plus(new DeliveryTotals(1, 0, 0, 0)), ShardPlan.unplanned());
        }
        plan = request.batch().plan() != null ? request.batch().plan() : planShard();
        rate = new SendingRate(share, clock, Instant.ofEpochMilli(plan.resumeAt()), plan.throttledSinceAnswerMillis());
        sender = new CommandSender(services.guard(), services.provider(), services.providerRetry(), services.pacing().pause(),
                rate, deadline, context, logContext, request.shard(), failures, renewals, facts, clock,
                services.providerKeyRetention(), marks::add);
        escalateOverdueOutcomes();
        boolean exhausted = false;
        try (ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor()) {
            try {
                exhausted = dispatchAll(workers);
            } catch (RuntimeException e) {
                failures.add(e);
            }
            slots.awaitInFlight();
        }
        marks.markAll();
        DeliveryTotals call = new DeliveryTotals(1, marks.delivered(), marks.rejected(), sender.requests(),
                marks.cancelledSettled(), marks.quarantined(), marks.escalated(), 0, sender.throttledAnswers(), rate.throttledMillis(),
                marks.cancelledEnded(), marks.acknowledged(), heldForFeed + sender.heldForFeed(), marks.sent());
        boolean more = failures.count() > 0 || sender.deferred()
                || !(exhausted || plan.spent(request.batch().totals().sent() + call.sent(), clock));
        if (!more) {
            call = call.plus(new DeliveryTotals(0, 0, 0, 0, 0, 0, 0, services.commands().count(request.shard()), 0, 0, 0, 0, 0, 0));
        }
        services.metrics().count(Map.of(Metrics.DELIVERIES, call.delivered(), Metrics.DELIVERY_REJECTED, call.rejected(),
                Metrics.DELIVERY_CANCELLED_SETTLED, call.cancelledSettled(), Metrics.DELIVERY_CANCELLED_ENDED, call.cancelledEnded(),
                Metrics.DELIVERY_QUARANTINED, call.quarantined(),
                Metrics.DELIVERY_ESCALATED, call.escalated(), Metrics.BACKLOG_LEFT, call.backlogLeft(),
                Metrics.PROVIDER_THROTTLED, call.throttledAnswers(), Metrics.DELIVERY_ACKNOWLEDGED, call.acknowledged(),
                Metrics.HELD_FOR_FEED, call.heldForFeed()));
        if (marks.outcomeOverdue() > 0) {
            services.metrics().count(Metrics.OUTCOME_OVERDUE, marks.outcomeOverdue());
        }
        LOG.info("delivery call: {} commands started, {} delivered, {} rejected, {} cancelled as settled, {} cancelled as ended, "
                        + "{} quarantined, {} escalated, {} acknowledged (outcome awaited), {} held for feed, {} ended after being sent "
                        + "(what the plan counts), {} provider requests, {} fact reads, {} failures, shard read to the end {}",
                started, call.delivered(), call.rejected(), call.cancelledSettled(), call.cancelledEnded(), call.quarantined(),
                call.escalated(), call.acknowledged(), call.heldForFeed(), call.sent(), call.attempts(), facts.reads(), failures.count(),
                exhausted);
        failures.throwIfAny();
        if (!more && call.backlogLeft() > 0) {
            LOG.warn("shard {} ends its night with {} commands left PENDING for the next run (plan: backlog {}, fits {})",
                    request.shard(), call.backlogLeft(), plan.backlog(), plan.allotment());
        }
        return new DeliveryBatch(more, request.batch().totals().plus(call),
                plan.withPacing(rate.resumeAt(), rate.throttledSinceAnswerMillis()));
    }

    /**
     * The providerOutcomeTimeout sweep: the shard's commands ACKNOWLEDGED longer than the timeout without the provider's
     * outcome are escalated for a person (Adyen has no status lookup for a cancel), fenced like every mark and only while
     * still ACKNOWLEDGED; counted as escalated in the totals, and apart in the {@link Metrics#OUTCOME_OVERDUE} metric.
     * Page by page, each marked before the next is read (a marked command leaves the index), until a short page.
     */
    private void escalateOverdueOutcomes() {
        java.util.Set<String> seen = new java.util.HashSet<>();
        while (!failures.superseded() && !deadline.near()) {
            Instant cutoff = services.outcomeTimeout().cutoff(clock.instant());
            List<String> overdue = services.commands().overdue(request.shard(), cutoff, Timing.DELIVERY_BATCH_SIZE);
            List<String> fresh = overdue.stream().filter(seen::add).toList();
            String reason = "no provider outcome within providerOutcomeTimeout " + services.outcomeTimeout().timeout()
                    + " of its acknowledgement (the provider has no status lookup for a cancel)";
            fresh.forEach(operationId -> {
                LOG.warn("escalating {}: {}", operationId, reason);
                marks.add(new DeliveryMark(operationId, new com.payments.reconciler.reconcile.DeliveryRecord.Result.OutcomeOverdue(
                        reason, request.shard()), 0));
            });
            marks.markAll();
            if (fresh.isEmpty() || overdue.size() < Timing.DELIVERY_BATCH_SIZE) {
                return;
            }
        }
    }

    /**
     * The shard's plan, at its first call: its backlog against what its share of the quota sends before
     * the night's delivery budget ends. A backlog that does not fit is delivered oldest first up to what fits.
     */
    private ShardPlan planShard() {
        Optional<Instant> executionStart = request.executionStart();
        if (executionStart.isEmpty()) {
            return ShardPlan.unplanned();
        }
        long backlog = services.commands().count(request.shard());
        ShardPlan made = ShardPlan.plan(backlog, share, clock.instant(), ShardPlan.deliverUntil(executionStart.get()));
        if (made.fitsAll()) {
            LOG.info("shard plan: {} commands pending, all fit at {} requests/s before {}", backlog,
                    share.requestsPerSecond(), Instant.ofEpochMilli(made.deliverUntil()));
        } else {
            LOG.warn("shard plan: {} commands pending, {} fit at {} requests/s before {}; the rest wait for the next run",
                    backlog, made.allotment(), share.requestsPerSecond(), Instant.ofEpochMilli(made.deliverUntil()));
        }
        return made;
    }

    /**
     * Commands this call may still start under the plan, which counts commands sent ({@link ShardPlan#usedQuota}): the
     * earlier calls' sent ones, and this call's started ones less those the sender ended or kept PENDING without a
     * request. A command ended unsent in its round was never started.
     */
    private long allowedToStart() {
        return plan.startable(request.batch().totals().sent(), started - sender.notSent(), clock.instant());
    }

    private boolean canStart() {
        return !failures.halted() && !sender.deferred() && !deadline.near() && allowedToStart() > 0;
    }

    /**
     * Before any of the page's commands is sent: stamps the first attempt of those this call may start and that were
     * never attempted, in one fenced transaction (up to 99), so that a request whose answer is lost (or a call that dies
     * after it) leaves a command the next nights know to ask the provider about once its key may be forgotten
     * ({@link ForgottenKeys}). A command stamped but not sent after all is only asked about sooner.
     */
    private void recordFirstAttempts(List<PendingCommand> read) {
        List<PendingCommand> unstamped = unstamped(read.stream().limit(Math.max(0, allowedToStart())).toList());
        // A command held for feed is not sent, so it is not stamped: a stamp on it would have it looked up, or escalated
        // where the provider has no status lookup, once a long hold passed the key retention. Its facts are read now
        // (FactsReader's batches), as the rounds would read them.
        List<PendingCommand> notHeld = new ArrayList<>(unstamped.size());
        for (int from = 0; from < unstamped.size(); from += FactsReader.AUTHORISATIONS_PER_READ) {
            List<PendingCommand> chunk = unstamped.subList(from, Math.min(unstamped.size(), from + FactsReader.AUTHORISATIONS_PER_READ));
            Map<String, AuthorisationFacts> known = facts.of(chunk);
            chunk.stream().filter(command -> !known.get(command.authorisationId()).heldForFeed()).forEach(notHeld::add);
        }
        stamp(notHeld);
    }

    /**
     * Stamps those of {@code commands} never attempted and not stamped by this call yet. Called for the page's prefix
     * the plan allows (one transaction for the usual case) and again for each round about to be sent: commands that end
     * unsent (settled, ended) free allowance, so a round can reach past the prefix, and no request may leave unstamped.
     */
    private void stampUnstamped(List<PendingCommand> commands) {
        stamp(unstamped(commands));
    }

    /** Those of {@code commands} never attempted and not stamped by this call yet. */
    private List<PendingCommand> unstamped(List<PendingCommand> commands) {
        return commands.stream().filter(command -> command.firstAttemptAt().isEmpty() && !stamped.contains(command.operationId())).toList();
    }

    /** Stamps {@code never} (commands {@link #unstamped} returned) in fenced transactions of up to 99. */
    private void stamp(List<PendingCommand> never) {
        if (!never.isEmpty()) {
            List<String> operationIds = never.stream().map(PendingCommand::operationId).toList();
            writer.recordFirstAttempts(request.lease(), operationIds, clock.instant());
            stamped.addAll(operationIds);
        }
    }

    /** Returns whether every pending command of the shard was started. */
    private boolean dispatchAll(ExecutorService workers) {
        Map<String, AttributeValue> startKey = Map.of();
        while (canStart()) {
            PendingCommands.Page page = services.commands().page(request.shard(), startKey, Timing.DELIVERY_BATCH_SIZE);
            page.malformed().forEach(bad -> LOG.warn("skipped malformed command {}: {}", bad.operationId(), bad.problem()));
            List<PendingCommand> read = page.commands();
            facts.expect(read);
            recordFirstAttempts(read);
            for (int from = 0; from < read.size(); from += concurrency) {
                if (!dispatchRound(workers, read.subList(from, Math.min(read.size(), from + concurrency)))) {
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

    /**
     * One round of up to {@link #concurrency} commands. The slots are taken first and the round's facts made fresh after
     * (read only when older than {@link Timing#FACTS_MAX_AGE}, together with the commands to come), so a command that
     * settled or ended is not even started; each request checks its facts again before it leaves ({@link CommandSender}).
     * Then each command is sent, or ends here. False once the call may start no more.
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
        if (marks.transactionReady()) {
            marks.markOneTransaction();
        }
        int held = 0;
        while (held < round.size()) {
            if (!slots.acquire()) {
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
        try {
            stampUnstamped(send);
        } catch (RuntimeException e) {
            slots.release(send.size());
            throw e;
        }
        for (int k = 0; k < send.size(); k++) {
            PendingCommand command = send.get(k);
            if (!slots.start(workers, () -> sender.deliver(command))) {
                slots.release(send.size() - k);
                return false;
            }
            started++;
        }
        return true;
    }

    /**
     * The commands of {@code round} to send now. The others end here as marks ({@link UnsentCommand}); the guard's
     * record of an earlier attempt is read for those only.
     */
    private List<PendingCommand> sendable(List<PendingCommand> round) {
        Map<String, AuthorisationFacts> known = facts.of(round);
        Instant now = clock.instant();
        List<PendingCommand> send = new ArrayList<>(round.size());
        for (PendingCommand command : round) {
            DeliveryDecision decision = DeliveryDecision.decide(command, known.get(command.authorisationId()), now);
            if (decision instanceof DeliveryDecision.Deliver) {
                send.add(command);
                continue;
            }
            if (decision instanceof DeliveryDecision.HeldForFeed) {
                // Neither sent nor marked: it stays PENDING for a night after the hold is cleared.
                LOG.warn("not sending {}: held for feed (a refused settlement may concern it); it stays PENDING", command.operationId());
                heldForFeed++;
                facts.done(command);
                continue;
            }
            UnsentCommand unsent = UnsentCommand.of(decision,
                    services.guard().recorded(GuardedOperation.of(command), ProviderResult.Final.class), request.shard());
            if (unsent.sentBefore()) {
                LOG.info("{} was answered by the provider in an earlier attempt; recording that answer", command.operationId());
            } else {
                LOG.warn("not sending {}: {}", command.operationId(), unsent.why());
            }
            marks.add(new DeliveryMark(command.operationId(), unsent.result(), 0));
            facts.done(command);
        }
        return send;
    }
}
