package com.payments.reconciler.audit;

import java.time.Clock;
import java.util.Optional;
import com.payments.reconciler.ingest.EventDecoder;
import com.payments.reconciler.ingest.EventIngestion;
import com.payments.reconciler.ingest.IngestOutcome;
import com.payments.reconciler.ingest.IngestStore;
import com.payments.reconciler.ingest.IngestionDecision;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.testing.LocalDynamo;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The audit and ingestion's writes: an authorisation the platform voided before the decision is not lost
 * (I4), and a void recorded beside a decision is not a leader's write (I1); while a write that takes a decided
 * authorisation out of RELEASE_REQUESTED, or one left AUTHORISED, is still found.
 */
@ExtendWith(LocalDynamo.class)
class IngestionAuditTest {

    private static String created(String id) {
        return """
                {"version":1,"type":"authorisation.created","eventId":"c-%s","authorisationId":"%s","amountMinor":1250,\
                "currency":"EUR","merchantId":"m-1","authorisedAt":"%s"}""".formatted(id, id, WorldOnlyAuditTest.CUTOFF.minusSeconds(3_600));
    }

    private static String voided(String id) {
        return """
                {"version":1,"type":"authorisation.voided","eventId":"v-%s","authorisationId":"%s","endedAt":"%s"}"""
                .formatted(id, id, WorldOnlyAuditTest.NOW.minusSeconds(60));
    }

    private static EventIngestion ingestion(LocalDynamo.Engine engine) {
        return new EventIngestion(new EventDecoder(), new IngestionDecision(1),
                new IngestStore(engine.client(), engine.tables().authorisations(), engine.tables().settlements(), WorldOnlyAuditTest.NO_WAIT), Optional.empty(), Clock.systemUTC());
    }

    private static InvariantAudit.Report audit(LocalDynamo.Engine engine) {
        return new InvariantAudit(engine.tables()).audit(engine.snapshot(), engine.writes(), List.of(),
                new InvariantAudit.Completion(WorldOnlyAuditTest.CUTOFF, false));
    }

    @Test
    void anAuthorisationVoidedBeforeTheDecisionIsNotLost(LocalDynamo.Engine engine) {
        EventIngestion ingestion = ingestion(engine);
        ingestion.ingest(created("auth-1"));
        ingestion.ingest(voided("auth-1"));

        InvariantAudit.Report report = audit(engine);

        assertThat(report.violations()).isEmpty();
        assertThat(report.invariants()).containsEntry("I4", true);
    }

    @Test
    void aVoidRecordedBesideADecisionIsNotALeadersWrite(LocalDynamo.Engine engine) {
        EventIngestion ingestion = ingestion(engine);
        ingestion.ingest(created("auth-1"));
        LeaseToken lease = WorldOnlyAuditTest.acquire(engine, "a", WorldOnlyAuditTest.NOW);
        WorldOnlyAuditTest.decide(engine, lease, "auth-1");
        assertThat(ingestion.ingest(voided("auth-1"))).isEqualTo(new IngestOutcome.Accepted("v-auth-1", "RecordEndBesideDecision", 2));

        InvariantAudit.Report report = audit(engine);

        assertThat(report.violations()).isEmpty();
        assertThat(report.unfencedWrites()).isEmpty();
    }

    @Test
    void aWriteThatTakesADecisionBackOutOfReleaseRequestedIsStillI1(LocalDynamo.Engine engine) {
        // The known-bad input: what ingestion must never do, written without a lease check.
        ingestion(engine).ingest(created("auth-1"));
        LeaseToken lease = WorldOnlyAuditTest.acquire(engine, "a", WorldOnlyAuditTest.NOW);
        WorldOnlyAuditTest.decide(engine, lease, "auth-1");
        engine.client().updateItem(b -> b.tableName(engine.tables().authorisations())
                .key(Map.of(Authorisations.AUTHORISATION_ID, AttributeValue.fromS("auth-1")))
                .updateExpression("SET #s = :voided, endEventId = :e").expressionAttributeNames(Map.of("#s", Authorisations.STATE))
                .expressionAttributeValues(Map.of(":voided", AttributeValue.fromS(Authorisations.STATE_VOIDED), ":e", AttributeValue.fromS("v-x"))));

        InvariantAudit.Report report = audit(engine);

        assertThat(report.violations()).anySatisfy(v -> {
            assertThat(v.invariant()).isEqualTo("I1");
            assertThat(v.detail()).contains("auth-1 changed from RELEASE_REQUESTED to VOIDED");
        });
    }

    @Test
    void aNoteBesideADecisionThatAlsoMovesItsVersionIsStillI1(LocalDynamo.Engine engine) {
        ingestion(engine).ingest(created("auth-1"));
        LeaseToken lease = WorldOnlyAuditTest.acquire(engine, "a", WorldOnlyAuditTest.NOW);
        WorldOnlyAuditTest.decide(engine, lease, "auth-1");
        engine.client().updateItem(b -> b.tableName(engine.tables().authorisations())
                .key(Map.of(Authorisations.AUTHORISATION_ID, AttributeValue.fromS("auth-1")))
                .updateExpression("SET endEventId = :e, version = version + :one")
                .expressionAttributeValues(Map.of(":e", AttributeValue.fromS("v-x"), ":one", AttributeValue.fromN("1"))));

        assertThat(audit(engine).invariants()).containsEntry("I1", false);
    }
}
