package com.payments.reconciler.audit;

import com.payments.reconciler.lease.AcquireResult;
import com.payments.reconciler.lease.LeaseStore;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.reconcile.DeliveryMark;
import com.payments.reconciler.reconcile.DeliveryRecord;
import com.payments.reconciler.reconcile.FencedWriter;
import com.payments.reconciler.reconcile.ReleaseOutcome;
import com.payments.reconciler.reconcile.Shards;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.testing.Ingestion;
import com.payments.reconciler.testing.LocalDynamo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.Update;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static com.payments.reconciler.store.Attr.n;
import static com.payments.reconciler.store.Attr.s;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A check that cannot fail is not a check: for each invariant, a known-bad world — written through real moto,
 * so the engine's log records it as applied, by requests shaped unlike the workers' own — that the audit must
 * report. The auditor that read the workers' request text passed each of the five (see docs/chaos.md); only
 * the provider call after a settlement, in the second I3 world, was caught by it too, by its check at the call.
 */
@ExtendWith(LocalDynamo.class)
class WorldOnlyAuditTest {

    static final String LEASE = "hold-release-reconciler";
    static final Instant NOW = Instant.parse("2026-12-01T02:05:00Z");
    static final Instant CUTOFF = Instant.parse("2026-11-28T02:00:00Z");
    static final Backoff NO_WAIT = new Backoff(3, d -> { }, 2, Duration.ofMillis(1), Duration.ofMillis(2));
    static final Duration LEASE_DURATION = Duration.ofSeconds(30);

    /** What the audit reads. */
    record World(StoreSnapshot state, List<AppliedWrite> writes, List<ProviderRelease> releases, InvariantAudit.Completion completion) {
    }

    @Test
    void aLeasePutThatResetsTheEpochAfterATakeoverIsI5(LocalDynamo.Engine engine) {
        InvariantAudit.Report report = audit(engine, leaseResetByPut(engine));

        assertThat(report.invariants()).containsEntry("I5", false);
        assertThat(report.violations()).anySatisfy(v -> {
            assertThat(v.invariant()).isEqualTo("I5");
            assertThat(v.detail()).contains("overwritten by a Put", "PutItem", "epoch 2 -> 1");
        });
        assertThat(report.violations()).anySatisfy(v -> assertThat(v.detail()).contains("epoch decreased to 1"));
    }

    @Test
    void aStaleWriteAfterATakeoverWrittenByOtherExpressionsIsI1(LocalDynamo.Engine engine) {
        InvariantAudit.Report report = audit(engine, staleWriteAfterForeignTakeover(engine));

        assertThat(report.invariants()).containsEntry("I1", false);
        assertThat(report.violations()).anySatisfy(v -> {
            assertThat(v.invariant()).isEqualTo("I1");
            assertThat(v.detail()).contains("carrying epoch 1 applied after the takeover to epoch 2", "release-hold:auth-1 PENDING -> DELIVERED");
        });
    }

    @Test
    void aNonIdempotentProviderReleasingOneHoldTwiceIsI2(LocalDynamo.Engine engine) throws Exception {
        InvariantAudit.Report report = audit(engine, holdReleasedTwice(engine));

        assertThat(report.invariants()).containsEntry("I2", false);
        assertThat(report.violations()).anySatisfy(v -> {
            assertThat(v.invariant()).isEqualTo("I2");
            assertThat(v.detail()).contains("auth-1 released 2 times by the provider", "release-hold-retry:auth-1");
        });
    }

    @Test
    void aReleaseDecidedOverASettlementLoadedByBatchWriteIsI3(LocalDynamo.Engine engine) {
        World world = releaseOverBatchLoadedSettlement(engine, false, false);
        InvariantAudit.Report report = audit(engine, world);
        long loaded = world.writes().stream().filter(w -> w.operation().equals("BatchWriteItem")).findFirst().orElseThrow().seq();

        assertThat(report.violations()).anySatisfy(v -> {
            assertThat(v.invariant()).isEqualTo("I3");
            assertThat(v.detail()).contains("decided a release while its settlement was stored (written at write " + loaded + ")", "auth-1");
        });
    }

    @Test
    void aSettlementStoredBeforeTheLogBeganStillCountsAndSoDoesTheProviderCallAfterIt(LocalDynamo.Engine engine) {
        World world = releaseOverBatchLoadedSettlement(engine, true, true);
        InvariantAudit.Report report = audit(engine, world);

        assertThat(report.violations()).filteredOn(v -> v.invariant().equals("I3"))
                .anySatisfy(v -> assertThat(v.detail()).contains("since before the log began", "auth-1"))
                .anySatisfy(v -> assertThat(v.detail()).contains("auth-1 released by the provider at", "after its settlement"));
    }

    @Test
    void aDeliveredCommandTheProviderNeverPerformedIsI4(LocalDynamo.Engine engine) {
        InvariantAudit.Report report = audit(engine, deliveredWithoutEffect(engine));

        assertThat(report.invariants()).containsEntry("I4", false).containsEntry("I1", true);
        assertThat(report.violations()).singleElement().satisfies(v -> {
            assertThat(v.invariant()).isEqualTo("I4");
            assertThat(v.detail()).isEqualTo("auth-1 marked DELIVERED but the provider never performed its release");
        });
    }

    /** Known bad: a command cancelled as ended although no end was ever recorded is a hold never released. */
    @Test
    void aCommandCancelledAsEndedWhoseAuthorisationRecordsNoEndIsI4(LocalDynamo.Engine engine) {
        InvariantAudit.Report report = audit(engine, cancelledAsEnded(engine, false));

        assertThat(report.invariants()).containsEntry("I4", false).containsEntry("I1", true);
        assertThat(report.violations()).singleElement().satisfies(v -> {
            assertThat(v.invariant()).isEqualTo("I4");
            assertThat(v.detail()).isEqualTo("auth-1 command ended CANCELLED_ENDED but its authorisation records no end");
        });
    }

    /** The same command after a void the platform sent: allowed, and counted. */
    @Test
    void aCommandCancelledAsEndedAfterARecordedVoidPassesAndIsCounted(LocalDynamo.Engine engine) {
        InvariantAudit.Report report = audit(engine, cancelledAsEnded(engine, true));

        assertThat(report.violations()).isEmpty();
        assertThat(report.cancelledEndedCommands()).isEqualTo(1);
    }

    static World cancelledAsEnded(LocalDynamo.Engine engine, boolean voided) {
        DynamoDbClient dynamo = engine.client();
        LeaseToken a = acquire(engine, "a", NOW);
        Ingestion ingestion = new Ingestion(dynamo, engine.tables(), 1);
        ingestion.authorise("auth-1", 1_250, CUTOFF.minusSeconds(3_600));
        decide(engine, a, "auth-1");
        if (voided) {
            ingestion.end("auth-1", "authorisation.voided", NOW.minusSeconds(60));
        }
        new FencedWriter(dynamo, engine.tables(), NO_WAIT).recordDeliveries(a, List.of(new DeliveryMark(Candidate.operationIdFor("auth-1"),
                new DeliveryRecord.Result.CancelledEnded("VOIDED", NOW.minusSeconds(60)), 0)), NOW);
        return new World(engine.snapshot(), engine.writes(), List.of(), new InvariantAudit.Completion(CUTOFF, true));
    }

    @Test
    void theSameWorldsWrittenCorrectlyPass(LocalDynamo.Engine engine) throws Exception {
        DynamoDbClient dynamo = engine.client();
        try (SimulatedProvider provider = SimulatedProvider.builder().idempotent(false).clock(java.time.Clock.fixed(NOW, java.time.ZoneOffset.UTC)).start()) {
            LeaseToken a = acquire(engine, "a", NOW);
            new Ingestion(dynamo, engine.tables(), 1).authorise("auth-1", 1_250, CUTOFF.minusSeconds(3_600));
            decide(engine, a, "auth-1");
            assertThat(post(provider, "auth-1", Candidate.operationIdFor("auth-1")).statusCode()).isEqualTo(200);
            new FencedWriter(dynamo, engine.tables(), NO_WAIT).recordDeliveries(a,
                    List.of(new DeliveryMark(Candidate.operationIdFor("auth-1"), new DeliveryRecord.Result.Delivered("PRV-1"), 1)), NOW);
            acquire(engine, "b", NOW.plus(LEASE_DURATION).plusSeconds(1));

            InvariantAudit.Report report = audit(engine, new World(engine.snapshot(), engine.writes(), releases(provider),
                    new InvariantAudit.Completion(CUTOFF, true)));

            assertThat(report.violations()).isEmpty();
            assertThat(report.unfencedWrites()).isEmpty();
        }
    }

    @Test
    void aNonIdempotentProviderPerformsEveryRequestButAnswersEachKeyAsFirst() throws Exception {
        try (SimulatedProvider provider = SimulatedProvider.builder().idempotent(false).start()) {
            HttpResponse<String> first = post(provider, "auth-1", "op-1");
            HttpResponse<String> again = post(provider, "auth-1", "op-1");
            HttpResponse<String> otherKey = post(provider, "auth-1", "op-2");

            assertThat(again.body()).isEqualTo(first.body());
            assertThat(otherKey.statusCode()).isEqualTo(200);
            assertThat(provider.releasesOf("auth-1")).extracting(r -> r.operationId()).containsExactly("op-1", "op-1", "op-2");
            assertThat(provider.effect("op-1").performed()).isEqualTo(2);
        }
        try (SimulatedProvider idempotent = SimulatedProvider.start()) {
            post(idempotent, "auth-1", "op-1");
            post(idempotent, "auth-1", "op-1");
            assertThat(post(idempotent, "auth-1", "op-2").statusCode()).isEqualTo(409);
            assertThat(idempotent.releasesOf("auth-1")).hasSize(1);
        }
    }

    // The known-bad worlds. Package-private so each can also be shown to another auditor.

    /** A takeover to epoch 2 through the real acquire, then the lease item overwritten by a PutItem at epoch 1. */
    static World leaseResetByPut(LocalDynamo.Engine engine) {
        acquire(engine, "a", NOW);
        acquire(engine, "b", NOW.plus(LEASE_DURATION).plusSeconds(1));
        engine.client().putItem(b -> b.tableName(engine.tables().leases()).item(Map.of(
                Leases.LEASE_NAME, s(LEASE), Leases.OWNER, s("a/attempt"), Leases.EPOCH, n(1),
                Leases.EXPIRES_AT, n(NOW.plusSeconds(600).toEpochMilli()))));
        return new World(engine.snapshot(), engine.writes(), List.of(), null);
    }

    /**
     * Leader a at epoch 1 commands auth-1; a takeover written as a plain {@code SET epoch = :two} (no
     * {@code if_not_exists}) makes b the holder at epoch 2; then a's delivery mark, as a transaction without a
     * lease check whose epoch value is named {@code :e}, is applied carrying epoch 1.
     */
    static World staleWriteAfterForeignTakeover(LocalDynamo.Engine engine) {
        DynamoDbClient dynamo = engine.client();
        LeaseToken a = acquire(engine, "a", NOW);
        new Ingestion(dynamo, engine.tables(), 1).authorise("auth-1", 1_250, CUTOFF.minusSeconds(3_600));
        decide(engine, a, "auth-1");
        dynamo.updateItem(b -> b.tableName(engine.tables().leases()).key(Map.of(Leases.LEASE_NAME, s(LEASE)))
                .updateExpression("SET #o = :b, epoch = :two, expiresAt = :exp")
                .expressionAttributeNames(Map.of("#o", Leases.OWNER))
                .expressionAttributeValues(Map.of(":b", s("b/attempt"), ":two", n(2), ":exp", n(NOW.plusSeconds(600).toEpochMilli()))));
        dynamo.transactWriteItems(b -> b.transactItems(TransactWriteItem.builder().update(Update.builder()
                .tableName(engine.tables().releaseCommands())
                .key(Map.of(ReleaseCommands.OPERATION_ID, s(Candidate.operationIdFor("auth-1"))))
                .updateExpression("SET #s = :d, deliveredEpoch = :e, deliveredAt = :t REMOVE deliveryShard")
                .expressionAttributeNames(Map.of("#s", ReleaseCommands.STATUS))
                .expressionAttributeValues(Map.of(":d", s(ReleaseCommands.STATUS_DELIVERED), ":e", n(a.epoch()), ":t", n(NOW.toEpochMilli())))
                .build()).build()));
        return new World(engine.snapshot(), engine.writes(), List.of(), null);
    }

    /** One command for auth-1, and a provider that is not idempotent asked twice: under its key, then under another key. */
    static World holdReleasedTwice(LocalDynamo.Engine engine) throws IOException, InterruptedException {
        DynamoDbClient dynamo = engine.client();
        LeaseToken a = acquire(engine, "a", NOW);
        new Ingestion(dynamo, engine.tables(), 1).authorise("auth-1", 1_250, CUTOFF.minusSeconds(3_600));
        decide(engine, a, "auth-1");
        try (SimulatedProvider provider = SimulatedProvider.builder().idempotent(false).clock(java.time.Clock.fixed(NOW, java.time.ZoneOffset.UTC)).start()) {
            post(provider, "auth-1", Candidate.operationIdFor("auth-1"));
            post(provider, "auth-1", "release-hold-retry:auth-1");
            return new World(engine.snapshot(), engine.writes(), releases(provider), null);
        }
    }

    /**
     * A settlement for auth-1 loaded by BatchWriteItem (before the log began when {@code clearLog}); then a
     * release decided for it at the current epoch by a transaction that omits the settlement check; and, when
     * {@code performed}, the provider performs it a second after the settlement's time.
     */
    static World releaseOverBatchLoadedSettlement(LocalDynamo.Engine engine, boolean clearLog, boolean performed) {
        DynamoDbClient dynamo = engine.client();
        long settledAt = NOW.minusSeconds(60).toEpochMilli();
        dynamo.batchWriteItem(b -> b.requestItems(Map.of(engine.tables().settlements(), List.of(WriteRequest.builder()
                .putRequest(PutRequest.builder().item(Map.of(Settlements.AUTHORISATION_ID, s("auth-1"), Settlements.SETTLED_AT, n(settledAt))).build())
                .build()))));
        new Ingestion(dynamo, engine.tables(), 1).authorise("auth-1", 1_250, CUTOFF.minusSeconds(3_600));
        if (clearLog) {
            new com.payments.reconciler.local.moto.WriteLog(engine.moto().endpoint()).clear();
        }
        LeaseToken a = acquire(engine, "a", NOW);
        dynamo.transactWriteItems(b -> b.transactItems(
                TransactWriteItem.builder().conditionCheck(ConditionCheck.builder().tableName(engine.tables().leases())
                        .key(Map.of(Leases.LEASE_NAME, s(LEASE))).conditionExpression("#o = :owner AND epoch = :epoch")
                        .expressionAttributeNames(Map.of("#o", Leases.OWNER))
                        .expressionAttributeValues(Map.of(":owner", s(a.ownerId()), ":epoch", n(a.epoch()))).build()).build(),
                TransactWriteItem.builder().update(Update.builder().tableName(engine.tables().authorisations())
                        .key(Map.of(Authorisations.AUTHORISATION_ID, s("auth-1")))
                        .updateExpression("SET #st = :releaseRequested, version = version + :one REMOVE pendingShard")
                        .expressionAttributeNames(Map.of("#st", Authorisations.STATE))
                        .expressionAttributeValues(Map.of(":releaseRequested", s(Authorisations.STATE_RELEASE_REQUESTED), ":one", n(1))).build()).build(),
                TransactWriteItem.builder().put(Put.builder().tableName(engine.tables().releaseCommands()).item(Map.of(
                        ReleaseCommands.OPERATION_ID, s(Candidate.operationIdFor("auth-1")), ReleaseCommands.AUTHORISATION_ID, s("auth-1"),
                        ReleaseCommands.STATUS, s(ReleaseCommands.STATUS_PENDING), ReleaseCommands.EPOCH, n(a.epoch()))).build()).build()));
        List<ProviderRelease> releases = performed
                ? List.of(new ProviderRelease("auth-1", Candidate.operationIdFor("auth-1"), settledAt + 1_000)) : List.of();
        return new World(engine.snapshot(), engine.writes(), releases, null);
    }

    /** auth-1 decided and marked DELIVERED through the fenced path at the current epoch, but never sent to the provider. */
    static World deliveredWithoutEffect(LocalDynamo.Engine engine) {
        DynamoDbClient dynamo = engine.client();
        LeaseToken a = acquire(engine, "a", NOW);
        new Ingestion(dynamo, engine.tables(), 1).authorise("auth-1", 1_250, CUTOFF.minusSeconds(3_600));
        decide(engine, a, "auth-1");
        new FencedWriter(dynamo, engine.tables(), NO_WAIT).recordDeliveries(a,
                List.of(new DeliveryMark(Candidate.operationIdFor("auth-1"), new DeliveryRecord.Result.Delivered("PRV-never"), 1)), NOW);
        return new World(engine.snapshot(), engine.writes(), List.of(), new InvariantAudit.Completion(CUTOFF, true));
    }

    static LeaseToken acquire(LocalDynamo.Engine engine, String worker, Instant at) {
        AcquireResult result = new LeaseStore(engine.client(), engine.tables().leases(), LEASE_DURATION).acquire(LEASE, worker + "/attempt", at);
        assertThat(result).isInstanceOf(AcquireResult.Acquired.class);
        return ((AcquireResult.Acquired) result).lease().token();
    }

    static void decide(LocalDynamo.Engine engine, LeaseToken lease, String id) {
        Candidate candidate = new Candidate(id, 1, 1_250, "EUR", CUTOFF.minusSeconds(3_600), Shards.key(Shards.of(id, 1)));
        assertThat(new FencedWriter(engine.client(), engine.tables(), NO_WAIT).requestRelease(lease, candidate, "2026-12-01", CUTOFF, NOW))
                .isInstanceOf(ReleaseOutcome.Committed.class);
    }

    static HttpResponse<String> post(SimulatedProvider provider, String authorisationId, String key) throws IOException, InterruptedException {
        String body = "{\"authorisationId\":\"%s\",\"amountMinor\":1250,\"currency\":\"EUR\",\"operationId\":\"%s\"}".formatted(authorisationId, key);
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(HttpRequest.newBuilder(URI.create(provider.baseUrl() + "/holds/" + authorisationId + "/release"))
                    .header("Authorization", "Bearer " + provider.apiKey()).header(SimulatedProvider.IDEMPOTENCY_KEY, key)
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
        }
    }

    static List<ProviderRelease> releases(SimulatedProvider provider) {
        return provider.releases().stream().map(r -> new ProviderRelease(r.authorisationId(), r.operationId(), r.performedAt())).toList();
    }

    private static InvariantAudit.Report audit(LocalDynamo.Engine engine, World world) {
        return new InvariantAudit(engine.tables()).audit(world.state(), world.writes(), world.releases(), world.completion());
    }
}
