package com.payments.reconciler.delivery;

import com.amazonaws.services.lambda.runtime.Context;
import com.payments.reconciler.lease.LeaseStore;
import com.payments.reconciler.reconcile.FencedWriter;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.EnvVars;
import java.util.Optional;
import com.payments.reconciler.workflow.Fenced;
import com.payments.reconciler.workflow.HandlerEnvironment;
import com.payments.reconciler.workflow.IdempotencyAlreadyInProgress;
import com.payments.reconciler.workflow.JsonHandler;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.LeaseLost;
import com.payments.reconciler.workflow.MaxSettlementFeedLag;
import com.payments.reconciler.workflow.ProviderKeyRetention;
import com.payments.reconciler.reconcile.DeadLetterDepth;
import com.payments.reconciler.reconcile.FeedGate;
import com.payments.reconciler.reconcile.NightWideHold;
import com.payments.reconciler.workflow.ProviderOutcomeTimeout;
import com.payments.reconciler.workflow.ProviderQuota;
import com.payments.reconciler.workflow.ProviderUnavailable;
import com.payments.reconciler.workflow.Timing;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.net.URI;
import java.time.Clock;

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
 *
 * <p>This class is the wiring and the Lambda entry only. One call is a {@link DeliveryCall} (the coordinating
 * thread: plan, pages, rounds, slots, renewals through {@link LeaseRenewals}) with a {@link CommandSender} (the
 * provider requests) and {@link AnswerMarks} (the fenced marks); what they decide is pure code tested without an
 * engine: {@link DeliveryDecision}, {@link UnsentCommand}, {@link ProviderAnswers}, {@link MarkVerdict},
 * {@link ShardPlan} and {@link SendingRate}.
 */
public final class DeliverCommandsHandler extends JsonHandler<DeliveryRequest, DeliveryBatch> {

    /** Provider attempts per command within one call ({@link ProviderAnswers#ATTEMPTS_PER_COMMAND}). */
    public static final int PROVIDER_ATTEMPTS_PER_COMMAND = ProviderAnswers.ATTEMPTS_PER_COMMAND;

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(DeliverCommandsHandler.class);

    private final DeliveryServices services;
    private final FeedGate feed;
    private final DeadLetterDepth deadLetters;
    private final NightWideHold nightWide;

    public DeliverCommandsHandler() {
        this(HandlerEnvironment.fromSystem());
    }

    /** Lambda and the local runner: everything from the environment (tables, provider URL, credentials). */
    public DeliverCommandsHandler(HandlerEnvironment env) {
        this(env, env.tables(), env.aws().dynamo());
    }

    private DeliverCommandsHandler(HandlerEnvironment env, TableNames tables, DynamoDbClient dynamo) {
        this(new PendingCommands(dynamo, tables.releaseCommands()),
                new FactsReader(dynamo, tables, Backoff.standard(), env.clock()),
                new FencedWriter(dynamo, tables, Backoff.standard()),
                new LeaseStore(dynamo, tables.leases(), Timing.LEASE_DURATION),
                PowertoolsOperationGuard.create(env.aws(), tables.idempotency()),
                ProviderAdapters.create(ProviderAdapters.fromEnvironment(env), providerUrl(env),
                        ProviderCredentials.fromEnvironment(env), env.clock(),
                        Optional.ofNullable(env.optional(EnvVars.PROVIDER_MERCHANT_ACCOUNT, null)),
                        ProviderAdapters.keyModeFromEnvironment(env)),
                Backoff.standard(),
                EmfMetrics.toStdout(env.clock(), LambdaFunction.DELIVER_COMMANDS.logicalName()),
                env.clock(), Timing.DELIVERY_PARALLELISM, DeliveryPacing.sleeping(ProviderQuota.fromEnvironment(env)),
                ProviderKeyRetention.fromEnvironment(env), ProviderOutcomeTimeout.fromEnvironment(env),
                FeedGate.stored(dynamo, tables.settlements(), Backoff.standard(), MaxSettlementFeedLag.fromEnvironment(env), env.clock()),
                DeadLetterDepth.queue(env.aws().sqs(), env.required(EnvVars.INGEST_DEAD_LETTER_QUEUE_URL)),
                NightWideHold.stored(dynamo, tables.settlements()));
    }

    /**
     * Everything given: the wiring from the environment above ends here, and tests build through a builder of their own.
     * {@code keyRetention}: how long the provider keeps an idempotency key ({@link ForgottenKeys});
     * {@code outcomeTimeout}: how long a command may stay ACKNOWLEDGED before this delivery escalates it; {@code feed}: asked
     * before any provider call of this invocation (FeedGate); {@code deadLetters}: the ingestion dead-letter queue, read once
     * per call before any provider call; while it holds anything (or cannot be read) the call sends nothing
     * (docs/decisions.md, "Held for feed"), and {@code nightWide} records {@code held#*} so that hold outlives the depth.
     */
    public DeliverCommandsHandler(PendingCommands commands, FactsReader facts, FencedWriter writer,
                                  LeaseStore leases, OperationGuard guard,
                                  ProviderClient provider, Backoff providerRetry, EmfMetrics metrics, Clock clock,
                                  int parallelism, DeliveryPacing pacing, ProviderKeyRetention keyRetention,
                                  ProviderOutcomeTimeout outcomeTimeout, FeedGate feed, DeadLetterDepth deadLetters,
                                  NightWideHold nightWide) {
        super(DeliveryRequest.class);
        this.feed = java.util.Objects.requireNonNull(feed, "feed");
        this.deadLetters = java.util.Objects.requireNonNull(deadLetters, "deadLetters");
        this.nightWide = java.util.Objects.requireNonNull(nightWide, "nightWide");
        this.services = new DeliveryServices(commands, facts, writer, leases, guard, provider, providerRetry, metrics,
                clock, parallelism, pacing, keyRetention.retention(), outcomeTimeout);
    }

    @Override
    protected DeliveryBatch handle(DeliveryRequest request, Context context) {
        if (context == null) {
            throw new IllegalStateException("DeliverCommands needs its Lambda context (deadline and in-progress window)");
        }
        // Before any provider call: decisions committed while the feed was complete wait (PENDING) while it is not.
        try {
            feed.requireComplete("delivering shard " + request.shard() + " of window " + request.window().windowId());
        } catch (com.payments.reconciler.workflow.FeedNotComplete notComplete) {
            services.metrics().count(com.payments.reconciler.workflow.Metrics.FEED_NOT_COMPLETE, 1);
            throw notComplete;
        }
        // Before any provider call: a message SQS moved to the dead-letter queue may be the settlement of any command here.
        if (!request.window().dryRun()) {
            DeadLetterDepth.Reading reading = deadLetters.read();
            if (reading.holds()) {
                return heldByDeadLetters(request, reading, context);
            }
        }
        // JsonHandler has put the request's log fields on this thread; the delivery threads put them on theirs.
        return new DeliveryCall(services, request, context, request.logContext()).deliver();
    }

    /**
     * The whole shard waits, PENDING, for a night whose dead-letter queue is empty and whose night-wide hold is cleared:
     * nothing sent; the only write is the night-wide hold when the depth was non-zero and none is stored (fenced by the
     * lease, NightWideHold); every pending command counted held for feed and left for the next run.
     */
    private DeliveryBatch heldByDeadLetters(DeliveryRequest request, DeadLetterDepth.Reading reading, Context context) {
        if (nightWide.record(reading, services.writer().forInvocation(context), request.lease(), services.clock().instant(),
                "DeliverCommands") == NightWideHold.Outcome.RECORDED) {
            LOG.warn("shard {} of window {}: recorded the night-wide hold: every night stays held until holds clear --night-wide",
                    request.shard(), request.window().windowId());
        }
        long pending = services.commands().count(request.shard());
        LOG.warn("shard {} of window {}: nothing sent, its {} pending commands are held for feed: {}", request.shard(),
                request.window().windowId(), pending, reading.why());
        services.metrics().count(com.payments.reconciler.workflow.Metrics.HELD_FOR_FEED, pending);
        DeliveryTotals call = new DeliveryTotals(1, 0, 0, 0, 0, 0, 0, pending, 0, 0, 0, 0, pending, 0);
        ShardPlan plan = request.batch().plan() != null ? request.batch().plan() : ShardPlan.unplanned();
        return new DeliveryBatch(false, request.batch().totals().plus(call), plan);
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
