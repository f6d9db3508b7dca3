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
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * Lambda's SQS event source mapping, played by the harness against the local queue: {@code ReceiveMessage} batches
 * of up to the mapping's batch size, the SQS event JSON Lambda builds from them, a synchronous invocation of
 * IngestEvents through the local Lambda Invoke API (in-process or in its sandboxes, as every other function is
 * invoked), then {@link BatchResponse}: the successes deleted, the reported failures left for SQS to make visible
 * again and, after {@code maxReceiveCount} receives, to move to the dead-letter queue by the redrive policy.
 *
 * <p>One poller, where AWS runs up to the mapping's {@code MaximumConcurrency}: the local engine serves one request
 * at a time, so more pollers would not apply events faster, and with one poller a visibility timeout of 0 is exactly
 * "visible again only after the invocation answered" — a reported message comes back in the next batch instead of
 * minutes later (docs/emulator-differences.md, "Ingestion").
 */
public final class LocalEventSourceMapping {

    /** What the mapping saw: every figure is counted at the queue or the Invoke API, none reported by the function. */
    public record Drained(long receives, long invocations, long functionErrors, long deleted, Set<String> reportedNeverDeleted) {
    }

    private static final ObjectMapper JSON = Json.mapper();
    /** Between empty receives while messages are in flight (only with a visibility timeout above 0). */
    private static final Duration IDLE_POLL = Duration.ofMillis(100);

    private final LocalIngestQueue queue;
    private final URI lambdaEndpoint;
    private final Clock clock;

    public LocalEventSourceMapping(LocalIngestQueue queue, URI lambdaEndpoint, Clock clock) {
        this.queue = queue;
        this.lambdaEndpoint = lambdaEndpoint;
        this.clock = clock;
    }

    /**
     * Polls until the queue holds nothing, waiting or in flight: every message was deleted or moved to the
     * dead-letter queue.
     */
    public Drained drain(Duration limit) {
        Instant deadline = clock.instant().plus(limit);
        long receives = 0;
        long invocations = 0;
        long functionErrors = 0;
        long deleted = 0;
        Set<String> reported = new HashSet<>();
        Set<String> deletedIds = new HashSet<>();
        MappingSpec spec = queue.spec();
        try (HttpClient http = HttpClient.newHttpClient()) {
            while (true) {
                if (clock.instant().isAfter(deadline)) {
                    throw new IllegalStateException("the ingestion queue did not drain within " + limit + ": " + queue.notDone() + " messages left");
                }
                // Short polling: a long poll would hold the local engine, which serves one request at a time.
                List<Message> batch = queue.sqs().receiveMessage(b -> b.queueUrl(queue.url()).maxNumberOfMessages(spec.batchSize())
                        .waitTimeSeconds(0).messageSystemAttributeNames(MessageSystemAttributeName.ALL)).messages();
                if (batch.isEmpty()) {
                    if (queue.notDone() == 0) {
                        break;
                    }
                    pause();
                    continue;
                }
                receives += batch.size();
                invocations++;
                Invoked invoked = invoke(http, event(batch));
                functionErrors += invoked.functionError() ? 1 : 0;
                List<String> ids = batch.stream().map(Message::messageId).toList();
                List<String> toDelete = BatchResponse.toDelete(ids, invoked.functionError(), invoked.answer(), spec.reportBatchItemFailures());
                ids.stream().filter(id -> !toDelete.contains(id)).forEach(reported::add);
                List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>();
                for (int i = 0; i < batch.size(); i++) {
                    if (toDelete.contains(batch.get(i).messageId())) {
                        entries.add(DeleteMessageBatchRequestEntry.builder().id(Integer.toString(i)).receiptHandle(batch.get(i).receiptHandle()).build());
                    }
                }
                if (!entries.isEmpty()) {
                    var response = queue.sqs().deleteMessageBatch(b -> b.queueUrl(queue.url()).entries(entries));
                    if (response.hasFailed() && !response.failed().isEmpty()) {
                        throw new IllegalStateException("the local queue refused to delete " + response.failed().size() + " messages: "
                                + response.failed().getFirst().message());
                    }
                    deleted += entries.size();
                    deletedIds.addAll(toDelete);
                }
            }
        }
        reported.removeAll(deletedIds);
        return new Drained(receives, invocations, functionErrors, deleted, Set.copyOf(reported));
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

    private static void pause() {
        try {
            Thread.sleep(IDLE_POLL);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the ingestion queue", e);
        }
    }
}
