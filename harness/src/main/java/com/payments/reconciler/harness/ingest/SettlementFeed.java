package com.payments.reconciler.harness.ingest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.harness.local.LocalPipeline;
import com.payments.reconciler.harness.local.LocalRun;
import com.payments.reconciler.ingest.EventDecoder;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.workflow.Json;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Settlements (and voids or expiries) arriving while a night runs, as the card platform sends them: events through
 * the local ingestion queue and the real IngestEvents, each published twice and all in a shuffled order (a standard
 * queue delivers at least once and unordered). {@code settledAt} is the harness clock's now, which the audit compares
 * with the provider's effects (I3 at the call). A settlement not applied in the queue's {@code maxReceiveCount} receives
 * stops the schedule rather than leaving the night without it.
 */
public final class SettlementFeed implements AutoCloseable {

    private final LocalPipeline pipeline;
    private final Clock clock;
    private final SplittableRandom random;
    private final LocalIngestQueue queue;
    private final PlatformFeed feed;

    private SettlementFeed(LocalPipeline pipeline, Clock clock, SplittableRandom random, LocalIngestQueue queue) {
        this.pipeline = pipeline;
        this.clock = clock;
        this.random = random;
        this.queue = queue;
        this.feed = new PlatformFeed(queue, pipeline.lambdaEndpoint(), Clock.systemUTC());
    }

    /** A queue on the pipeline's engine (create it after each reset of the engine) and the in-process IngestEvents. */
    public static SettlementFeed open(LocalPipeline pipeline, Clock clock, long seed) {
        LocalIngestQueue queue = LocalIngestQueue.create(pipeline.engineEndpoint(), "chaos-", LocalRun.localMapping(LocalPipeline.Hosting.IN_PROCESS));
        return new SettlementFeed(pipeline, clock, new SplittableRandom(seed), queue);
    }

    /** The ingestion queue the events go through (the chaos campaign's Adyen webhook rounds send their outcomes to it too). */
    public LocalIngestQueue queue() {
        return queue;
    }

    /** Settles each authorisation (one event each, the k-th of an id its own event), duplicated and reordered. */
    public synchronized PlatformFeed.Tally settle(List<String> authorisationIds) {
        // The contract refuses instants finer than a millisecond (the tables hold epoch milliseconds).
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        List<String> bodies = new ArrayList<>();
        for (int k = 0; k < authorisationIds.size(); k++) {
            bodies.add(settlement(authorisationIds.get(k), "mid-run-" + k, now));
        }
        return publish(bodies, "settlement");
    }

    /**
     * Ends each authorisation the way the platform records a void, an expiry or a full reversal ({@code type} is
     * {@link EventDecoder#TYPE_VOIDED}, {@link EventDecoder#TYPE_EXPIRED} or {@link EventDecoder#TYPE_REVERSED}), at the clock's
     * now, duplicated and reordered.
     */
    public synchronized PlatformFeed.Tally end(List<String> authorisationIds, String type) {
        if (!EventDecoder.TYPE_VOIDED.equals(type) && !EventDecoder.TYPE_EXPIRED.equals(type) && !EventDecoder.TYPE_REVERSED.equals(type)) {
            throw new IllegalArgumentException("an end is " + EventDecoder.TYPE_VOIDED + ", " + EventDecoder.TYPE_EXPIRED + " or "
                    + EventDecoder.TYPE_REVERSED + ", not " + type);
        }
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        List<String> bodies = new ArrayList<>();
        for (String id : authorisationIds) {
            ObjectNode event = Json.mapper().createObjectNode().put("version", EventDecoder.VERSION).put("type", type).put("eventId", "ended-mid-run:" + id)
                    .put("authorisationId", id);
            // Contract version 2's full reversal ends an authorisation like a void: the whole remaining hold given back.
            if (EventDecoder.TYPE_REVERSED.equals(type)) {
                event.put("full", true).put("reversedAt", now.toString());
            } else {
                event.put("endedAt", now.toString());
            }
            bodies.add(event.toString());
        }
        return publish(bodies, "end");
    }

    private PlatformFeed.Tally publish(List<String> events, String what) {
        List<String> bodies = new ArrayList<>();
        for (String body : events) {
            bodies.add(body);
            bodies.add(body);
        }
        for (int i = bodies.size() - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            String swap = bodies.get(i);
            bodies.set(i, bodies.get(j));
            bodies.set(j, swap);
        }
        long before = PlatformFeed.appliedEvents(StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables()));
        PlatformFeed.Tally tally = feed.feed(bodies, before, () -> StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables()));
        if (tally.rejected() > 0) {
            // Valid events are never refused: a rejection here is a harness defect that would quietly leave the
            // night without the events it is meant to race (the reason is in IngestEvents' log, by message id).
            throw new IllegalStateException(tally.rejected() + " of the mid-run " + what + " events were not applied in "
                    + queue.spec().maxReceiveCount() + " receives and went to the dead-letter queue");
        }
        return tally;
    }

    /** The settlement of an authorisation, for its stored amount and currency. */
    private String settlement(String authorisationId, String eventSuffix, Instant settledAt) {
        Map<String, AttributeValue> item = pipeline.dynamo().getItem(b -> b.tableName(pipeline.tables().authorisations()).consistentRead(true)
                .key(Map.of(Authorisations.AUTHORISATION_ID, AttributeValue.fromS(authorisationId)))).item();
        ObjectNode event = Json.mapper().createObjectNode().put("version", EventDecoder.VERSION).put("type", "settlement.posted")
                .put("eventId", "settled-" + eventSuffix + ":" + authorisationId).put("authorisationId", authorisationId)
                .put("amountMinor", Long.parseLong(item.get(Authorisations.AMOUNT_MINOR).n()))
                .put("currency", item.get(Authorisations.CURRENCY).s())
                .put("settledAt", settledAt.toString());
        return event.toString();
    }

    @Override
    public void close() {
        queue.close();
    }
}
