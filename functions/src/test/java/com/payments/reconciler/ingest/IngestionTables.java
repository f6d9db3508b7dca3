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
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.testing.LocalDynamo;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The set-up ContractVersion2Test and ProviderReferenceTest share: events through the real ingestion path into the
 * local tables, then what the night reads of them (candidates up to {@code cutoff}, the release it commits, the pending
 * commands delivery reads) and the stored items.
 */
final class IngestionTables {

    private final LocalDynamo.Engine engine;
    private final int shards;
    private final Instant cutoff;
    private final EventIngestion ingestion;

    IngestionTables(LocalDynamo.Engine engine, int shards, Instant cutoff) {
        this.engine = engine;
        this.shards = shards;
        this.cutoff = cutoff;
        this.ingestion = new EventIngestion(new EventDecoder(), new IngestionDecision(shards),
                new IngestStore(engine.client(), engine.tables().authorisations(), engine.tables().settlements(), Backoff.standard(7)),
                Optional.empty(), Clock.systemUTC());
    }

    IngestOutcome ingest(String body) {
        return ingestion.ingest(body);
    }

    Map<String, AttributeValue> authorisation(String id) {
        return engine.client().getItem(b -> b.tableName(engine.tables().authorisations()).consistentRead(true)
                .key(Map.of(Authorisations.AUTHORISATION_ID, AttributeValue.fromS(id)))).item();
    }

    Map<String, AttributeValue> settlement(String id) {
        return engine.client().getItem(b -> b.tableName(engine.tables().settlements()).consistentRead(true)
                .key(Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS(id)))).item();
    }

    /** The release command of {@code authorisationId}. */
    Map<String, AttributeValue> command(String authorisationId) {
        return engine.client().getItem(b -> b.tableName(engine.tables().releaseCommands()).consistentRead(true)
                .key(Map.of(ReleaseCommands.OPERATION_ID, AttributeValue.fromS(Candidate.operationIdFor(authorisationId))))).item();
    }

    /** Every shard's first page of candidates authorised before the cutoff. */
    List<Candidate> candidates() {
        CandidateFinder finder = new CandidateFinder(engine.client(), engine.tables().authorisations());
        List<Candidate> all = new ArrayList<>();
        for (int shard = 0; shard < shards; shard++) {
            all.addAll(finder.page(shard, cutoff, Map.of(), 100).candidates());
        }
        return all;
    }

    /** Every shard's first page of the pending-delivery index. */
    List<PendingCommand> pendingCommands() {
        PendingCommands commands = new PendingCommands(engine.client(), engine.tables().releaseCommands());
        List<PendingCommand> all = new ArrayList<>();
        for (int shard = 0; shard < shards; shard++) {
            all.addAll(commands.page(shard, Map.of(), 100).commands());
        }
        return all;
    }

    /** The night's release of {@code candidate} for window 2026-12-01, under a lease acquired at {@code leaseAcquiredAt}. */
    ReleaseOutcome release(Candidate candidate, Instant leaseAcquiredAt, Instant now) {
        LeaseStore leases = new LeaseStore(engine.client(), engine.tables().leases(), Duration.ofMinutes(5));
        Lease lease = ((AcquireResult.Acquired) leases.acquire("job", "run/1", leaseAcquiredAt)).lease();
        FencedWriter writer = new FencedWriter(engine.client(), engine.tables(), Backoff.standard(3));
        return writer.requestRelease(lease.token(), candidate, "2026-12-01", cutoff, now);
    }
}
