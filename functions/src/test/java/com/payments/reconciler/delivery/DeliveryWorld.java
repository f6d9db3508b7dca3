package com.payments.reconciler.delivery;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.audit.InvariantAudit;
import com.payments.reconciler.audit.ProviderEffect;
import com.payments.reconciler.audit.ProviderRelease;
import com.payments.reconciler.lease.AcquireResult;
import com.payments.reconciler.lease.LeaseStore;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.reconcile.FencedWriter;
import com.payments.reconciler.reconcile.ReleaseOutcome;
import com.payments.reconciler.reconcile.Shards;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.Ingestion;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.testing.MutableClock;
import com.payments.reconciler.window.NightWindow;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.JsonHandler;
import com.payments.reconciler.workflow.Timing;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The delivery stage's surroundings, built from production components: moto with fresh tables, a
 * leader that decided releases through the fenced path (so commands are exactly what ReconcilePage
 * writes), the simulated provider, and handlers wired to them.
 */
final class DeliveryWorld implements AutoCloseable {

    static final String LEASE = "hold-release-reconciler";
    static final Instant WINDOW_START = Instant.parse("2026-12-01T02:00:00Z");
    static final Duration GRACE = Duration.ofHours(72);
    static final Instant CUTOFF = WINDOW_START.minus(GRACE);
    static final Backoff NO_WAIT = new Backoff(7, d -> { }, 6, Duration.ofMillis(1), Duration.ofMillis(5));

    final LocalDynamo.Engine engine;
    final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T02:05:00Z"));
    final SimulatedProvider provider;
    final int shards;
    final Ingestion ingestion;
    final DynamoDbClient dynamo;
    final List<String> metricLines = new CopyOnWriteArrayList<>();
    private final List<String> operationIds = new ArrayList<>();
    private int attempt;

    DeliveryWorld(LocalDynamo.Engine engine, SimulatedProvider.Builder provider, int shards) {
        this.engine = engine;
        this.provider = provider.clock(clock).start();
        this.shards = shards;
        this.dynamo = engine.client();
        this.ingestion = new Ingestion(dynamo, engine.tables(), shards);
    }

    /** A new acquisition attempt by {@code worker}, as AcquireLease does; returns its token. */
    LeaseToken acquire(String worker, Duration leaseDuration) {
        attempt++;
        AcquireResult result = new LeaseStore(dynamo, engine.tables().leases(), leaseDuration)
                .acquire(LEASE, worker + "/attempt-" + attempt, clock.instant());
        assertThat(result).isInstanceOf(AcquireResult.Acquired.class);
        return ((AcquireResult.Acquired) result).lease().token();
    }

    /** IngestEvents' event path over this world's tables, with provider outcomes on (the webhook's events). */
    com.payments.reconciler.ingest.EventIngestion outcomeIngestion() {
        return new com.payments.reconciler.ingest.EventIngestion(new com.payments.reconciler.ingest.EventDecoder(),
                new com.payments.reconciler.ingest.IngestionDecision(1),
                new com.payments.reconciler.ingest.IngestStore(dynamo, engine.tables().authorisations(), engine.tables().settlements(), NO_WAIT),
                Optional.of(new com.payments.reconciler.ingest.ProviderOutcomes(dynamo, engine.tables().releaseCommands(), NO_WAIT, clock)),
                clock);
    }

    /** Authorises and decides a release for each id, through the fenced path, 1 ms apart (index order). */
    List<String> command(LeaseToken lease, String... authorisationIds) {
        return command(lease, id -> Optional.empty(), authorisationIds);
    }

    /** As {@link #command(LeaseToken, String...)}, each command carrying {@code providerReference.apply(id)} when present. */
    List<String> command(LeaseToken lease, java.util.function.Function<String, Optional<String>> providerReference,
                         String... authorisationIds) {
        FencedWriter writer = new FencedWriter(dynamo, engine.tables(), NO_WAIT);
        List<String> ops = new ArrayList<>();
        for (String id : authorisationIds) {
            ingestion.authorise(id, 1_000 + operationIds.size(), CUTOFF.minus(Duration.ofHours(1)));
            Candidate candidate = new Candidate(id, 1, 1_000 + operationIds.size(), "EUR", CUTOFF.minus(Duration.ofHours(1)),
                    Shards.key(Shards.of(id, shards)), providerReference.apply(id));
            assertThat(writer.requestRelease(lease, candidate, "2026-12-01", CUTOFF, clock.instant()))
                    .isInstanceOf(ReleaseOutcome.Committed.class);
            clock.advance(Duration.ofMillis(1));
            operationIds.add(candidate.operationId());
            ops.add(candidate.operationId());
        }
        return ops;
    }

    static List<String> ids(String prefix, int count) {
        List<String> ids = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            ids.add("%s-%03d".formatted(prefix, i));
        }
        return ids;
    }

    /** A quota far above anything a test sends, and a pause that does not wait: pacing is tested on its own. */
    static final DeliveryPacing UNMETERED = new DeliveryPacing(
            new com.payments.reconciler.workflow.ProviderQuota(10_000, 1_000), duration -> { });

    PowertoolsOperationGuard guard(ExecutionInterceptor... storeInterceptors) {
        return new PowertoolsOperationGuard(engine.client(storeInterceptors), engine.tables().idempotency(),
                Timing.IDEMPOTENCY_EXPIRY);
    }

    PowertoolsOperationGuard fixedGuard() {
        return guard(new InProgressExpiryFix(Clock.systemUTC()));
    }

    HttpProviderClient client() {
        return new HttpProviderClient(HttpProviderClient.httpClient(Duration.ofSeconds(2)), provider.baseUrl(),
                ProviderCredentials.fixedKey(provider.apiKey()), Duration.ofSeconds(10));
    }

    DeliverCommandsHandler handler(OperationGuard guard, int parallelism) {
        return handler(guard, parallelism, Timing.LEASE_DURATION, dynamo);
    }

    /**
     * DeliverCommands on this world's tables, clock and metric lines, answering {@code provider}: retries without waits,
     * unmetered; a test sets what it is about on the builder.
     */
    DeliverCommandsHandlerBuilder handlerBuilder(OperationGuard guard, int parallelism, ProviderClient provider) {
        return new DeliverCommandsHandlerBuilder()
                .commands(new PendingCommands(dynamo, engine.tables().releaseCommands()))
                .facts(new FactsReader(dynamo, engine.tables(), NO_WAIT, clock))
                .writer(new FencedWriter(dynamo, engine.tables(), NO_WAIT))
                .leases(new LeaseStore(dynamo, engine.tables().leases(), Timing.LEASE_DURATION))
                .guard(guard).provider(provider).providerRetry(NO_WAIT)
                .metrics(new EmfMetrics(clock, "DeliverCommands", metricLines::add)).clock(clock)
                .parallelism(parallelism).pacing(UNMETERED);
    }

    /** A worker with its own clock: a paused worker's clock stands still while the world's moves on. */
    DeliverCommandsHandler handler(OperationGuard guard, int parallelism, Clock workerClock) {
        return handlerBuilder(guard, parallelism, client())
                .facts(new FactsReader(dynamo, engine.tables(), NO_WAIT, workerClock))
                .metrics(new EmfMetrics(workerClock, "DeliverCommands", metricLines::add)).clock(workerClock)
                .build();
    }

    /** A handler whose feed gate the test chose (feed completeness: a stale watermark holds every provider call). */
    DeliverCommandsHandler handler(OperationGuard guard, int parallelism, com.payments.reconciler.reconcile.FeedGate feed) {
        return handlerBuilder(guard, parallelism, client()).feed(feed).build();
    }

    /** A handler reading the ingestion dead-letter queue the test chose (held for feed: a non-empty queue holds every call). */
    DeliverCommandsHandler handler(OperationGuard guard, int parallelism, com.payments.reconciler.reconcile.DeadLetterDepth deadLetters) {
        return handlerBuilder(guard, parallelism, client()).deadLetters(deadLetters).build();
    }

    /** A handler whose provider client the test chose (e.g. one answering outside the contract for some commands). */
    DeliverCommandsHandler handler(OperationGuard guard, int parallelism, ProviderClient providerClient) {
        return handlerBuilder(guard, parallelism, providerClient).build();
    }

    /** A handler with the provider client and the pacing (quota, and how a wait passes) the test chose. */
    DeliverCommandsHandler handler(OperationGuard guard, int parallelism, ProviderClient providerClient, DeliveryPacing pacing) {
        return handlerBuilder(guard, parallelism, providerClient).pacing(pacing).build();
    }

    /**
     * A handler whose reads of the facts at the call (settlements, authorisation ends) go through a client carrying
     * {@code readInterceptors}, so a test can count them; the provider client and the pacing are the test's.
     */
    DeliverCommandsHandler handlerReadingThrough(OperationGuard guard, int parallelism, ProviderClient providerClient,
                                                 DeliveryPacing pacing, ExecutionInterceptor... readInterceptors) {
        DynamoDbClient reads = engine.client(readInterceptors);
        return handlerBuilder(guard, parallelism, providerClient).facts(new FactsReader(reads, engine.tables(), NO_WAIT, clock))
                .pacing(pacing).build();
    }

    /** The task input as the ASL builds it, with the execution's start time the delivery Map passes on. */
    DeliveryBatch invoke(DeliverCommandsHandler handler, LeaseToken lease, int shard, DeliveryBatch batch, Instant executionStartedAt,
                         TestContext context) {
        ObjectNode root;
        try {
            root = (ObjectNode) JsonHandler.json().readTree(input(window(), lease, shard, batch));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        root.put("executionStartedAt", executionStartedAt.toString());
        return invoke(handler, root.toString(), context);
    }

    DeliverCommandsHandler handler(OperationGuard guard, int parallelism, Duration leaseDuration, DynamoDbClient writerClient) {
        return handlerBuilder(guard, parallelism, client()).writer(new FencedWriter(writerClient, engine.tables(), NO_WAIT))
                .leases(new LeaseStore(dynamo, engine.tables().leases(), leaseDuration)).build();
    }

    NightWindow window() {
        return new NightWindow("2026-12-01", WINDOW_START, CUTOFF, GRACE, false, shards);
    }

    /** The task input exactly as the ASL's DeliverBatch state builds it. */
    static String input(NightWindow window, LeaseToken lease, int shard, DeliveryBatch batch) {
        ObjectNode root = JsonHandler.json().createObjectNode();
        root.set("window", JsonHandler.json().valueToTree(window));
        root.set("lease", JsonHandler.json().valueToTree(lease));
        root.put("shard", shard);
        root.set("batch", batch == null ? null : JsonHandler.json().valueToTree(batch));
        return root.toString();
    }

    /** Invokes the handler through its stream interface, as Lambda does. */
    static DeliveryBatch invoke(DeliverCommandsHandler handler, String input, TestContext context) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            handler.handleRequest(new ByteArrayInputStream(input.getBytes()), out, context);
            return JsonHandler.json().readValue(out.toByteArray(), DeliveryBatch.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    DeliveryBatch invoke(DeliverCommandsHandler handler, LeaseToken lease, int shard, DeliveryBatch batch, TestContext context) {
        return invoke(handler, input(window(), lease, shard, batch), context);
    }

    /** As a call that sent them before would have left them: their first attempts stamped at {@code at}, fenced by {@code lease}. */
    void stampFirstAttempts(LeaseToken lease, List<String> operationIds, Instant at) {
        new FencedWriter(dynamo, engine.tables(), NO_WAIT).recordFirstAttempts(lease, operationIds, at);
    }

    Map<String, AttributeValue> command(String operationId) {
        return dynamo.getItem(b -> b.tableName(engine.tables().releaseCommands()).consistentRead(true)
                .key(Map.of(ReleaseCommands.OPERATION_ID, AttributeValue.fromS(operationId)))).item();
    }

    String status(String operationId) {
        return command(operationId).get(ReleaseCommands.STATUS).s();
    }

    List<ProviderEffect> effects() {
        return provider.effects().stream()
                .map(e -> new ProviderEffect(e.operationId(), e.authorisationId(), e.performed(), e.requests(),
                        provider.performedAt(e.operationId())))
                .toList();
    }

    List<ProviderRelease> releases() {
        return provider.releases().stream()
                .map(r -> new ProviderRelease(r.authorisationId(), r.operationId(), r.performedAt()))
                .toList();
    }

    InvariantAudit.Report audit(boolean windowComplete) {
        return new InvariantAudit(engine.tables()).audit(engine.snapshot(), engine.writes(), releases(),
                windowComplete ? new InvariantAudit.Completion(CUTOFF, true) : null);
    }

    /** The audit of a complete window whose run declared {@code backlog} commands left PENDING. */
    InvariantAudit.Report auditWithBacklog(long backlog) {
        return new InvariantAudit(engine.tables()).audit(engine.snapshot(), engine.writes(), releases(),
                new InvariantAudit.Completion(CUTOFF, true, backlog));
    }

    /** ReconcilePage as deployed, on this world's tables and clock, with {@code held} as its holds for feed. */
    com.payments.reconciler.reconcile.ReconcilePageHandler reconcilePage(com.payments.reconciler.reconcile.HeldForFeed held) {
        return new com.payments.reconciler.reconcile.ReconcilePageHandler(
                new com.payments.reconciler.reconcile.CandidateFinder(dynamo, engine.tables().authorisations()),
                new FencedWriter(dynamo, engine.tables(), NO_WAIT),
                new com.payments.reconciler.reconcile.SettlementCheck(dynamo, engine.tables().settlements(), NO_WAIT),
                new LeaseStore(dynamo, engine.tables().leases(), Timing.LEASE_DURATION),
                new com.payments.reconciler.surge.ReleaseSurgeGuard(new com.payments.reconciler.surge.NightRecords(dynamo,
                        engine.tables().leases()), com.payments.reconciler.surge.ReleaseSurgePolicy.DEFAULT, clock),
                new EmfMetrics(clock, "ReconcilePage", line -> { }), clock,
                com.payments.reconciler.reconcile.FeedGate.stored(dynamo, engine.tables().settlements(), NO_WAIT,
                        com.payments.reconciler.workflow.MaxSettlementFeedLag.DEFAULT, clock),
                held);
    }

    /** One ReconcilePage call on the first page of {@code window}: its totals. */
    static com.fasterxml.jackson.databind.JsonNode page(com.payments.reconciler.reconcile.ReconcilePageHandler handler, NightWindow window,
                                                        LeaseToken lease) {
        ObjectNode root = JsonHandler.json().createObjectNode();
        root.set("window", JsonHandler.json().valueToTree(window));
        root.set("lease", JsonHandler.json().valueToTree(lease));
        root.set("page", JsonHandler.json().createObjectNode().putNull("cursor"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            handler.handleRequest(new ByteArrayInputStream(root.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)), out,
                    new TestContext(Timing.RECONCILE_PAGE_TIMEOUT, "invocation-1"));
            return JsonHandler.json().readTree(out.toByteArray()).get("totals");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The authorisations with a command, sorted. */
    List<String> commandedAuthorisations() {
        return dynamo.scan(b -> b.tableName(engine.tables().releaseCommands()).consistentRead(true)).items().stream()
                .map(c -> c.get(ReleaseCommands.AUTHORISATION_ID).s()).sorted().toList();
    }

    @Override
    public void close() {
        provider.close();
    }
}
