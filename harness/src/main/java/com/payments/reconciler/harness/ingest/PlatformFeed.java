package com.payments.reconciler.harness.ingest;

import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.Settlements;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A card platform feeding the local stack: its events published to the local ingestion queue, consumed by the
 * harness's event source mapping invoking the real IngestEvents, until the queue is drained. The tally is read from
 * the queue, the Invoke API and the stored items, never from the function's own counts.
 */
public final class PlatformFeed {

    /**
     * @param published messages sent, duplicates included
     * @param accepted distinct events found applied in the tables (the event ids ingestion stores on the items)
     * @param duplicates messages deleted after a successful invocation without an event of their own being applied:
     *                   deliveries of an event already applied
     * @param rejected messages the function refused: sent to the dead-letter queue by the function itself, or reported
     *                 on every receive and never deleted
     * @param deadLettered messages the redrive policy moved to the dead-letter queue
     * @param receives messages received, redeliveries included
     * @param invocations IngestEvents invocations (one per received batch)
     */
    public record Tally(long published, long accepted, long duplicates, long rejected, long deadLettered, long receives,
                        long invocations) {
    }

    /**
     * Messages published before the mapping drains the queue: the platform publishes as the mapping consumes, and
     * moto's SQS computes every queue attribute over all its messages for each message received (quadratic in the
     * depth: 2,000 messages waiting cost 0.3 s per ReceiveMessage), so the local queue is kept shallow.
     */
    static final int PUBLISH_WINDOW = 100;
    /** How long a feed may take before the run gives up on it (a night of a million events drains in minutes). */
    static final Duration DRAIN_LIMIT = Duration.ofMinutes(30);

    private final LocalIngestQueue queue;
    private final LocalEventSourceMapping mapping;

    public PlatformFeed(LocalIngestQueue queue, URI lambdaEndpoint, Clock clock) {
        this.queue = queue;
        this.mapping = new LocalEventSourceMapping(queue, lambdaEndpoint, clock);
    }

    /**
     * Publishes the bodies, drains the queue and tallies.
     *
     * @param before the events applied in the tables before this feed (a second feed in the same run counts only its own)
     * @param after reads the tables once the queue is drained
     */
    public Tally feed(List<String> bodies, long before, java.util.function.Supplier<StoreSnapshot> after) {
        return feedRecorded(bodies, before, after).tally();
    }

    /**
     * What became of each message, for a per-event account ({@link EventOutcomes}).
     *
     * @param messageIds each body's message id, in the bodies' order
     * @param refused the messages the function refused (sent to the dead-letter queue itself, or reported and never deleted)
     */
    public record Recorded(Tally tally, List<String> messageIds, java.util.Set<String> refused) {
    }

    /** As {@link #feed}, keeping each body's message id and the ones refused. */
    public Recorded feedRecorded(List<String> bodies, long before, java.util.function.Supplier<StoreSnapshot> after) {
        List<String> messageIds = new java.util.ArrayList<>(bodies.size());
        java.util.Set<String> refused = new java.util.HashSet<>();
        long deadBefore = queue.deadLettered();
        long deleted = 0;
        long receives = 0;
        long invocations = 0;
        long rejected = 0;
        for (int from = 0; from < bodies.size(); from += PUBLISH_WINDOW) {
            messageIds.addAll(queue.publishReturningIds(bodies.subList(from, Math.min(bodies.size(), from + PUBLISH_WINDOW))));
            LocalEventSourceMapping.Drained drained = mapping.drain(DRAIN_LIMIT);
            deleted += drained.deleted();
            receives += drained.receives();
            invocations += drained.invocations();
            rejected += drained.reportedNeverDeleted().size();
            refused.addAll(drained.reportedNeverDeleted());
        }
        long accepted = appliedEvents(after.get()) - before;
        long deadLettered = queue.deadLettered() - deadBefore;
        // IngestEvents sends what it refuses to the dead-letter queue itself and reports the message done, so Lambda
        // deletes it: those are refusals, not deliveries of an event already applied.
        java.util.Set<String> sentByTheFunction = new java.util.HashSet<>(queue.refusedBySender());
        sentByTheFunction.retainAll(messageIds);
        refused.addAll(sentByTheFunction);
        return new Recorded(new Tally(bodies.size(), accepted, deleted - accepted - sentByTheFunction.size(),
                rejected + sentByTheFunction.size(), deadLettered, receives, invocations),
                List.copyOf(messageIds), java.util.Set.copyOf(refused));
    }

    /** The events whose write is on the items: each ingestion write stores its event's id (docs/integration.md). */
    public static long appliedEvents(StoreSnapshot snapshot) {
        long n = 0;
        for (Map<String, AttributeValue> item : snapshot.of(Authorisations.SCHEMA)) {
            n += (item.containsKey(Authorisations.CREATED_EVENT_ID) ? 1 : 0) + (item.containsKey(Authorisations.END_EVENT_ID) ? 1 : 0);
        }
        for (Map<String, AttributeValue> item : snapshot.of(Settlements.SCHEMA)) {
            n += item.containsKey(Settlements.SETTLEMENT_EVENT_ID) ? 1 : 0;
        }
        return n;
    }

    public LocalIngestQueue queue() {
        return queue;
    }
}
