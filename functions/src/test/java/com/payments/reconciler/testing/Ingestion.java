package com.payments.reconciler.testing;

import java.time.Clock;
import java.util.Optional;
import com.payments.reconciler.ingest.EventDecoder;
import com.payments.reconciler.ingest.EventIngestion;
import com.payments.reconciler.ingest.IngestOutcome;
import com.payments.reconciler.ingest.IngestStore;
import com.payments.reconciler.ingest.IngestionDecision;
import com.payments.reconciler.reconcile.Shards;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.Settlements;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import static com.payments.reconciler.store.Attr.n;
import static com.payments.reconciler.store.Attr.s;

/** Plays the systems outside this job: card authorisation capture and settlement ingestion. */
public final class Ingestion {

    private final DynamoDbClient dynamo;
    private final TableNames tables;
    private final int shards;

    public Ingestion(DynamoDbClient dynamo, TableNames tables, int shards) {
        this.dynamo = dynamo;
        this.tables = tables;
        this.shards = shards;
    }

    public void authorise(String id, long amountMinor, Instant authorisedAt) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put(Authorisations.AUTHORISATION_ID, s(id));
        item.put(Authorisations.STATE, s(Authorisations.STATE_AUTHORISED));
        item.put(Authorisations.VERSION, n(1));
        item.put(Authorisations.AMOUNT_MINOR, n(amountMinor));
        item.put(Authorisations.CURRENCY, s("EUR"));
        item.put(Authorisations.MERCHANT_ID, s("merchant-1"));
        item.put(Authorisations.AUTHORISED_AT, n(authorisedAt.toEpochMilli()));
        item.put(Authorisations.PENDING_SHARD, s(Shards.key(Shards.of(id, shards))));
        dynamo.putItem(b -> b.tableName(tables.authorisations()).item(item));
    }

    /** A settlement arrives: the settlement record, and the authorisation leaves the pending index. */
    public void settle(String id, Instant at) {
        dynamo.putItem(b -> b.tableName(tables.settlements()).item(Map.of(
                Settlements.AUTHORISATION_ID, s(id), Settlements.SETTLED_AT, n(at.toEpochMilli()))));
    }

    /**
     * The card platform ends an authorisation ({@code authorisation.voided} or {@code authorisation.expired}), through
     * the real ingestion path: on an authorisation the reconciler already decided, the end is recorded on its item.
     */
    public IngestOutcome end(String id, String type, Instant at) {
        EventIngestion events = new EventIngestion(new EventDecoder(), new IngestionDecision(shards),
                new IngestStore(dynamo, tables.authorisations(), tables.settlements(), Backoff.standard(7)), Optional.empty(), Clock.systemUTC());
        IngestOutcome outcome = events.ingest("""
                {"version":1,"type":"%s","eventId":"evt-end-%s","authorisationId":"%s","endedAt":"%s"}"""
                .formatted(type, id, id, at));
        if (!(outcome instanceof IngestOutcome.Accepted)) {
            throw new IllegalStateException("the end of " + id + " was not accepted: " + outcome);
        }
        return outcome;
    }

    /** Any event body through the real ingestion path (decoder, decision, conditional writes). */
    public IngestOutcome ingest(String body) {
        return new EventIngestion(new EventDecoder(), new IngestionDecision(shards),
                new IngestStore(dynamo, tables.authorisations(), tables.settlements(), Backoff.standard(7)), Optional.empty(), Clock.systemUTC()).ingest(body);
    }

    /** The platform's {@code feed.watermark} for the settlement feed, through the real ingestion path. */
    public IngestOutcome watermark(String eventId, Instant watermark) {
        EventIngestion events = new EventIngestion(new EventDecoder(), new IngestionDecision(shards),
                new IngestStore(dynamo, tables.authorisations(), tables.settlements(), Backoff.standard(7)), Optional.empty(), Clock.systemUTC());
        return events.ingest("""
                {"version":1,"type":"feed.watermark","eventId":"%s","feed":"settlements","watermark":"%s"}"""
                .formatted(eventId, watermark));
    }

    public Map<String, AttributeValue> authorisation(String id) {
        return dynamo.getItem(b -> b.tableName(tables.authorisations()).consistentRead(true)
                .key(Map.of(Authorisations.AUTHORISATION_ID, s(id)))).item();
    }

    public int shards() {
        return shards;
    }
}
