package com.payments.reconciler.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.testing.LocalAwsClients;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.HandlerEnvironment;
import com.payments.reconciler.workflow.InvalidInput;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.Metrics;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Lambda handler as SQS invokes it: the SQS event's JSON in, the partial batch response out. */
@ExtendWith(LocalDynamo.class)
class IngestEventsHandlerTest {

    private static final ObjectMapper JSON = Json.mapper();

    private final List<String> metricLines = new ArrayList<>();
    private IngestEventsHandler handler;

    @BeforeEach
    void setUp(LocalDynamo.Engine engine) {
        handler = handler(engine, metricLines);
    }

    static IngestEventsHandler handler(LocalDynamo.Engine engine, List<String> metricLines) {
        return handler(engine, metricLines, refusedQueue(engine));
    }

    static IngestEventsHandler handler(LocalDynamo.Engine engine, List<String> metricLines, String refusedQueueUrl) {
        Clock clock = Clock.fixed(Instant.parse("2026-12-01T03:00:00Z"), ZoneOffset.UTC);
        HandlerEnvironment env = new HandlerEnvironment(Map.of(
                TableNames.ENV_AUTHORISATIONS, engine.tables().authorisations(),
                TableNames.ENV_SETTLEMENTS, engine.tables().settlements(),
                EnvVars.SHARDS, "4",
                EnvVars.INGEST_REFUSED_QUEUE_URL, refusedQueueUrl), new LocalAwsClients(engine.moto().endpoint()), clock);
        return new IngestEventsHandler(env, new EmfMetrics(clock, "IngestEvents", metricLines::add));
    }

    /** A fresh refused-events queue on the engine's moto, as the stack's {@code {prefix}ingest-events-refused}. */
    static String refusedQueue(LocalDynamo.Engine engine) {
        return new LocalAwsClients(engine.moto().endpoint()).sqs()
                .createQueue(b -> b.queueName("ingest-events-refused-" + java.util.UUID.randomUUID())).queueUrl();
    }

    /** The refused copies' refusal attribute, message by message. */
    private static List<String> refusedCopies(LocalDynamo.Engine engine, String queueUrl) {
        List<String> found = new ArrayList<>();
        var sqs = new LocalAwsClients(engine.moto().endpoint()).sqs();
        sqs.receiveMessage(b -> b.queueUrl(queueUrl).maxNumberOfMessages(10).messageAttributeNames("All")).messages()
                .forEach(m -> found.add(m.messageAttributes().get(SqsRefusedEvents.REFUSAL_ATTRIBUTE).stringValue() + " "
                        + m.messageAttributes().get(SqsRefusedEvents.SOURCE_MESSAGE_ID_ATTRIBUTE).stringValue()));
        return found;
    }

    /** An SQS event as Lambda's event source mapping delivers it (the fields it carries besides id and body included). */
    static byte[] sqsEvent(Map<String, String> bodies) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode records = root.putArray("Records");
        bodies.forEach((id, body) -> {
            ObjectNode record = records.addObject();
            record.put("messageId", id);
            record.put("receiptHandle", "handle-" + id);
            record.put("body", body);
            record.putObject("attributes").put("ApproximateReceiveCount", "1").put("SentTimestamp", "1764558000000");
            record.putObject("messageAttributes");
            record.put("md5OfBody", "-");
            record.put("eventSource", "aws:sqs");
            record.put("eventSourceARN", "arn:aws:sqs:eu-west-1:123456789012:reconciler-prod-ingest-events");
            record.put("awsRegion", "eu-west-1");
        });
        return root.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> failedIds(JsonNode response) {
        List<String> ids = new ArrayList<>();
        response.path("batchItemFailures").forEach(f -> ids.add(f.path("itemIdentifier").textValue()));
        return ids;
    }

    /**
     * A refused event goes to the refused-events queue at once and is reported done, so it is deleted on its first receive
     * and takes none of the receives meant for transient failures; the refused copy says why and which message it was.
     */
    @Test
    void refusedEventsAreSentToTheRefusedEventsQueueAndNotReported(LocalDynamo.Engine engine) throws Exception {
        String refused = refusedQueue(engine);
        IngestEventsHandler sending = handler(engine, metricLines, refused);
        Map<String, String> bodies = new java.util.LinkedHashMap<>();
        bodies.put("m-1", EventIngestionTest.created("evt-1", "auth-1", 2599, "2026-11-28T10:00:00Z"));
        bodies.put("m-2", "{not json");
        bodies.put("m-5", EventIngestionTest.created("evt-5", "auth-1", 1, "2026-11-28T10:00:00Z"));    // conflicts with evt-1

        JsonNode response = sending.handle(sqsEvent(bodies));

        assertThat(failedIds(response)).as("nothing left for a retry").isEmpty();
        assertThat(refusedCopies(engine, refused)).containsExactlyInAnyOrder("MALFORMED m-2", "CONFLICT m-5");
        assertThat(JSON.readTree(metricLines.getFirst()).path(Metrics.INGEST_REFUSED).asLong()).isEqualTo(2);
    }

    /**
     * Held for feed: the handler sends its refusals to the URL the stack wires as the refused-events queue
     * ({@code INGEST_REFUSED_QUEUE_URL}; FirstDeployTest shows IngestEvents is given no other), so the depth rule on the
     * dead-letter queue ({@code DeadLetterDepth}, what ReconcilePage and DeliverCommands read) stays Empty and only the
     * refusal's hold item holds anything. Known-bad twin: the same handler wired to the dead-letter queue (the old
     * arrangement) leaves it non-empty, and the rule holds the whole night.
     */
    @Test
    void refusalsSentToTheRefusedQueueLeaveTheDeadLetterDepthEmpty(LocalDynamo.Engine engine) {
        var sqs = new LocalAwsClients(engine.moto().endpoint()).sqs();
        String deadLetters = sqs.createQueue(b -> b.queueName("ingest-events-dlq-" + java.util.UUID.randomUUID())).queueUrl();
        String refused = refusedQueue(engine);

        handler(engine, metricLines, refused).handle(sqsEvent(Map.of("m-1", "{\"type\":\"no.such.type\"}", "m-2", "{not json")));

        assertThat(refusedCopies(engine, refused)).hasSize(2);
        assertThat(com.payments.reconciler.reconcile.DeadLetterDepth.queue(sqs, deadLetters).read())
                .isInstanceOf(com.payments.reconciler.reconcile.DeadLetterDepth.Empty.class);
    }

    @Test
    void knownBadRefusalsSentToTheDeadLetterQueueHoldTheWholeNight(LocalDynamo.Engine engine) {
        var sqs = new LocalAwsClients(engine.moto().endpoint()).sqs();
        String deadLetters = sqs.createQueue(b -> b.queueName("ingest-events-dlq-" + java.util.UUID.randomUUID())).queueUrl();

        handler(engine, metricLines, deadLetters).handle(sqsEvent(Map.of("m-1", "{\"type\":\"no.such.type\"}")));

        assertThat(com.payments.reconciler.reconcile.DeadLetterDepth.queue(sqs, deadLetters).read().holds()).isTrue();
    }

    /** When the refused-events queue cannot take it, a refused event is reported, and the redrive policy is the net. */
    @Test
    void aRefusedEventTheRefusedQueueDoesNotTakeIsLeftForTheRedrivePolicy(LocalDynamo.Engine engine) {
        String missing = refusedQueue(engine).replaceAll("[^/]+$", "no-such-queue");
        IngestEventsHandler unsent = handler(engine, metricLines, missing);
        assertThat(failedIds(unsent.handle(sqsEvent(Map.of("m-2", "{not json"))))).containsExactly("m-2");
    }

    @Test
    void reportsExactlyTheMessagesNotAppliedAndCountsEachOutcome() throws Exception {
        Map<String, String> bodies = new java.util.LinkedHashMap<>();
        bodies.put("m-1", EventIngestionTest.created("evt-1", "auth-1", 2599, "2026-11-28T10:00:00Z"));
        bodies.put("m-2", "{not json");
        bodies.put("m-3", EventIngestionTest.settled("evt-3", "auth-1", "2026-11-30T00:00:00Z"));
        bodies.put("m-4", EventIngestionTest.created("evt-1", "auth-1", 2599, "2026-11-28T10:00:00Z")); // redelivered as another message
        bodies.put("m-5", EventIngestionTest.created("evt-5", "auth-1", 1, "2026-11-28T10:00:00Z"));    // conflicts with evt-1

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        handler.handleRequest(new ByteArrayInputStream(sqsEvent(bodies)), out, null);
        JsonNode response = JSON.readTree(out.toByteArray());

        assertThat(failedIds(response)).as("the refused two are in the refused-events queue, not retried").isEmpty();
        JsonNode metrics = JSON.readTree(metricLines.getFirst());
        assertThat(metrics.path(Metrics.INGEST_ACCEPTED).asLong()).isEqualTo(2);
        assertThat(metrics.path(Metrics.INGEST_DUPLICATES).asLong()).isEqualTo(1);
        assertThat(metrics.path(Metrics.INGEST_REFUSED).asLong()).isEqualTo(2);
        assertThat(metrics.path(Metrics.INGEST_RETRIED).asLong()).isZero();
        // The create, the settlement and its authorisation leaving the pending index, the duplicate's and the conflict's failed Puts,
        // and the night-wide hold for feed the unreadable m-2 records (it could be any hold's settlement).
        assertThat(metrics.path(Metrics.INGEST_WRITES).asLong()).isEqualTo(6);
    }

    @Test
    void anEmptyBatchAnswersNoFailures() {
        assertThat(failedIds(handler.handle(sqsEvent(Map.of())))).isEmpty();
        assertThat(handler.handle(sqsEvent(Map.of())).toString()).isEqualTo("{\"batchItemFailures\":[]}");
    }

    @Test
    void aStoreThatCannotBeReachedLeavesEveryMessageForARetry(LocalDynamo.Engine engine) throws Exception {
        HandlerEnvironment env = new HandlerEnvironment(Map.of(
                TableNames.ENV_AUTHORISATIONS, "no-such-table", TableNames.ENV_SETTLEMENTS, "no-such-table-either",
                EnvVars.SHARDS, "4", EnvVars.INGEST_REFUSED_QUEUE_URL, refusedQueue(engine)),
                new LocalAwsClients(engine.moto().endpoint()), Clock.systemUTC());
        IngestEventsHandler broken = new IngestEventsHandler(env, new EmfMetrics(Clock.systemUTC(), "IngestEvents", metricLines::add));

        JsonNode response = broken.handle(sqsEvent(Map.of("m-1", EventIngestionTest.voided("evt-1", "auth-1"))));

        assertThat(failedIds(response)).containsExactly("m-1");
        assertThat(JSON.readTree(metricLines.getFirst()).path(Metrics.INGEST_RETRIED).asLong()).isEqualTo(1);
    }

    @Test
    void anEventThatIsNotAnSqsEventFailsTheInvocationNamingTheField() {
        assertThatThrownBy(() -> handler.handle("{}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(InvalidInput.class).hasMessageStartingWith("Records: required");
        assertThatThrownBy(() -> handler.handle("{\"Records\":[{\"body\":\"{}\"}]}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(InvalidInput.class).hasMessageStartingWith("Records[0].messageId: required");
    }

    @Test
    void theShardsSettingIsCheckedWhenTheHandlerIsBuilt(LocalDynamo.Engine engine) {
        assertThat(IngestEventsHandler.shards(new HandlerEnvironment(Map.of(), new LocalAwsClients(engine.moto().endpoint()),
                Clock.systemUTC()))).as("unset: StartWindow's default").isEqualTo(4);
        for (String bad : List.of("0", "65", "four")) {
            HandlerEnvironment env = new HandlerEnvironment(Map.of(
                    TableNames.ENV_AUTHORISATIONS, "a", TableNames.ENV_SETTLEMENTS, "s", EnvVars.SHARDS, bad),
                    new LocalAwsClients(engine.moto().endpoint()), Clock.systemUTC());
            assertThatThrownBy(() -> IngestEventsHandler.shards(env)).isInstanceOf(InvalidInput.class)
                    .hasMessageStartingWith("SHARDS: must be an integer from 1 to 64");
        }
    }

    /**
     * Contract version 2: an increment that arrives before its create is neither applied nor refused (it is not a dead
     * letter): it is reported for SQS to deliver again, and applies once the create is stored.
     */
    @Test
    void anIncrementBeforeItsCreateIsLeftForSqsToDeliverAgainNotDeadLettered(LocalDynamo.Engine engine) {
        String refused = refusedQueue(engine);
        IngestEventsHandler sending = handler(engine, metricLines, refused);
        String increment = """
                {"version":2,"type":"authorisation.incremented","eventId":"evt-i","authorisationId":"auth-1","amountMinor":4000,\
                "currency":"EUR","incrementedAt":"2026-11-29T10:00:00Z"}""";

        assertThat(failedIds(sending.handle(sqsEvent(Map.of("m-1", increment))))).containsExactly("m-1");
        assertThat(refusedCopies(engine, refused)).isEmpty();

        sending.handle(sqsEvent(Map.of("m-2", EventIngestionTest.created("evt-1", "auth-1", 2599, "2026-11-28T10:00:00Z"))));
        assertThat(failedIds(sending.handle(sqsEvent(Map.of("m-1", increment))))).isEmpty();
        assertThat(metricLines).anySatisfy(line -> assertThat(line).contains("\"" + Metrics.INGEST_RETRIED + "\":1"));
    }
}
