package com.payments.reconciler.ingest;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.HandlerEnvironment;
import com.payments.reconciler.workflow.InvalidInput;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.Metrics;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Consumes the ingestion queue (docs/integration.md): an SQS event in, a partial batch response out
 * ({@code {"batchItemFailures":[{"itemIdentifier": messageId}]}}, the event source mapping has
 * {@code ReportBatchItemFailures}). Each message is decided on its own; one that was not applied — refused, or a
 * transient store failure — is named, the others are deleted by Lambda. A refused message is sent to the refused-events
 * queue here ({@link RefusedEvents}), after its hold item is written, and then reported done, so it is deleted on its
 * first receive; only if that send fails is it named, and the redrive policy moves it to the dead-letter queue after
 * {@code maxReceiveCount} receives (docs/decisions.md). Its reason is logged here by message id, never its body.
 * Ingestion is not the leader and takes no lease (docs/decisions.md, "Ingestion writes without the lease").
 *
 * <p>Decodes the SQS event with the project's JSON rules rather than aws-lambda-java-events (kept out of the Lambda
 * jar), so a harness invokes it the same way as the other functions: the event's JSON on the input stream.
 */
public final class IngestEventsHandler implements RequestStreamHandler {

    private static final Logger LOG = LoggerFactory.getLogger(IngestEventsHandler.class);
    private static final ObjectMapper JSON = Json.mapper();
    static final String MESSAGE_ID_LOG_FIELD = "messageId";

    private final EventIngestion ingestion;
    private final RefusedEvents refusedEvents;
    private final EmfMetrics metrics;

    public IngestEventsHandler() {
        this(HandlerEnvironment.fromSystem());
    }

    public IngestEventsHandler(HandlerEnvironment env) {
        this(env, EmfMetrics.toStdout(env.clock(), LambdaFunction.INGEST_EVENTS.logicalName()));
    }

    public IngestEventsHandler(HandlerEnvironment env, EmfMetrics metrics) {
        this(new EventIngestion(new EventDecoder(), new IngestionDecision(shards(env)),
                        new IngestStore(env.aws().dynamo(), env.required(TableNames.ENV_AUTHORISATIONS),
                                env.required(TableNames.ENV_SETTLEMENTS),
                                Optional.ofNullable(env.optional(TableNames.ENV_RELEASE_COMMANDS, null)), Backoff.standard()), outcomes(env), Clock.systemUTC()),
                new SqsRefusedEvents(env.aws().sqs(), env.required(EnvVars.INGEST_REFUSED_QUEUE_URL)), metrics);
    }

    public IngestEventsHandler(EventIngestion ingestion, RefusedEvents refusedEvents, EmfMetrics metrics) {
        this.ingestion = ingestion;
        this.refusedEvents = refusedEvents;
        this.metrics = metrics;
    }

    /**
     * With an asynchronous provider (adyen) ingestion also applies {@code provider.outcome} events to ReleaseCommands (and
     * the stack gives it that table); with any other provider it has no such table and refuses them.
     */
    static java.util.Optional<ProviderOutcomes> outcomes(HandlerEnvironment env) {
        if (com.payments.reconciler.delivery.ProviderAdapters.fromEnvironment(env) != com.payments.reconciler.delivery.ProviderAdapters.Adapter.ADYEN) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new ProviderOutcomes(env.aws().dynamo(), env.required(TableNames.ENV_RELEASE_COMMANDS),
                Backoff.standard(), env.clock()));
    }

    /**
     * The shards the reconciler queries: read by {@link WindowConfig}, exactly as StartWindow reads the
     * {@link EnvVars#SHARDS} it puts in each execution's input (unset: the same default).
     */
    static int shards(HandlerEnvironment env) {
        return WindowConfig.fromEnvironment(env).shards();
    }

    @Override
    public void handleRequest(InputStream in, OutputStream out, Context context) throws IOException {
        JSON.writeValue(out, handle(in.readAllBytes()));
    }

    /** The partial batch response for one SQS event. */
    public ObjectNode handle(byte[] sqsEvent) {
        List<Message> messages = messages(sqsEvent);
        Map<String, Long> counts = new LinkedHashMap<>();
        for (String name : List.of(Metrics.INGEST_ACCEPTED, Metrics.INGEST_DUPLICATES, Metrics.INGEST_REFUSED,
                Metrics.INGEST_REFUSED_CARD_DATA, Metrics.INGEST_RETRIED, Metrics.INGEST_WRITES, Metrics.CAPTURED_AFTER_RELEASE)) {
            counts.put(name, 0L);
        }
        ObjectNode response = JSON.createObjectNode();
        ArrayNode failures = response.putArray("batchItemFailures");
        for (Message message : messages) {
            MDC.put(MESSAGE_ID_LOG_FIELD, message.id());
            try {
                IngestOutcome outcome = ingestion.ingest(message.body());
                counts.merge(Metrics.INGEST_WRITES, (long) outcome.writes(), Long::sum);
                switch (outcome) {
                    case IngestOutcome.Accepted accepted -> {
                        counts.merge(Metrics.INGEST_ACCEPTED, 1L, Long::sum);
                        if (accepted.capturedAfterRelease()) {
                            counts.merge(Metrics.CAPTURED_AFTER_RELEASE, 1L, Long::sum);
                            LOG.info("event {}: a settlement for authorisation whose release the provider confirmed (captured after release)",
                                    accepted.eventId());
                        }
                        // Per event at DEBUG: millions of events a day at INFO would be most of the log bill; the batch line below counts them.
                        LOG.debug("event {} accepted ({})", accepted.eventId(), accepted.write());
                    }
                    case IngestOutcome.Duplicate duplicate -> {
                        counts.merge(Metrics.INGEST_DUPLICATES, 1L, Long::sum);
                        LOG.debug("event {} duplicate: {}", duplicate.eventId(), duplicate.why());
                    }
                    case IngestOutcome.Refused refused -> {
                        counts.merge(Metrics.INGEST_REFUSED, 1L, Long::sum);
                        if (refused.refusal().reason() == Refusal.Reason.CARDHOLDER_DATA) {
                            counts.merge(Metrics.INGEST_REFUSED_CARD_DATA, 1L, Long::sum);
                        }
                        if (sentToRefusedEvents(message, refused.refusal())) {
                            // Not reported: Lambda deletes it from the ingestion queue, its copy is in the refused-events queue.
                            LOG.warn("event refused ({}), sent to the refused-events queue: {}", refused.refusal().reason(), refused.refusal().message());
                        } else {
                            // Reported, so the redrive policy moves it to the dead-letter queue after maxReceiveCount.
                            failures.addObject().put("itemIdentifier", message.id());
                            LOG.warn("event refused ({}), not sent to the refused-events queue, left for the redrive policy: {}",
                                    refused.refusal().reason(), refused.refusal().message());
                        }
                    }
                }
            } catch (RuntimeException e) {
                counts.merge(Metrics.INGEST_RETRIED, 1L, Long::sum);
                failures.addObject().put("itemIdentifier", message.id());
                LOG.warn("event not applied, SQS delivers it again after the visibility timeout: {}: {}",
                        e.getClass().getSimpleName(), e.getMessage());
            } finally {
                MDC.remove(MESSAGE_ID_LOG_FIELD);
            }
        }
        metrics.count(counts);
        LOG.info("batch of {}: {} accepted, {} duplicates, {} refused, {} left for a retry, {} writes", messages.size(),
                counts.get(Metrics.INGEST_ACCEPTED), counts.get(Metrics.INGEST_DUPLICATES), counts.get(Metrics.INGEST_REFUSED),
                counts.get(Metrics.INGEST_RETRIED), counts.get(Metrics.INGEST_WRITES));
        return response;
    }

    /** SQS refuses an empty body; a refused message without one is left to the redrive policy. */
    private boolean sentToRefusedEvents(Message message, Refusal refusal) {
        if (message.body() == null || message.body().isEmpty()) {
            return false;
        }
        try {
            refusedEvents.send(message.id(), message.body(), refusal);
            return true;
        } catch (RuntimeException e) {
            LOG.warn("the refused-events queue did not take the event: {}: {}", e.getClass().getSimpleName(), e.getMessage());
            return false;
        }
    }

    record Message(String id, String body) {
    }

    /**
     * The records of an SQS event. A record without a message id cannot be reported on its own (Lambda treats an
     * empty identifier as the whole batch failing), so the invocation fails instead and SQS delivers the batch again.
     */
    static List<Message> messages(byte[] sqsEvent) {
        JsonNode root;
        try {
            root = JSON.readTree(sqsEvent);
        } catch (JsonProcessingException e) {
            throw new InvalidInput("input", "not an SQS event: not valid JSON");
        } catch (IOException e) {
            throw new InvalidInput("input", "unreadable: " + e.getMessage());
        }
        JsonNode records = root == null ? null : root.get("Records");
        if (records == null || !records.isArray()) {
            throw new InvalidInput("Records", "required, the SQS event's array of messages");
        }
        List<Message> messages = new ArrayList<>(records.size());
        for (int i = 0; i < records.size(); i++) {
            JsonNode record = records.get(i);
            JsonNode id = record.get("messageId");
            if (id == null || !id.isTextual() || id.textValue().isEmpty()) {
                throw new InvalidInput("Records[" + i + "].messageId", "required, the SQS message id (a non-empty string)");
            }
            JsonNode body = record.get("body");
            messages.add(new Message(id.textValue(), body != null && body.isTextual() ? body.textValue() : null));
        }
        return messages;
    }
}
