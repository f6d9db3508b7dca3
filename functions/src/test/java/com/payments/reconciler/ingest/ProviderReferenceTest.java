package com.payments.reconciler.ingest;

import com.payments.reconciler.delivery.PendingCommand;
import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.reconcile.ReleaseOutcome;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.LocalDynamo;
import java.time.Instant;
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

    private IngestionTables tables;

    @BeforeEach
    void setUp(LocalDynamo.Engine engine) {
        this.tables = new IngestionTables(engine, SHARDS, CUTOFF);
    }

    static String createdV2(String eventId, String auth, String reference) {
        return """
                {"version":2,"type":"authorisation.created","eventId":"%s","authorisationId":"%s","amountMinor":2599,\
                "currency":"EUR","merchantId":"merchant-1","authorisedAt":"2026-11-28T10:00:00Z"%s}"""
                .formatted(eventId, auth, reference == null ? "" : ",\"providerReference\":\"" + reference + "\"");
    }

    @Test
    void aStripePaymentIntentIdTravelsFromTheCreateToThePendingCommand() {
        assertThat(tables.ingest(createdV2("evt-1", "auth-1", "pi_3MtwBwLkdIwHu7ix28a3tqPa"))).isInstanceOf(IngestOutcome.Accepted.class);
        assertThat(tables.authorisation("auth-1").get(Authorisations.PROVIDER_REFERENCE).s()).isEqualTo("pi_3MtwBwLkdIwHu7ix28a3tqPa");

        Candidate candidate = tables.candidates().getFirst();
        assertThat(candidate.providerReference()).contains("pi_3MtwBwLkdIwHu7ix28a3tqPa");
        assertThat(tables.release(candidate, NOW, NOW)).isInstanceOf(ReleaseOutcome.Committed.class);

        assertThat(tables.command("auth-1").get(ReleaseCommands.PROVIDER_REFERENCE).s()).isEqualTo("pi_3MtwBwLkdIwHu7ix28a3tqPa");
        PendingCommand pending = tables.pendingCommands().getFirst();
        assertThat(pending.providerReference()).contains("pi_3MtwBwLkdIwHu7ix28a3tqPa");
        // Carried through the first-attempt stamp, which makes a new value of the command.
        assertThat(pending.attemptedFrom(NOW).providerReference()).contains("pi_3MtwBwLkdIwHu7ix28a3tqPa");
    }

    @Test
    void aCreateWithoutAReferenceMakesACommandWithout() {
        tables.ingest(createdV2("evt-1", "auth-1", null));
        assertThat(tables.release(tables.candidates().getFirst(), NOW, NOW)).isInstanceOf(ReleaseOutcome.Committed.class);

        assertThat(tables.authorisation("auth-1")).doesNotContainKey(Authorisations.PROVIDER_REFERENCE);
        assertThat(tables.command("auth-1")).doesNotContainKey(ReleaseCommands.PROVIDER_REFERENCE);
        assertThat(tables.pendingCommands().getFirst().providerReference()).isEmpty();
    }

    @Test
    void aCreateAfterItsSettlementOrItsVoidStoresTheReferenceToo() {
        tables.ingest("""
                {"version":1,"type":"settlement.posted","eventId":"evt-s","authorisationId":"auth-s","amountMinor":2599,"currency":"EUR",\
                "settledAt":"2026-11-30T00:00:00Z"}""");
        tables.ingest("""
                {"version":1,"type":"authorisation.voided","eventId":"evt-v","authorisationId":"auth-v","endedAt":"2026-11-29T10:00:00Z"}""");

        assertThat(tables.ingest(createdV2("evt-cs", "auth-s", "G7Q9ZK2MXBZN8V65")))
                .isEqualTo(new IngestOutcome.Accepted("evt-cs", "CompleteSettledAuthorisation", 2));
        assertThat(tables.ingest(createdV2("evt-cv", "auth-v", "H8R0AL3NYCAO9W76")))
                .isEqualTo(new IngestOutcome.Accepted("evt-cv", "CompleteEndedAuthorisation", 2));

        assertThat(tables.authorisation("auth-s").get(Authorisations.PROVIDER_REFERENCE).s()).isEqualTo("G7Q9ZK2MXBZN8V65");
        assertThat(tables.authorisation("auth-v").get(Authorisations.PROVIDER_REFERENCE).s()).isEqualTo("H8R0AL3NYCAO9W76");
    }

    @Test
    void aSecondCreateWithAnotherReferenceIsAConflictNamingTheField() {
        tables.ingest(createdV2("evt-1", "auth-1", "pi_first"));
        Map<String, AttributeValue> first = tables.authorisation("auth-1");

        IngestOutcome outcome = tables.ingest(createdV2("evt-2", "auth-1", "pi_second"));

        assertThat(outcome).isInstanceOf(IngestOutcome.Refused.class);
        assertThat(((IngestOutcome.Refused) outcome).refusal().field()).isEqualTo("providerReference");
        assertThat(tables.authorisation("auth-1")).isEqualTo(first);
        // The same create again under another event id, and its version 1 form, are duplicates.
        assertThat(tables.ingest(createdV2("evt-3", "auth-1", "pi_first"))).isInstanceOf(IngestOutcome.Duplicate.class);
        assertThat(tables.ingest(createdV2("evt-4", "auth-1", null))).isInstanceOf(IngestOutcome.Duplicate.class);
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
}
