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
     * @param rejected messages the function refused: sent to the refused-events queue by the function itself, or reported
     *                 on every receive and never deleted
     * @param deadLettered messages the redrive policy moved to the dead-letter queue
     * @param receives messages received, redeliveries included
     * @param invocations IngestEvents invocations (one per received batch)
     */
    public record Tally(long published, long accepted, long duplicates, long rejected, long deadLettered, long receives,
                        long invocations) {
    }

    /**
     * How many messages the platform keeps in the queue ahead of the mapping (waiting or in flight) at most: moto's SQS
     * scans every message of the queue for each ReceiveMessage (3 ms per receive of 10 at 100 messages, 16 ms at 1,000,
     * with the launcher's sqs_patch), so the local queue is kept shallow — and at least two batches per poller, so no
     * poller waits for the platform.
     */
    static final int PUBLISH_WINDOW = 100;
    /** Messages per publication round: five SendMessageBatch calls. */
    static final int PUBLISH_ROUND = 50;
    /** How long a feed may take before the run gives up on it (a night of a million events drains in minutes). */
    static final Duration DRAIN_LIMIT = Duration.ofMinutes(30);

    /** Told how many of the feed's messages the mapping is done with, after each invocation. */
    @FunctionalInterface
    public interface Progress {
        Progress NONE = (done, total) -> { };

        void done(long done, long total);
    }

    private final LocalIngestQueue queue;
    private final LocalEventSourceMapping mapping;
    private final Object flow = new Object();
    private volatile Progress progress = Progress.NONE;
    private volatile long total;

    /** One poller: the chaos campaign's and the bench's feeds, whose schedules and request counts assume one. */
    public PlatformFeed(LocalIngestQueue queue, URI lambdaEndpoint, Clock clock) {
        this(queue, lambdaEndpoint, clock, 1, false);
    }

    /**
     * {@code pollers} batches invoked at once, as the deployed mapping runs them ({@link MappingSpec#pollers()});
     * {@code staggered}: each poller starts once the one before it had its first answer (functions in sandboxes).
     */
    public PlatformFeed(LocalIngestQueue queue, URI lambdaEndpoint, Clock clock, int pollers, boolean staggered) {
        this.queue = queue;
        this.mapping = new LocalEventSourceMapping(queue, lambdaEndpoint, clock, pollers, staggered, done -> {
            synchronized (flow) {
                flow.notifyAll();
            }
            progress.done(done, total);
        });
    }

    /** Reports the mapping's progress from now on. */
    public PlatformFeed withProgress(Progress value) {
        this.progress = value;
        return this;
    }

    public int pollers() {
        return mapping.pollers();
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
     * @param refused the messages the function refused (sent to the refused-events queue itself, or reported and never deleted)
     */
    public record Recorded(Tally tally, List<String> messageIds, java.util.Set<String> refused) {
    }

    /**
     * As {@link #feed}, keeping each body's message id and the ones refused. The platform publishes while the mapping
     * consumes, as on AWS, keeping at most {@link #PUBLISH_WINDOW} messages ahead of it.
     */
    public Recorded feedRecorded(List<String> bodies, long before, java.util.function.Supplier<StoreSnapshot> after) {
        List<String> messageIds = new java.util.ArrayList<>(bodies.size());
        long deadBefore = queue.deadLettered();
        total = bodies.size();
        java.util.concurrent.atomic.AtomicReference<LocalEventSourceMapping.Drained> drained = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicReference<RuntimeException> failed = new java.util.concurrent.atomic.AtomicReference<>();
        mapping.publishing();
        Thread consumer = Thread.ofVirtual().name("ingest-mapping").start(() -> {
            try {
                drained.set(mapping.drain(DRAIN_LIMIT));
            } catch (RuntimeException e) {
                failed.set(e);
            } finally {
                synchronized (flow) {
                    flow.notifyAll();
                }
            }
        });
        try {
            for (int from = 0; from < bodies.size(); from += PUBLISH_ROUND) {
                awaitRoom(from, consumer);
                messageIds.addAll(queue.publishReturningIds(bodies.subList(from, Math.min(bodies.size(), from + PUBLISH_ROUND))));
                mapping.sent();
            }
        } finally {
            mapping.published();
        }
        try {
            consumer.join();
        } catch (InterruptedException e) {
            consumer.interrupt();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the ingestion queue drained", e);
        }
        if (failed.get() != null) {
            throw failed.get();
        }
        LocalEventSourceMapping.Drained result = drained.get();
        java.util.Set<String> refused = new java.util.HashSet<>(result.reportedNeverDeleted());
        long accepted = appliedEvents(after.get()) - before;
        long deadLettered = queue.deadLettered() - deadBefore;
        // IngestEvents sends what it refuses to the refused-events queue itself and reports the message done, so Lambda
        // deletes it: those are refusals, not deliveries of an event already applied.
        java.util.Set<String> sentByTheFunction = new java.util.HashSet<>(queue.refusedBySender());
        sentByTheFunction.retainAll(messageIds);
        refused.addAll(sentByTheFunction);
        return new Recorded(new Tally(bodies.size(), accepted, result.deleted() - accepted - sentByTheFunction.size(),
                result.reportedNeverDeleted().size() + sentByTheFunction.size(), deadLettered, result.receives(), result.invocations()),
                List.copyOf(messageIds), java.util.Set.copyOf(refused));
    }

    /** Waits until the mapping is at most {@link #PUBLISH_WINDOW} messages behind the {@code published} ones. */
    private void awaitRoom(long published, Thread consumer) {
        synchronized (flow) {
            while (published - mapping.done() > PUBLISH_WINDOW - PUBLISH_ROUND && consumer.isAlive()) {
                try {
                    // Woken by each invocation's end; the bound only guards against a missed wake-up.
                    flow.wait(1000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while publishing to the ingestion queue", e);
                }
            }
        }
    }

    /**
     * The events whose write is on the items: each ingestion write stores its event's id (docs/integration.md), or, for a
     * later numbered capture, its sequence.
     */
    public static long appliedEvents(StoreSnapshot snapshot) {
        long n = 0;
        for (Map<String, AttributeValue> item : snapshot.of(Authorisations.SCHEMA)) {
            n += (item.containsKey(Authorisations.CREATED_EVENT_ID) ? 1 : 0) + (item.containsKey(Authorisations.END_EVENT_ID) ? 1 : 0);
            // Contract version 2: each increment and partial reversal applied keeps its event id in a set.
            AttributeValue changes = item.get(Authorisations.LIFECYCLE_EVENT_IDS);
            n += changes != null && changes.hasSs() ? changes.ss().size() : 0;
        }
        for (Map<String, AttributeValue> item : snapshot.of(Settlements.SCHEMA)) {
            // The feed's watermark item counts once: a later watermark moves it, so it reads as a duplicate here.
            n += item.containsKey(Settlements.SETTLEMENT_EVENT_ID) || item.containsKey(Settlements.WATERMARK_EVENT_ID) ? 1 : 0;
            // Numbered captures: the first stored is the settlement's event; each later one adds its sequence to the map.
            AttributeValue captures = item.get(Settlements.CAPTURES);
            n += captures != null && captures.hasM() && !captures.m().isEmpty() ? captures.m().size() - 1 : 0;
        }
        return n;
    }

    public LocalIngestQueue queue() {
        return queue;
    }
}
