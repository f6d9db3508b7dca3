package com.payments.reconciler.webhook;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.ingest.EventDecoder;
import com.payments.reconciler.ingest.EventIngestion;
import com.payments.reconciler.ingest.IngestOutcome;
import com.payments.reconciler.ingest.IngestStore;
import com.payments.reconciler.ingest.IngestionDecision;
import com.payments.reconciler.ingest.ProviderOutcomes;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.workflow.EmfMetrics;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The webhook path end to end on the local DynamoDB: receiver (signature check) → ingestion queue → IngestEvents'
 * {@code provider.outcome} write. A forged, an unsigned and a replayed webhook each change nothing: the forged and the
 * unsigned are refused with 401 and put nothing on the queue; the replay of a genuine one is answered {@code [accepted]}
 * (Adyen retries whatever is not) and its event, carrying the same event id, is a duplicate at ingestion — the tables
 * are unchanged after each. Known-bad proof: a verifier that skips the check lets the forged one through, and the
 * same scenario then finds changes ({@link #aVerifierThatSkipsTheCheckLetsTheForgedOneThrough}).
 */
@ExtendWith(LocalDynamo.class)
class ForgedUnsignedAndReplayedWebhooksChangeNothingTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056";
    private static final String OTHER_KEY = "0000000000000000000000000000000000000000000000000000000000000001";
    /** The payment every command here cancels: its providerReference, and the notifications' originalReference. */
    static final String PAYMENT = "PAYMENTPSP000001";
    static final String MERCHANT = "TestMerchant";
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-06T03:00:00Z"), ZoneOffset.UTC);

    private DynamoDbClient dynamo;
    private String commands;
    private EventIngestion ingestion;
    private final List<String> queue = new ArrayList<>();
    private final List<String> logs = new ArrayList<>();

    @BeforeEach
    void setUp(LocalDynamo.Engine engine) {
        dynamo = engine.client();
        commands = engine.tables().releaseCommands();
        ingestion = new EventIngestion(new EventDecoder(), new IngestionDecision(1),
                new IngestStore(dynamo, engine.tables().authorisations(), engine.tables().settlements(), Backoff.standard(3)),
                java.util.Optional.of(new ProviderOutcomes(dynamo, commands, Backoff.standard(3), CLOCK)), Clock.systemUTC());
        command("auth-1", ReleaseCommands.STATUS_ACKNOWLEDGED, "CANCELPSP0000001");
        command("auth-2", ReleaseCommands.STATUS_PENDING, null);
    }

    private void command(String auth, String status, String requestReference) {
        Map<String, AttributeValue> item = new HashMap<>(Map.of(
                ReleaseCommands.OPERATION_ID, AttributeValue.fromS("release-hold:" + auth),
                ReleaseCommands.AUTHORISATION_ID, AttributeValue.fromS(auth),
                ReleaseCommands.STATUS, AttributeValue.fromS(status),
                ReleaseCommands.AMOUNT_MINOR, AttributeValue.fromN("1250"),
                ReleaseCommands.CURRENCY, AttributeValue.fromS("EUR"),
                ReleaseCommands.CREATED_AT, AttributeValue.fromN("1764990000000"),
                ReleaseCommands.ATTEMPTS, AttributeValue.fromN("1"),
                ReleaseCommands.PROVIDER_REFERENCE, AttributeValue.fromS(PAYMENT)));
        if (requestReference != null) {
            item.put(ReleaseCommands.REQUEST_REFERENCE, AttributeValue.fromS(requestReference));
        } else {
            item.put(ReleaseCommands.DELIVERY_SHARD, AttributeValue.fromS("0"));
        }
        dynamo.putItem(b -> b.tableName(commands).item(item));
    }

    /** A CANCELLATION notification request with one item, signed with {@code key} (or unsigned when null). */
    static String notification(String auth, String cancelPsp, boolean success, String key) {
        ObjectNode item = JSON.createObjectNode()
                .put("eventCode", "CANCELLATION").put("success", Boolean.toString(success))
                .put("eventDate", "2026-12-06T03:00:00+01:00").put("merchantAccountCode", "TestMerchant")
                .put("merchantReference", "release-hold:" + auth).put("originalReference", "PAYMENTPSP000001")
                .put("pspReference", cancelPsp).put("reason", success ? "" : "Transaction not found");
        item.putObject("amount").put("value", 1250).put("currency", "EUR");
        if (key != null) {
            item.putObject("additionalData").put("hmacSignature", new AdyenSignature(key).sign(item));
        }
        ObjectNode root = JSON.createObjectNode().put("live", "false");
        root.putArray("notificationItems").addObject().set("NotificationRequestItem", item);
        return root.toString();
    }

    private List<Map<String, AttributeValue>> table() {
        return dynamo.scan(b -> b.tableName(commands).consistentRead(true)).items().stream()
                .sorted(java.util.Comparator.comparing(i -> i.get(ReleaseCommands.OPERATION_ID).s())).toList();
    }

    /** Receives {@code body} and ingests whatever it queued; what changed, as a list of findings (empty: nothing). */
    private List<String> changesFrom(String name, AdyenWebhookReceiver receiver, String body, int expectedStatus) {
        List<String> found = new ArrayList<>();
        List<Map<String, AttributeValue>> before = table();
        int queuedBefore = queue.size();
        AdyenWebhookReceiver.Response response = receiver.receive(body);
        if (response.status() != expectedStatus) {
            found.add(name + ": answered " + response.status() + ", expected " + expectedStatus);
        }
        List<String> queued = new ArrayList<>(queue.subList(queuedBefore, queue.size()));
        if (expectedStatus != 200 && !queued.isEmpty()) {
            found.add(name + ": put " + queued.size() + " events on the queue");
        }
        for (String event : queued) {
            IngestOutcome outcome = ingestion.ingest(event);
            if (expectedStatus == 200 && !(outcome instanceof IngestOutcome.Duplicate)) {
                found.add(name + ": ingestion applied it again: " + outcome);
            }
        }
        if (!table().equals(before)) {
            found.add(name + ": the ReleaseCommands table changed");
        }
        return found;
    }

    private List<String> scenario(Supplier<NotificationVerifier> verifier) {
        AdyenWebhookReceiver receiver = new AdyenWebhookReceiver(verifier, queue::add, new EmfMetrics(CLOCK, "AdyenWebhook", logs::add), MERCHANT);
        String genuine = notification("auth-1", "CANCELPSP0000001", true, KEY);
        AdyenWebhookReceiver.Response first = receiver.receive(genuine);
        assertThat(first).isEqualTo(new AdyenWebhookReceiver.Response(200, "[accepted]"));
        assertThat(queue).hasSize(1);
        assertThat(ingestion.ingest(queue.getFirst())).isInstanceOf(IngestOutcome.Accepted.class);
        assertThat(table().getFirst().get(ReleaseCommands.STATUS).s()).isEqualTo(ReleaseCommands.STATUS_DELIVERED);

        List<String> found = new ArrayList<>();
        // Forged: a failure for the PENDING command, signed with a key that is not ours.
        found.addAll(changesFrom("forged", receiver, notification("auth-2", "CANCELPSP0000002", false, OTHER_KEY), 401));
        found.addAll(changesFrom("unsigned", receiver, notification("auth-2", "CANCELPSP0000002", false, null), 401));
        found.addAll(changesFrom("replayed", receiver, genuine, 200));
        return found;
    }

    @Test
    void aForgedAnUnsignedAndAReplayedWebhookEachChangeNothing() {
        assertThat(scenario(() -> new AdyenSignature(KEY))).isEmpty();
        assertThat(logs).noneMatch(line -> line.contains("Transaction not found") || line.contains("hmacSignature"));
    }

    @Test
    void aVerifierThatSkipsTheCheckLetsTheForgedOneThrough() {
        assertThat(scenario(() -> item -> AdyenSignature.Verdict.VALID))
                .contains("forged: answered 200, expected 401", "forged: the ReleaseCommands table changed");
    }
}
