package com.payments.reconciler.ingest;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.audit.AppliedWrite;
import com.payments.reconciler.store.Tables;
import com.payments.reconciler.testing.LocalDynamo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 18's "done when": events with a card-number-like field are refused (IngestEvents sends them to the
 * refused-events queue itself) and appear nowhere in the tables or the logs. Greps every item of every table, the engine's
 * log of applied writes, every log line (message and MDC) and every metric line for each card number sent, in
 * every notation it was sent in; {@link #theGrepFindsACardNumberWhereOneIs} shows the grep finds one that is there.
 */
@ExtendWith(LocalDynamo.class)
class CardDataNeverStoredTest {

    /** Test card numbers (Luhn-valid), each placed differently in an otherwise valid event. */
    private static final Map<String, String> CARD_EVENTS = new LinkedHashMap<>();

    static {
        String created = EventIngestionTest.created("evt-%s", "auth-%s", 2599, "2026-11-28T10:00:00Z");
        CARD_EVENTS.put("m-pan-field", created.formatted("1", "1").replace("\"merchantId\"", "\"pan\":\"4111111111111111\",\"merchantId\""));
        CARD_EVENTS.put("m-note-field", created.formatted("2", "2").replace("\"merchantId\"", "\"note\":\"card 5500 0000 0000 0004\",\"merchantId\""));
        CARD_EVENTS.put("m-as-id", created.formatted("3", "3").replace("auth-3", "3782-822463-10005"));
        CARD_EVENTS.put("m-in-merchant", created.formatted("4", "4").replace("merchant-1", "m-6011000990139424"));
        CARD_EVENTS.put("m-as-amount", created.formatted("5", "5").replace("2599", "4012888888881881"));
        CARD_EVENTS.put("m-as-field-name", created.formatted("6", "6").replace("\"merchantId\"", "\"4222222222222\":true,\"merchantId\""));
        CARD_EVENTS.put("m-not-json", "pan=4000056655665556 exp=12/29");
        CARD_EVENTS.put("m-settlement", EventIngestionTest.settled("evt-8", "auth-8", "2026-11-30T00:00:00Z")
                .replace("\"currency\"", "\"cardNumber\":\"5105105105105100\",\"currency\""));
    }

    private static final List<String> CARD_NUMBERS = List.of("4111111111111111", "5500000000000004", "378282246310005",
            "6011000990139424", "4012888888881881", "4222222222222", "4000056655665556", "5105105105105100");

    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private final List<String> metricLines = new ArrayList<>();

    private static Logger root() {
        return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }

    @BeforeEach
    void captureLogs() {
        logs.start();
        root().addAppender(logs);
    }

    @AfterEach
    void detachLogs() {
        root().detachAppender(logs);
    }

    @Test
    void eventsWithCardDataAreRefusedAndAppearInNoTableAndNoLog(LocalDynamo.Engine engine) {
        String deadLetters = IngestEventsHandlerTest.refusedQueue(engine);
        IngestEventsHandler handler = IngestEventsHandlerTest.handler(engine, metricLines, deadLetters);
        Map<String, String> bodies = new LinkedHashMap<>(CARD_EVENTS);
        bodies.put("m-clean", EventIngestionTest.created("evt-9", "auth-9", 2599, "2026-11-28T10:00:00Z"));

        JsonNode response = handler.handle(IngestEventsHandlerTest.sqsEvent(bodies));

        List<String> failed = new ArrayList<>();
        response.path("batchItemFailures").forEach(f -> failed.add(f.path("itemIdentifier").textValue()));
        // Refused, each sent to the refused-events queue (the one place a refused body may go: encrypted, for a person).
        assertThat(failed).isEmpty();
        List<String> deadLettered = new ArrayList<>();
        var sqs = new com.payments.reconciler.testing.LocalAwsClients(engine.moto().endpoint()).sqs();
        for (int i = 0; i < 3; i++) {
            sqs.receiveMessage(b -> b.queueUrl(deadLetters).maxNumberOfMessages(10).messageAttributeNames("All")).messages().forEach(m ->
                    deadLettered.add(m.messageAttributes().get(SqsRefusedEvents.SOURCE_MESSAGE_ID_ATTRIBUTE).stringValue()));
        }
        assertThat(deadLettered).containsExactlyInAnyOrderElementsOf(CARD_EVENTS.keySet());
        assertThat(everythingStoredAndLogged(engine)).contains("auth-9"); // the clean event went through
        assertThat(logs.list).extracting(ILoggingEvent::getFormattedMessage).filteredOn(m -> m.contains("CARDHOLDER_DATA"))
                .hasSize(CARD_EVENTS.size());
        for (String card : CARD_NUMBERS) {
            assertThat(found(card, everythingStoredAndLogged(engine))).as("card number ending %s", card.substring(card.length() - 4)).isFalse();
        }
        assertThat(response.toString()).doesNotContainAnyWhitespaces().doesNotContain("4111");
    }

    @Test
    void theGrepFindsACardNumberWhereOneIs(LocalDynamo.Engine engine) {
        // The known-bad input for the check above: a card number written past ingestion, and one logged.
        engine.client().putItem(b -> b.tableName(engine.tables().settlements()).item(Map.of(
                Tables.Settlements.AUTHORISATION_ID, AttributeValue.fromS("auth-x"),
                Tables.Settlements.CURRENCY, AttributeValue.fromS("4111 1111 1111 1111"))));
        LoggerFactory.getLogger(CardDataNeverStoredTest.class).info("oops {}", "5500-0000-0000-0004");

        String haystack = everythingStoredAndLogged(engine);

        assertThat(found("4111111111111111", haystack)).isTrue();
        assertThat(found("5500000000000004", haystack)).isTrue();
        assertThat(found("378282246310005", haystack)).isFalse();
    }

    private String everythingStoredAndLogged(LocalDynamo.Engine engine) {
        StringBuilder all = new StringBuilder();
        var snapshot = engine.snapshot();
        for (var schema : Tables.ALL) {
            snapshot.of(schema).forEach(item -> all.append(item).append('\n'));
        }
        for (AppliedWrite write : engine.writes()) {
            all.append(write).append('\n');
        }
        for (ILoggingEvent event : logs.list) {
            all.append(event.getFormattedMessage()).append(' ').append(event.getMDCPropertyMap()).append('\n');
            if (event.getThrowableProxy() != null) {
                all.append(event.getThrowableProxy().getMessage()).append('\n');
            }
        }
        metricLines.forEach(line -> all.append(line).append('\n'));
        return all.toString();
    }

    /** Found in any notation: the haystack compared with its spaces and dashes taken out. */
    private static boolean found(String digits, String haystack) {
        return haystack.replace(" ", "").replace("-", "").contains(digits);
    }
}
