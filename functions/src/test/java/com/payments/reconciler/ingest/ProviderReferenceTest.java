package com.payments.reconciler.ingest;

import com.payments.reconciler.delivery.PendingCommand;
import com.payments.reconciler.delivery.PendingCommands;
import com.payments.reconciler.lease.AcquireResult;
import com.payments.reconciler.lease.Lease;
import com.payments.reconciler.lease.LeaseStore;
import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.reconcile.CandidateFinder;
import com.payments.reconciler.reconcile.FencedWriter;
import com.payments.reconciler.reconcile.ReleaseOutcome;
import com.payments.reconciler.reconcile.Shards;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.LocalDynamo;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The provider's id of an authorisation (contract version 2's optional {@code providerReference}) from the event to the
 * command delivery reads: stored on the authorisation by ingestion, copied onto the release command by the night's
 * transaction, read as {@link PendingCommand#providerReference()} from the pending-delivery index. On the local DynamoDB.
 */
@ExtendWith(LocalDynamo.class)
class ProviderReferenceTest {

    private static final int SHARDS = 2;
    private static final Instant CUTOFF = Instant.parse("2026-12-01T02:00:00Z");
    private static final Instant NOW = CUTOFF.plusSeconds(60);

    private LocalDynamo.Engine engine;
    private EventIngestion ingestion;

    @BeforeEach
    void setUp(LocalDynamo.Engine engine) {
        this.engine = engine;
        this.ingestion = new EventIngestion(new EventDecoder(), new IngestionDecision(SHARDS),
                new IngestStore(engine.client(), engine.tables().authorisations(), engine.tables().settlements(), Backoff.standard(7)), Optional.empty(), Clock.systemUTC());
    }

    static String createdV2(String eventId, String auth, String reference) {
        return """
                {"version":2,"type":"authorisation.created","eventId":"%s","authorisationId":"%s","amountMinor":2599,\
                "currency":"EUR","merchantId":"merchant-1","authorisedAt":"2026-11-28T10:00:00Z"%s}"""
                .formatted(eventId, auth, reference == null ? "" : ",\"providerReference\":\"" + reference + "\"");
    }

    @Test
    void aStripePaymentIntentIdTravelsFromTheCreateToThePendingCommand() {
        assertThat(ingestion.ingest(createdV2("evt-1", "auth-1", "pi_3MtwBwLkdIwHu7ix28a3tqPa"))).isInstanceOf(IngestOutcome.Accepted.class);
        assertThat(authorisation("auth-1").get(Authorisations.PROVIDER_REFERENCE).s()).isEqualTo("pi_3MtwBwLkdIwHu7ix28a3tqPa");

        Candidate candidate = candidates().getFirst();
        assertThat(candidate.providerReference()).contains("pi_3MtwBwLkdIwHu7ix28a3tqPa");
        assertThat(release(candidate)).isInstanceOf(ReleaseOutcome.Committed.class);

        assertThat(command("auth-1").get(ReleaseCommands.PROVIDER_REFERENCE).s()).isEqualTo("pi_3MtwBwLkdIwHu7ix28a3tqPa");
        PendingCommand pending = pendingCommands().getFirst();
        assertThat(pending.providerReference()).contains("pi_3MtwBwLkdIwHu7ix28a3tqPa");
        // Carried through the first-attempt stamp, which makes a new value of the command.
        assertThat(pending.attemptedFrom(NOW).providerReference()).contains("pi_3MtwBwLkdIwHu7ix28a3tqPa");
    }

    @Test
    void aCreateWithoutAReferenceMakesACommandWithout() {
        ingestion.ingest(createdV2("evt-1", "auth-1", null));
        assertThat(release(candidates().getFirst())).isInstanceOf(ReleaseOutcome.Committed.class);

        assertThat(authorisation("auth-1")).doesNotContainKey(Authorisations.PROVIDER_REFERENCE);
        assertThat(command("auth-1")).doesNotContainKey(ReleaseCommands.PROVIDER_REFERENCE);
        assertThat(pendingCommands().getFirst().providerReference()).isEmpty();
    }

    @Test
    void aCreateAfterItsSettlementOrItsVoidStoresTheReferenceToo() {
        ingestion.ingest("""
                {"version":1,"type":"settlement.posted","eventId":"evt-s","authorisationId":"auth-s","amountMinor":2599,"currency":"EUR",\
                "settledAt":"2026-11-30T00:00:00Z"}""");
        ingestion.ingest("""
                {"version":1,"type":"authorisation.voided","eventId":"evt-v","authorisationId":"auth-v","endedAt":"2026-11-29T10:00:00Z"}""");

        assertThat(ingestion.ingest(createdV2("evt-cs", "auth-s", "G7Q9ZK2MXBZN8V65")))
                .isEqualTo(new IngestOutcome.Accepted("evt-cs", "CompleteSettledAuthorisation", 2));
        assertThat(ingestion.ingest(createdV2("evt-cv", "auth-v", "H8R0AL3NYCAO9W76")))
                .isEqualTo(new IngestOutcome.Accepted("evt-cv", "CompleteEndedAuthorisation", 2));

        assertThat(authorisation("auth-s").get(Authorisations.PROVIDER_REFERENCE).s()).isEqualTo("G7Q9ZK2MXBZN8V65");
        assertThat(authorisation("auth-v").get(Authorisations.PROVIDER_REFERENCE).s()).isEqualTo("H8R0AL3NYCAO9W76");
    }

    @Test
    void aSecondCreateWithAnotherReferenceIsAConflictNamingTheField() {
        ingestion.ingest(createdV2("evt-1", "auth-1", "pi_first"));
        Map<String, AttributeValue> first = authorisation("auth-1");

        IngestOutcome outcome = ingestion.ingest(createdV2("evt-2", "auth-1", "pi_second"));

        assertThat(outcome).isInstanceOf(IngestOutcome.Refused.class);
        assertThat(((IngestOutcome.Refused) outcome).refusal().field()).isEqualTo("providerReference");
        assertThat(authorisation("auth-1")).isEqualTo(first);
        // The same create again under another event id, and its version 1 form, are duplicates.
        assertThat(ingestion.ingest(createdV2("evt-3", "auth-1", "pi_first"))).isInstanceOf(IngestOutcome.Duplicate.class);
        assertThat(ingestion.ingest(createdV2("evt-4", "auth-1", null))).isInstanceOf(IngestOutcome.Duplicate.class);
    }

    @Test
    void aStoredReferenceOfAnotherFormIsAMalformedCommandNamingTheAttribute() {
        Map<String, AttributeValue> item = Map.of(ReleaseCommands.OPERATION_ID, AttributeValue.fromS("release-hold:a-1"),
                ReleaseCommands.AUTHORISATION_ID, AttributeValue.fromS("a-1"), ReleaseCommands.AMOUNT_MINOR, AttributeValue.fromN("100"),
                ReleaseCommands.CURRENCY, AttributeValue.fromS("EUR"), ReleaseCommands.CREATED_AT, AttributeValue.fromN("1"),
                ReleaseCommands.PROVIDER_REFERENCE, AttributeValue.fromS("pi with spaces"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PendingCommand.fromItem(item))
                .hasMessageContaining("command[release-hold:a-1].providerReference");
        assertThat(PendingCommand.fromItem(Map.of(ReleaseCommands.OPERATION_ID, AttributeValue.fromS("release-hold:a-1"),
                ReleaseCommands.AUTHORISATION_ID, AttributeValue.fromS("a-1"), ReleaseCommands.AMOUNT_MINOR, AttributeValue.fromN("100"),
                ReleaseCommands.CURRENCY, AttributeValue.fromS("EUR"), ReleaseCommands.CREATED_AT, AttributeValue.fromN("1"),
                ReleaseCommands.PROVIDER_REFERENCE, AttributeValue.fromS("pi_ok"))).providerReference()).isEqualTo(Optional.of("pi_ok"));
    }

    private Map<String, AttributeValue> authorisation(String id) {
        return engine.client().getItem(b -> b.tableName(engine.tables().authorisations()).consistentRead(true)
                .key(Map.of(Authorisations.AUTHORISATION_ID, AttributeValue.fromS(id)))).item();
    }

    private Map<String, AttributeValue> command(String authorisationId) {
        return engine.client().getItem(b -> b.tableName(engine.tables().releaseCommands()).consistentRead(true)
                .key(Map.of(ReleaseCommands.OPERATION_ID, AttributeValue.fromS(Candidate.operationIdFor(authorisationId))))).item();
    }

    private List<Candidate> candidates() {
        CandidateFinder finder = new CandidateFinder(engine.client(), engine.tables().authorisations());
        List<Candidate> all = new ArrayList<>();
        for (int shard = 0; shard < SHARDS; shard++) {
            all.addAll(finder.page(shard, CUTOFF, Map.of(), 100).candidates());
        }
        return all;
    }

    private List<PendingCommand> pendingCommands() {
        PendingCommands commands = new PendingCommands(engine.client(), engine.tables().releaseCommands());
        List<PendingCommand> all = new ArrayList<>();
        for (int shard = 0; shard < SHARDS; shard++) {
            all.addAll(commands.page(shard, Map.of(), 100).commands());
        }
        return all;
    }

    private ReleaseOutcome release(Candidate candidate) {
        LeaseStore leases = new LeaseStore(engine.client(), engine.tables().leases(), Duration.ofMinutes(5));
        Lease lease = ((AcquireResult.Acquired) leases.acquire("job", "run/1", NOW)).lease();
        FencedWriter writer = new FencedWriter(engine.client(), engine.tables(), Backoff.standard(3));
        return writer.requestRelease(lease.token(), candidate, "2026-12-01", CUTOFF, NOW);
    }
}
