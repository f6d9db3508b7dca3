package com.payments.reconciler.harness.ingest;

import com.payments.reconciler.audit.AppliedWrite;
import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.harness.aws.SynthesizedTemplate;
import com.payments.reconciler.harness.local.LocalPipeline;
import com.payments.reconciler.harness.local.LocalRun;
import com.payments.reconciler.store.TableSchema;
import com.payments.reconciler.store.Tables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.sqs.model.Message;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Card data is never stored, through the path a platform's events take: events with a card-number-like field, published
 * to the local ingestion queue and consumed by the harness's event source mapping invoking IngestEvents in its Lambda
 * sandboxes, are refused on each of the queue's {@code maxReceiveCount} receives, moved to the dead-letter queue by
 * the redrive policy, and appear in no table, no applied write and no log file of the run (the sandboxes' logs, which
 * hold everything the function printed, and the engine's). {@code CardDataNeverStoredTest} (functions) checks the
 * handler alone; {@link #theGrepFindsCardNumbersInATableAndALogFile} is this grep's known-bad proof.
 */
class CardDataThroughTheQueueTest {

    private static final String CREATED = "{\"version\":1,\"type\":\"authorisation.created\",\"eventId\":\"evt-%s\","
            + "\"authorisationId\":\"auth-%s\",\"amountMinor\":2599,\"currency\":\"EUR\",\"merchantId\":\"merchant-1\","
            + "\"authorisedAt\":\"2026-11-28T10:00:00Z\"}";
    /** Test card numbers (Luhn-valid), each placed differently; the events are otherwise valid. */
    private static final List<String> CARD_EVENTS = List.of(
            CREATED.formatted("c1", "c1").replace("\"merchantId\"", "\"pan\":\"4111111111111111\",\"merchantId\""),
            CREATED.formatted("c2", "c2").replace("merchant-1", "card 5500 0000 0000 0004"),
            CREATED.formatted("c3", "c3").replace("auth-c3", "6011-0009-9013-9424"),
            "{\"version\":1,\"type\":\"settlement.posted\",\"eventId\":\"evt-c4\",\"authorisationId\":\"auth-c4\",\"amountMinor\":10,"
                    + "\"currency\":\"EUR\",\"settledAt\":\"2026-11-30T00:00:00Z\",\"cardNumber\":\"5105105105105100\"}");
    private static final List<String> CARD_NUMBERS = List.of("4111111111111111", "5500000000000004", "6011000990139424", "5105105105105100");

    private static Path workDir;
    private static LocalPipeline pipeline;

    @BeforeAll
    static void start() {
        workDir = Path.of(System.getProperty("reconciler.target"), "card-data-through-the-queue");
        pipeline = LocalPipeline.start(LocalPipeline.Options.defaults(workDir, Clock.systemUTC())
                .withHosting(new LocalPipeline.Sandboxes(SynthesizedTemplate.load())));
    }

    @AfterAll
    static void stop() {
        if (pipeline != null) {
            pipeline.close();
        }
    }

    @Test
    void cardDataGoesToTheDeadLetterQueueAndNowhereElse() {
        MappingSpec spec = LocalRun.localMapping(new LocalPipeline.Sandboxes(SynthesizedTemplate.load()));
        List<String> bodies = new ArrayList<>(CARD_EVENTS);
        String clean = CREATED.formatted("ok1", "ok1");
        bodies.add(1, clean);
        bodies.add(clean);

        PlatformFeed.Tally tally;
        List<Message> deadLetters;
        // The redrive path: IngestEvents' own send to the refused-events queue its environment names fails, so each refused
        // message stays on the queue until the redrive policy moves it to card-'s dead-letter queue.
        pipeline.deleteLocalRefusedQueue();
        try (LocalIngestQueue queue = LocalIngestQueue.create(pipeline.engineEndpoint(), "card-", spec)) {
            tally = new PlatformFeed(queue, pipeline.lambdaEndpoint(), Clock.systemUTC()).feed(bodies, 0,
                    () -> StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables()));
            deadLetters = queue.receiveDeadLetters();
        }

        assertThat(tally.accepted()).isEqualTo(1);
        assertThat(tally.duplicates()).isEqualTo(1);
        assertThat(tally.rejected()).isEqualTo(CARD_EVENTS.size());
        assertThat(tally.deadLettered()).isEqualTo(CARD_EVENTS.size());
        // Each refused message was received exactly maxReceiveCount times before the redrive policy moved it.
        assertThat(tally.receives()).isEqualTo(2 + (long) CARD_EVENTS.size() * spec.maxReceiveCount());
        assertThat(deadLetters).extracting(Message::body).containsExactlyInAnyOrderElementsOf(CARD_EVENTS);

        String tablesAndWrites = tablesAndWrites(StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables()), pipeline.appliedWrites());
        String logs = logFiles(workDir);
        assertThat(tablesAndWrites).contains("auth-ok1");
        assertThat(logs).as("the refusals were logged, by message id and reason").contains("CARDHOLDER_DATA");
        for (String card : CARD_NUMBERS) {
            assertThat(found(card, tablesAndWrites)).as("card number ending %s in a table", card.substring(12)).isFalse();
            assertThat(found(card, logs)).as("card number ending %s in a log", card.substring(12)).isFalse();
        }
    }

    @Test
    void theGrepFindsCardNumbersInATableAndALogFile(@TempDir Path dir) throws IOException {
        // The known-bad input: a card number stored in an item, another in a log file of the run.
        Map<TableSchema, List<Map<String, AttributeValue>>> items = Map.of(Tables.Settlements.SCHEMA, List.of(Map.of(
                Tables.Settlements.AUTHORISATION_ID, AttributeValue.fromS("auth-x"),
                Tables.Settlements.CURRENCY, AttributeValue.fromS("4111 1111 1111 1111"))));
        Files.createDirectories(dir.resolve("lambda/sandboxes"));
        Files.writeString(dir.resolve("lambda/sandboxes/IngestEvents-9.log"), "refused 5500-0000-0000-0004\n");

        String tables = tablesAndWrites(new StoreSnapshot(items), List.of());
        String logs = logFiles(dir);

        assertThat(found("4111111111111111", tables)).isTrue();
        assertThat(found("5500000000000004", logs)).isTrue();
        assertThat(found("6011000990139424", tables + logs)).isFalse();
    }

    private static String tablesAndWrites(StoreSnapshot snapshot, List<AppliedWrite> writes) {
        StringBuilder all = new StringBuilder();
        for (TableSchema schema : Tables.ALL) {
            snapshot.of(schema).forEach(item -> all.append(item).append('\n'));
        }
        writes.forEach(w -> all.append(w).append('\n'));
        return all.toString();
    }

    /** Every file the run wrote that a log could be in (the copied engine scripts are not logs, but harmless). */
    private static String logFiles(Path dir) {
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.filter(Files::isRegularFile).filter(f -> f.toString().endsWith(".log")).toList()) {
                all.append(Files.readString(file)).append('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return all.toString();
    }

    /** Found in any notation: the haystack compared with its spaces and dashes taken out. */
    private static boolean found(String digits, String haystack) {
        return haystack.replace(" ", "").replace("-", "").contains(digits);
    }
}
