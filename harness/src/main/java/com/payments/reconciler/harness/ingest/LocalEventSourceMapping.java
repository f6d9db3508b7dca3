package com.payments.reconciler.harness.ingest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.testing.LocalAwsClients;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.LambdaFunction;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * Lambda's SQS event source mapping, played by the harness against the local queue: pollers that each
 * {@code ReceiveMessage} batches of up to the mapping's batch size (gathering for up to its
 * {@code MaximumBatchingWindowInSeconds}), build the SQS event JSON Lambda builds from them, invoke IngestEvents
 * synchronously through the local Lambda Invoke API (in-process or in its sandboxes, as every other function is
 * invoked), then apply {@link BatchResponse}: the successes deleted, the reported failures left for SQS to make visible
 * again and, after {@code maxReceiveCount} receives, to move to the dead-letter queue by the redrive policy.
 *
 * <p>Several pollers at once, as Lambda runs them: Lambda starts with five concurrent batches and scales up to the
 * mapping's {@code MaximumConcurrency} (AWS Lambda Developer Guide, "Configuring scaling behavior for SQS event source
 * mappings"), so the harness runs {@link MappingSpec#pollers()} of them; the local Lambda service gives IngestEvents as
 * many sandboxes, up to its reserved concurrency (the pollers start one after another, each once the one before it has
 * had its first answer: see {@link #startPoller}). A message is invisible to the other pollers while its batch is being
 * processed (the queue's visibility timeout); a message the function reported is made visible again as soon as the
 * invocation answered, where SQS waits for the visibility timeout (docs/emulator-differences.md, "Ingestion"). Every
 * figure is counted by message id, so a message SQS delivers to two pollers at once (at-least-once delivery) is counted
 * once as deleted, and twice as received.
 */
public final class LocalEventSourceMapping {

    /**
     * What the mapping saw: every figure is counted at the queue or the Invoke API, none reported by the function.
     *
     * @param deleted distinct messages deleted (a message deleted by two pollers counts once)
     * @param reportedNeverDeleted messages the function reported and that no poller deleted
     */
    public record Drained(long receives, long invocations, long functionErrors, long deleted, Set<String> reportedNeverDeleted) {
    }

    /** Told after each invocation: how many distinct messages are done (deleted, or reported and given back). */
    @FunctionalInterface
    public interface Listener {
        Listener NONE = done -> { };

        void invoked(long done);
    }

    private static final ObjectMapper JSON = Json.mapper();
    /**
     * How long an idle poller waits before receiving again while other pollers' batches are in flight or the platform
     * is still publishing; it is woken earlier by either.
     */
    private static final Duration IDLE_POLL = Duration.ofMillis(100);

    private final LocalIngestQueue queue;
    private final URI lambdaEndpoint;
    private final Clock clock;
    private final int pollers;
    private final boolean staggered;
    private final Listener listener;
    private final Object lock = new Object();
    /** Bumped whenever something a waiting poller could now receive may have happened (a publication, an invocation's end). */
    private long generation;
    private boolean publishing;
    private boolean stopped;
    private final Set<String> deletedIds = ConcurrentHashMap.newKeySet();
    private final Set<String> reported = ConcurrentHashMap.newKeySet();
    private final AtomicLong receives = new AtomicLong();
    private final AtomicLong invocations = new AtomicLong();
    private final AtomicLong functionErrors = new AtomicLong();

    /** One poller (the chaos campaign and the bench, whose schedules and request counts assume one). */
    public LocalEventSourceMapping(LocalIngestQueue queue, URI lambdaEndpoint, Clock clock) {
        this(queue, lambdaEndpoint, clock, 1, false, Listener.NONE);
    }

    /**
     * @param pollers batches invoked at once ({@link MappingSpec#pollers()} plays the deployed mapping)
     * @param staggered each poller starts once the one before it had its first answer (sandbox hosting: see {@link #startPoller})
     * @param listener told after each invocation how many messages are done (the run's progress line)
     */
    public LocalEventSourceMapping(LocalIngestQueue queue, URI lambdaEndpoint, Clock clock, int pollers, boolean staggered,
                                   Listener listener) {
        if (pollers < 1) {
            throw new IllegalArgumentException("pollers must be at least 1, was " + pollers);
        }
        this.queue = queue;
        this.lambdaEndpoint = lambdaEndpoint;
        this.clock = clock;
        this.pollers = pollers;
        this.staggered = staggered;
        this.listener = listener;
    }

    public int pollers() {
        return pollers;
    }

    /** Messages the mapping is done with so far: deleted, or reported by the function and given back to the queue. */
    public long done() {
        return deletedIds.size() + reported.stream().filter(id -> !deletedIds.contains(id)).count();
    }

    /**
     * The platform is publishing: pollers that find the queue empty wait for more instead of stopping, until
     * {@link #published()}.
     */
    public void publishing() {
        synchronized (lock) {
            publishing = true;
            generation++;
            lock.notifyAll();
        }
    }

    /** Messages were published (wakes idle pollers). */
    public void sent() {
        synchronized (lock) {
            generation++;
            lock.notifyAll();
        }
    }

    /** The platform has published everything: pollers stop once the queue holds nothing, waiting or in flight. */
    public void published() {
        synchronized (lock) {
            publishing = false;
            generation++;
            lock.notifyAll();
        }
    }

    /**
     * Polls with {@link #pollers()} pollers until the platform has published everything and the queue holds nothing,
     * waiting or in flight: every message was deleted or moved to the dead-letter queue. The figures are this drain's.
     */
    public Drained drain(Duration limit) {
        Instant deadline = clock.instant().plus(limit);
        synchronized (lock) {
            stopped = false;
        }
        deletedIds.clear();
        reported.clear();
        receives.set(0);
        invocations.set(0);
        functionErrors.set(0);
        List<Thread> threads = new ArrayList<>();
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        try (HttpClient http = HttpClient.newHttpClient()) {
            for (int i = 0; i < (staggered ? 1 : pollers); i++) {
                startPoller(threads, http, deadline, limit, failure);
            }
            // Pollers start one after another (each once the previous one's first invocation answered): joined as they come.
            for (int joined = 0; ; joined++) {
                Thread next;
                synchronized (threads) {
                    if (joined == threads.size()) {
                        break;
                    }
                    next = threads.get(joined);
                }
                next.join();
            }
        } catch (InterruptedException e) {
            synchronized (threads) {
                threads.forEach(Thread::interrupt);
            }
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while draining the ingestion queue", e);
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        Set<String> neverDeleted = new HashSet<>(reported);
        neverDeleted.removeAll(deletedIds);
        return new Drained(receives.get(), invocations.get(), functionErrors.get(), deletedIds.size(), Set.copyOf(neverDeleted));
    }

    /**
     * Starts a poller; when staggered, after its first invocation answered it starts the next, up to {@link #pollers()}. Staggered so
     * that the local machine does not initialise several IngestEvents sandboxes (JVMs) at once: on 2 cores, five at
     * once overran Lambda's 10 s init limit under load, where on AWS each environment initialises on its own.
     */
    private void startPoller(List<Thread> threads, HttpClient http, Instant deadline, Duration limit, AtomicReference<RuntimeException> failure) {
        synchronized (threads) {
            if (threads.size() >= pollers) {
                return;
            }
            int number = threads.size() + 1;
            threads.add(Thread.ofVirtual().name("ingest-poller-" + number).start(() -> {
                try {
                    poll(http, deadline, limit, staggered ? () -> startPoller(threads, http, deadline, limit, failure) : () -> { });
                } catch (RuntimeException e) {
                    failure.compareAndSet(null, e);
                    stopAll();
                }
            }));
        }
    }

    private void stopAll() {
        synchronized (lock) {
            stopped = true;
            lock.notifyAll();
        }
    }

    private void poll(HttpClient http, Instant deadline, Duration limit, Runnable afterFirstInvocation) {
        MappingSpec spec = queue.spec();
        boolean first = true;
        while (true) {
            long seen;
            synchronized (lock) {
                if (stopped) {
                    return;
                }
                seen = generation;
            }
            if (clock.instant().isAfter(deadline)) {
                throw new IllegalStateException("the ingestion queue did not drain within " + limit + ": " + queue.notDone() + " messages left");
            }
            List<Message> batch = receiveBatch(spec);
            if (!batch.isEmpty()) {
                invokeAndSettle(http, batch, spec);
                if (first) {
                    first = false;
                    afterFirstInvocation.run();
                }
                continue;
            }
            synchronized (lock) {
                if (stopped) {
                    return;
                }
                if (publishing || generation != seen) {
                    // More may come: wait for a publication or another poller's invocation to end (or the idle poll).
                    if (generation == seen) {
                        waitOnLock();
                    }
                    continue;
                }
            }
            // Nothing received, nothing published since: done once the queue holds nothing, waiting or in flight (the
            // other pollers' batches are in flight until deleted or given back).
            if (queue.notDone() == 0) {
                stopAll();
                return;
            }
            synchronized (lock) {
                if (generation == seen && !stopped) {
                    waitOnLock();
                }
            }
        }
    }

    private void waitOnLock() {
        try {
            lock.wait(IDLE_POLL.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the ingestion queue", e);
        }
    }

    /**
     * One batch as the mapping gathers it: short polls (a long poll would hold the local engine, which serves one
     * request at a time) until the batch is full, the queue has nothing visible, or the batching window has passed.
     */
    private List<Message> receiveBatch(MappingSpec spec) {
        List<Message> batch = new ArrayList<>();
        Instant windowEnds = clock.instant().plus(spec.batchingWindow());
        while (batch.size() < spec.batchSize()) {
            int room = spec.batchSize() - batch.size();
            List<Message> got = queue.sqs().receiveMessage(b -> b.queueUrl(queue.url()).maxNumberOfMessages(room)
                    .waitTimeSeconds(0).messageSystemAttributeNames(MessageSystemAttributeName.ALL)).messages();
            batch.addAll(got);
            if (got.isEmpty() || !clock.instant().isBefore(windowEnds)) {
                break;
            }
        }
        return batch;
    }

    private void invokeAndSettle(HttpClient http, List<Message> batch, MappingSpec spec) {
        receives.addAndGet(batch.size());
        invocations.incrementAndGet();
        try {
            Invoked invoked = invoke(http, event(batch));
            if (invoked.functionError()) {
                functionErrors.incrementAndGet();
            }
            List<String> ids = batch.stream().map(Message::messageId).toList();
            List<String> toDelete = BatchResponse.toDelete(ids, invoked.functionError(), invoked.answer(), spec.reportBatchItemFailures());
            List<DeleteMessageBatchRequestEntry> deletes = new ArrayList<>();
            List<ChangeMessageVisibilityBatchRequestEntry> giveBack = new ArrayList<>();
            for (int i = 0; i < batch.size(); i++) {
                Message m = batch.get(i);
                if (toDelete.contains(m.messageId())) {
                    deletes.add(DeleteMessageBatchRequestEntry.builder().id(Integer.toString(i)).receiptHandle(m.receiptHandle()).build());
                } else {
                    giveBack.add(ChangeMessageVisibilityBatchRequestEntry.builder().id(Integer.toString(i))
                            .receiptHandle(m.receiptHandle()).visibilityTimeout(0).build());
                }
            }
            if (!deletes.isEmpty()) {
                var response = queue.sqs().deleteMessageBatch(b -> b.queueUrl(queue.url()).entries(deletes));
                if (response.hasFailed() && !response.failed().isEmpty()) {
                    throw new IllegalStateException("the local queue refused to delete " + response.failed().size() + " messages: "
                            + response.failed().getFirst().message());
                }
                deletedIds.addAll(toDelete);
            }
            if (!giveBack.isEmpty()) {
                // Received again by the next poll rather than after the visibility timeout (docs/emulator-differences.md).
                queue.sqs().changeMessageVisibilityBatch(b -> b.queueUrl(queue.url()).entries(giveBack));
                ids.stream().filter(id -> !toDelete.contains(id)).forEach(reported::add);
            }
        } finally {
            synchronized (lock) {
                generation++;
                lock.notifyAll();
            }
        }
        listener.invoked(done());
    }

    /** The SQS event as Lambda builds it for a function (the Lambda Developer Guide's example event for SQS). */
    ObjectNode event(List<Message> batch) {
        ObjectNode event = JSON.createObjectNode();
        ArrayNode records = event.putArray("Records");
        for (Message m : batch) {
            ObjectNode record = records.addObject();
            record.put("messageId", m.messageId());
            record.put("receiptHandle", m.receiptHandle());
            record.put("body", m.body());
            ObjectNode attributes = record.putObject("attributes");
            for (Map.Entry<MessageSystemAttributeName, String> a : m.attributes().entrySet()) {
                attributes.put(a.getKey().toString(), a.getValue());
            }
            record.putObject("messageAttributes");
            record.put("md5OfBody", m.md5OfBody());
            record.put("eventSource", "aws:sqs");
            record.put("eventSourceARN", queue.arn());
            record.put("awsRegion", LocalAwsClients.REGION.id());
        }
        return event;
    }

    private record Invoked(boolean functionError, byte[] answer) {
    }

    private Invoked invoke(HttpClient http, ObjectNode event) {
        URI uri = lambdaEndpoint.resolve("/2015-03-31/functions/" + LambdaFunction.INGEST_EVENTS.logicalName() + "/invocations");
        try {
            HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(uri)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(event))).build(), HttpResponse.BodyHandlers.ofByteArray());
            boolean error = response.statusCode() != 200 || response.headers().firstValue("X-Amz-Function-Error").isPresent();
            return new Invoked(error, response.body());
        } catch (IOException e) {
            // The mapping could not invoke: as a function error, the batch stays on the queue.
            return new Invoked(true, new byte[0]);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while invoking " + LambdaFunction.INGEST_EVENTS.logicalName(), e);
        }
    }
}
