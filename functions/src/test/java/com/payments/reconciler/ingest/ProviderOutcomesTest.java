package com.payments.reconciler.ingest;

import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.LocalDynamo;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * provider.outcome applied to ReleaseCommands in any order: before the 201 was marked (PENDING), after it
 * (ACKNOWLEDGED), twice, and a contradicting second outcome; never over an end a night or a person wrote, never for
 * another cancel. Known-bad proof: the same update with only an existence check overwrites a QUARANTINED command
 * ({@link #withoutTheStatusConditionAnOutcomeWouldOverwriteAParkedCommand}).
 */
@ExtendWith(LocalDynamo.class)
class ProviderOutcomesTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-06T03:00:00Z"), ZoneOffset.UTC);

    private DynamoDbClient dynamo;
    private String commands;
    private EventIngestion ingestion;

    @BeforeEach
    void setUp(LocalDynamo.Engine engine) {
        dynamo = engine.client();
        commands = engine.tables().releaseCommands();
        ingestion = new EventIngestion(new EventDecoder(), new IngestionDecision(1),
                new IngestStore(dynamo, engine.tables().authorisations(), engine.tables().settlements(), Backoff.standard(3)),
                Optional.of(new ProviderOutcomes(dynamo, commands, Backoff.standard(3), CLOCK)), Clock.systemUTC());
    }

    private void command(String auth, String status, String requestReference) {
        Map<String, AttributeValue> item = new HashMap<>(Map.of(
                ReleaseCommands.OPERATION_ID, AttributeValue.fromS("release-hold:" + auth),
                ReleaseCommands.AUTHORISATION_ID, AttributeValue.fromS(auth),
                ReleaseCommands.STATUS, AttributeValue.fromS(status),
                ReleaseCommands.CREATED_AT, AttributeValue.fromN("1764990000000"),
                ReleaseCommands.PROVIDER_REFERENCE, AttributeValue.fromS(payment(auth))));
        if (requestReference != null) {
            item.put(ReleaseCommands.REQUEST_REFERENCE, AttributeValue.fromS(requestReference));
        }
        if (status.equals(ReleaseCommands.STATUS_PENDING)) {
            item.put(ReleaseCommands.DELIVERY_SHARD, AttributeValue.fromS("0"));
        }
        dynamo.putItem(b -> b.tableName(commands).item(item));
    }

    /** The payment a test command cancels (its providerReference). */
    static String payment(String auth) {
        return "PAY" + auth.replace("-", "");
    }

    static String outcome(String auth, String reference, boolean success) {
        return outcome(auth, reference, payment(auth), success);
    }

    static String outcome(String auth, String reference, String payment, boolean success) {
        return """
                {"version":2,"type":"provider.outcome","eventId":"adyen-%s-%s","authorisationId":"%s","operationId":"release-hold:%s",\
                "provider":"adyen","requestReference":"%s","paymentReference":"%s","success":%s%s,"occurredAt":"2026-12-06T04:00:00+01:00"}"""
                .formatted(reference, success ? "success" : "failure", auth, auth, reference, payment, success,
                        success ? "" : ",\"reason\":\"Transaction not found\"");
    }

    private Map<String, AttributeValue> item(String auth) {
        return dynamo.getItem(b -> b.tableName(commands).consistentRead(true)
                .key(Map.of(ReleaseCommands.OPERATION_ID, AttributeValue.fromS("release-hold:" + auth)))).item();
    }

    @Test
    void anAcknowledgedCommandEndsDeliveredOnceWhateverFollows() {
        command("auth-1", ReleaseCommands.STATUS_ACKNOWLEDGED, "CANCEL1");
        IngestOutcome applied = ingestion.ingest(outcome("auth-1", "CANCEL1", true));
        assertThat(applied).isInstanceOf(IngestOutcome.Accepted.class);
        assertThat(applied.writes()).as("the webhook path's writes per applied outcome").isEqualTo(1);
        Map<String, AttributeValue> delivered = item("auth-1");
        assertThat(delivered.get(ReleaseCommands.STATUS).s()).isEqualTo(ReleaseCommands.STATUS_DELIVERED);
        assertThat(delivered).doesNotContainKey(ReleaseCommands.DELIVERY_SHARD);
        assertThat(delivered.get(ReleaseCommands.OUTCOME_AT).n()).isEqualTo(Long.toString(Instant.parse("2026-12-06T03:00:00Z").toEpochMilli()));

        IngestOutcome again = ingestion.ingest(outcome("auth-1", "CANCEL1", true));
        assertThat(again).isInstanceOf(IngestOutcome.Duplicate.class);
        assertThat(again.writes()).as("a duplicate costs one failed conditional write, no read").isEqualTo(1);
        assertThat(ingestion.ingest(outcome("auth-1", "CANCEL1", false))).isInstanceOf(IngestOutcome.Duplicate.class);
        assertThat(item("auth-1")).isEqualTo(delivered);
    }

    @Test
    void anOutcomeBeforeTheAcknowledgementWasMarkedEndsThePendingCommand() {
        command("auth-2", ReleaseCommands.STATUS_PENDING, null);
        assertThat(ingestion.ingest(outcome("auth-2", "CANCEL2", false))).isInstanceOf(IngestOutcome.Accepted.class);
        Map<String, AttributeValue> rejected = item("auth-2");
        assertThat(rejected.get(ReleaseCommands.STATUS).s()).isEqualTo(ReleaseCommands.STATUS_REJECTED);
        assertThat(rejected.get(ReleaseCommands.REJECTION_REASON).s()).contains("Transaction not found");
        assertThat(rejected.get(ReleaseCommands.REQUEST_REFERENCE).s()).isEqualTo("CANCEL2");
        assertThat(rejected).doesNotContainKey(ReleaseCommands.DELIVERY_SHARD);
    }

    @Test
    void anOutcomeForAnotherCancelAParkedCommandOrNoCommandChangesNothing() {
        command("auth-3", ReleaseCommands.STATUS_ACKNOWLEDGED, "CANCEL3");
        command("auth-4", ReleaseCommands.STATUS_QUARANTINED, null);
        Map<String, AttributeValue> three = item("auth-3");
        Map<String, AttributeValue> four = item("auth-4");
        assertThat(ingestion.ingest(outcome("auth-3", "OTHERCANCEL", true))).isInstanceOf(IngestOutcome.Refused.class);
        assertThat(ingestion.ingest(outcome("auth-4", "CANCEL4", true))).isInstanceOf(IngestOutcome.Refused.class);
        assertThat(ingestion.ingest(outcome("auth-5", "CANCEL5", true))).isInstanceOf(IngestOutcome.Refused.class);
        assertThat(item("auth-3")).isEqualTo(three);
        assertThat(item("auth-4")).isEqualTo(four);
        assertThat(item("auth-5")).isEmpty();
    }

    @Test
    void anOutcomeForAnotherPaymentChangesNothing() {
        command("auth-9", ReleaseCommands.STATUS_ACKNOWLEDGED, "CANCEL9");
        command("auth-10", ReleaseCommands.STATUS_PENDING, null);
        Map<String, AttributeValue> nine = item("auth-9");
        Map<String, AttributeValue> ten = item("auth-10");
        // merchantReference (our operation id) matches, the cancel's reference too: only the payment differs.
        IngestOutcome acknowledged = ingestion.ingest(outcome("auth-9", "CANCEL9", "OTHERPAYMENT0001", true));
        assertThat(acknowledged).isInstanceOf(IngestOutcome.Refused.class);
        assertThat(((IngestOutcome.Refused) acknowledged).refusal().field()).isEqualTo("paymentReference");
        assertThat(ingestion.ingest(outcome("auth-10", "CANCEL10", "OTHERPAYMENT0001", false))).isInstanceOf(IngestOutcome.Refused.class);
        assertThat(item("auth-9")).isEqualTo(nine);
        assertThat(item("auth-10")).isEqualTo(ten);
        // The outcome without the field is outside the event's contract.
        assertThat(new EventDecoder().decode(outcome("auth-9", "CANCEL9", true).replace(",\"paymentReference\":\"PAYauth9\"", "")))
                .isInstanceOf(EventDecoder.Decoded.Refused.class);
    }

    @Test
    void withoutThePaymentConditionAnOutcomeForAnotherPaymentWouldEndTheCommand() {
        command("auth-11", ReleaseCommands.STATUS_ACKNOWLEDGED, "CANCEL11");
        String previous = "attribute_exists(operationId) AND #status IN (:pending, :acknowledged) "
                + "AND (attribute_not_exists(requestReference) OR requestReference = :reference)";
        dynamo.updateItem(b -> b.tableName(commands)
                .key(Map.of(ReleaseCommands.OPERATION_ID, AttributeValue.fromS("release-hold:auth-11")))
                .conditionExpression(previous)
                .updateExpression(ProviderOutcomes.DELIVER)
                .expressionAttributeNames(Map.of("#status", ReleaseCommands.STATUS))
                .expressionAttributeValues(Map.of(":pending", AttributeValue.fromS(ReleaseCommands.STATUS_PENDING),
                        ":acknowledged", AttributeValue.fromS(ReleaseCommands.STATUS_ACKNOWLEDGED),
                        ":delivered", AttributeValue.fromS(ReleaseCommands.STATUS_DELIVERED),
                        ":now", AttributeValue.fromN("1"), ":reference", AttributeValue.fromS("CANCEL11"),
                        ":eventId", AttributeValue.fromS("adyen-CANCEL11-success"), ":at", AttributeValue.fromN("1"))));
        assertThat(item("auth-11").get(ReleaseCommands.STATUS).s()).as("ended by an outcome about another payment")
                .isEqualTo(ReleaseCommands.STATUS_DELIVERED);
    }

    @Test
    void withoutTheStatusConditionAnOutcomeWouldOverwriteAParkedCommand() {
        command("auth-6", ReleaseCommands.STATUS_QUARANTINED, null);
        dynamo.updateItem(b -> b.tableName(commands)
                .key(Map.of(ReleaseCommands.OPERATION_ID, AttributeValue.fromS("release-hold:auth-6")))
                .conditionExpression("attribute_exists(operationId)")
                .updateExpression(ProviderOutcomes.DELIVER)
                .expressionAttributeNames(Map.of("#status", ReleaseCommands.STATUS))
                .expressionAttributeValues(Map.of(":delivered", AttributeValue.fromS(ReleaseCommands.STATUS_DELIVERED),
                        ":now", AttributeValue.fromN("1"), ":reference", AttributeValue.fromS("CANCEL6"),
                        ":eventId", AttributeValue.fromS("adyen-CANCEL6-success"), ":at", AttributeValue.fromN("1"))));
        assertThat(item("auth-6").get(ReleaseCommands.STATUS).s()).as("the parked command, overwritten").isEqualTo(ReleaseCommands.STATUS_DELIVERED);
    }

    @Test
    void withoutAnAsynchronousProviderTheEventIsRefused(LocalDynamo.Engine engine) {
        EventIngestion synchronous = new EventIngestion(new EventDecoder(), new IngestionDecision(1),
                new IngestStore(dynamo, engine.tables().authorisations(), engine.tables().settlements(), Backoff.standard(3)), Optional.empty(), Clock.systemUTC());
        assertThat(synchronous.ingest(outcome("auth-7", "CANCEL7", true))).isInstanceOf(IngestOutcome.Refused.class);
        assertThat(new EventDecoder().decode(outcome("auth-7", "CANCEL7", true).replace("release-hold:auth-7", "release-hold:auth-8")))
                .isInstanceOf(EventDecoder.Decoded.Refused.class);
    }
}
