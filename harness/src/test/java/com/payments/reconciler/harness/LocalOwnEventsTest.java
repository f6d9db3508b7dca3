package com.payments.reconciler.harness;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.harness.aws.LocalResources;
import com.payments.reconciler.harness.ingest.LocalIngestQueue;
import com.payments.reconciler.harness.ingest.MappingSpec;
import com.payments.reconciler.harness.ingest.PlatformFeed;
import com.payments.reconciler.harness.local.LocalPipeline;
import com.payments.reconciler.harness.local.LocalRun;
import com.payments.reconciler.harness.report.WouldRelease;
import com.payments.reconciler.reconcile.DeadLetterDepth;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.workflow.Json;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@code local --events FILE}: a person's own events through the same queue and IngestEvents, the night on exactly
 * those, each event's outcome in {@code ingestion.jsonl} (never a refused body) and, in a dry run, each authorisation it
 * would release in {@code would-release.jsonl}. Every line of both files is checked. The refused events go to the
 * refused-events queue, not the dead-letter queue, so they hold exactly what their hold items name: the refused
 * authorisation events nothing (card data in one included: a readable {@code authorisation.created} cannot hide a
 * settlement), the refused settlement ({@code held#auth-a}) its one authorisation; without refusals nothing is held. {@link #knownBadTheDepthRuleOnTheRefusedQueueHoldsTheWholeNight} is the arrangement
 * before, where every refusal held the night from the dead-letter queue.
 */
class LocalOwnEventsTest {

    private static final Path BUILD = Path.of(System.getProperty("reconciler.target"));
    /** A test card number (Luhn-valid): it must appear nowhere the run writes. */
    private static final String PAN = "4111111111111111";
    /** auth-a's settlement with a settledAt finer than a millisecond (%s): refused, its hold item held#auth-a written first. */
    private static final String REFUSED_SETTLEMENT_A = "{\"version\":1,\"type\":\"settlement.posted\",\"eventId\":\"evt-a-settled\","
            + "\"authorisationId\":\"auth-a\",\"amountMinor\":2599,\"currency\":\"EUR\",\"settledAt\":\"%s\"}";

    @Test
    void ownEventsAreIngestedReportedPerEventAndTheDryRunListsWhatItWouldRelease() throws Exception {
        WindowId window = new WindowId(LocalDate.now(Clock.systemUTC()).minusDays(1));
        Instant cutoff = WindowConfig.defaults().nightFor(window).cutoff();
        Instant a = cutoff.minus(Duration.ofDays(2));
        Instant b = cutoff.minus(Duration.ofDays(3));
        Instant d = cutoff.minus(Duration.ofDays(1));
        Instant e = cutoff.minus(Duration.ofDays(4));
        String createdA = created("evt-a", "auth-a", 2599, "EUR", a, "");
        List<String> file = List.of(
                createdA,                                                                           // 1 accepted
                created("evt-b", "auth-b", 100, "GBP", b, ""),                                      // 2 accepted
                "{\"version\":1,\"type\":\"settlement.posted\",\"eventId\":\"evt-b-settled\",\"authorisationId\":\"auth-b\","
                        + "\"amountMinor\":100,\"currency\":\"GBP\",\"settledAt\":\"" + cutoff.minus(Duration.ofDays(1)) + "\"}", // 3 accepted
                createdA,                                                                           // 4 duplicate of 1
                created("evt-c", "auth-c", 700, "EUR", cutoff.plus(Duration.ofHours(1)), ""),       // 5 accepted, young
                created("evt-g", "auth-g", 300, "EUR", a, ",\"note\":\"hello\""),                   // 6 refused: unknown field
                created("evt-card-1", "auth-f", 400, "EUR", a, ",\"pan\":\"4111 1111 1111 1111\""), // 7 refused: card data
                created("evt-" + PAN, "auth-h", 500, "EUR", a, ""),                                 // 8 refused: a card number as id
                created("evt-d", "auth-d", 5000, "JPY", d, ""),                                     // 9 accepted
                "{\"version\":1,\"type\":\"authorisation.voided\",\"eventId\":\"evt-e-voided\",\"authorisationId\":\"auth-e\","
                        + "\"endedAt\":\"" + e.plus(Duration.ofHours(2)) + "\"}",                   // 10 accepted, before its created
                created("evt-e", "auth-e", 900, "EUR", e, ""),                                      // 11 accepted
                "",                                                                                 // 12 blank: skipped
                created("evt-i", "auth-i", 600, "euro", a, ""),                                     // 13 refused: currency
                // 14 accepted: the settlement feed is complete up to now (without it the night releases nothing)
                "{\"version\":1,\"type\":\"feed.watermark\",\"eventId\":\"wm-1\",\"feed\":\"settlements\",\"watermark\":\""
                        + Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS) + "\"}",
                REFUSED_SETTLEMENT_A.formatted(cutoff.minus(Duration.ofDays(1)).plusNanos(1_000)));        // 15 refused: held#auth-a
        Path dump = BUILD.resolve("own-events-dump-" + UUID.randomUUID());
        Run run = dryRun(file, window, dump);
        String console = run.console();
        JsonNode report = run.report();
        assertThat(report.at("/execution/status").asText()).isEqualTo("SUCCEEDED");
        // The night decided on exactly these events: five authorisations, three of them past the cutoff (a, b, d); b's
        // settlement took it out of the pending index as it was ingested, so the night reads only a and d. The refused
        // events are in the refused-events queue, the dead-letter queue is empty (docs/design.md, "Held for feed"): only the
        // refused settlement's hold item held#auth-a holds anything, so a is held and d is listed as would-release.
        assertThat(report.at("/counts/authorisations").asLong()).isEqualTo(5);
        assertThat(report.at("/counts/candidates").asLong()).isEqualTo(2);
        assertThat(report.at("/counts/candidatesRead").asLong()).isEqualTo(2);
        assertThat(report.at("/counts/skippedSettled").asLong()).isZero();
        assertThat(report.at("/counts/releaseRequested").asLong()).as("a dry run").isZero();
        assertThat(report.at("/counts/wouldRelease").asLong()).isEqualTo(1);
        assertThat(report.at("/counts/heldForFeed").asLong()).isEqualTo(1);
        assertThat(console).doesNotContain("held for feed: the ingestion dead-letter queue held messages").doesNotContain("DRY RUN MISMATCH")
                .contains("refused events: about 5 in the refused-events queue");
        assertThat(report.at("/ingestion/deadLettered").asLong()).isZero();
        assertThat(holdKeys(dump)).containsExactly("held#auth-a");
        assertThat(jsonLines(dump.resolve("would-release.jsonl"))).as("a held, d listed").extracting(JsonNode::toString).containsExactly(
                "{\"authorisationId\":\"auth-d\",\"authorisedAt\":\"" + d + "\",\"amountMinor\":5000,\"currency\":\"JPY\"}");
        assertThat(report.at("/ingestion/published").asLong()).isEqualTo(14);
        assertThat(report.at("/ingestion/accepted").asLong()).isEqualTo(8);
        assertThat(report.at("/ingestion/duplicates").asLong()).isEqualTo(1);
        assertThat(report.at("/ingestion/rejected").asLong()).isEqualTo(5);
        assertThat(console).contains("14 lines: 8 accepted, 1 duplicate, 5 refused");

        List<JsonNode> ingestion = jsonLines(dump.resolve("ingestion.jsonl"));
        List<String> expected = List.of(
                "1 evt-a accepted", "2 evt-b accepted", "3 evt-b-settled accepted", "4 evt-a duplicate", "5 evt-c accepted",
                "6 evt-g refused MALFORMED", "7 evt-card-1 refused CARDHOLDER_DATA", "8 null refused CARDHOLDER_DATA", "9 evt-d accepted",
                "10 evt-e-voided accepted", "11 evt-e accepted", "13 evt-i refused MALFORMED", "14 wm-1 accepted",
                "15 evt-a-settled refused MALFORMED");
        assertThat(ingestion).extracting(l -> l.get("line").asInt() + " " + l.get("eventId").asText() + " " + l.get("outcome").asText()
                + (l.has("refusal") ? " " + l.get("refusal").asText() : "")).containsExactlyElementsOf(expected);
        assertThat(ingestion).allSatisfy(l -> assertThat(l.get("messageId").asText()).isNotBlank());
        assertThat(ingestion).filteredOn(l -> l.get("outcome").asText().equals("accepted")).allSatisfy(l -> assertThat(l.has("reason")).isFalse());
        assertThat(ingestion.get(3).get("reason").asText()).contains("first at line 1");
        assertThat(ingestion.get(5).get("reason").asText()).contains("note");
        assertThat(ingestion.get(6).get("reason").asText()).contains("cardholder data");
        assertThat(ingestion.get(11).get("reason").asText()).contains("currency");
        String ingestionText = Files.readString(dump.resolve("ingestion.jsonl"));
        assertThat(ingestionText).as("no refused event's body, no card number").doesNotContain(PAN).doesNotContain("4111 1111")
                .doesNotContain("hello").doesNotContain("\"pan\"").doesNotContain("auth-f").doesNotContain("auth-h");


        // No synthetic data: the authorisations stored are the file's.
        Set<String> stored = new TreeSet<>();
        for (JsonNode line : jsonLines(dump.resolve("tables.jsonl"))) {
            if (line.get("table").asText().equals("Authorisations")) {
                stored.add(line.at("/item/authorisationId").asText());
            }
        }
        assertThat(stored).containsExactly("auth-a", "auth-b", "auth-c", "auth-d", "auth-e");
        for (Path written : List.of(dump.resolve("tables.jsonl"), dump.resolve("provider-effects.jsonl"), dump.resolve("would-release.jsonl"))) {
            assertThat(Files.readString(written)).as(written.toString()).doesNotContain(PAN);
        }
        assertThat(console).doesNotContain(PAN);

        // The same file without its refused lines: no hold, and the dry run lists a and d.
        List<String> accepted = new ArrayList<>(file);
        for (int refusedLine : new int[] {15, 13, 8, 7, 6}) {
            accepted.remove(refusedLine - 1);
        }
        Path cleanDump = BUILD.resolve("own-events-dump-" + UUID.randomUUID());
        Run clean = dryRun(accepted, window, cleanDump);
        assertThat(clean.report().at("/counts/wouldRelease").asLong()).as(clean.console()).isEqualTo(2);
        assertThat(clean.report().at("/counts/heldForFeed").asLong()).isZero();
        assertThat(clean.console()).doesNotContain("DRY RUN MISMATCH").doesNotContain("held for feed").doesNotContain("refused events:");
        List<JsonNode> wouldRelease = jsonLines(cleanDump.resolve("would-release.jsonl"));
        assertThat(wouldRelease).extracting(JsonNode::toString).containsExactly(
                "{\"authorisationId\":\"auth-a\",\"authorisedAt\":\"" + a + "\",\"amountMinor\":2599,\"currency\":\"EUR\"}",
                "{\"authorisationId\":\"auth-d\",\"authorisedAt\":\"" + d + "\",\"amountMinor\":5000,\"currency\":\"JPY\"}");
    }

    /**
     * The known-bad twin: the same kind of events through the same queue and IngestEvents, then the night's depth rule
     * ({@code DeadLetterDepth}) read on the dead-letter queue the night reads (empty: the would-release list leaves out only
     * auth-a, which its hold item names) and on the refused-events queue, as the night read the queue its refusals went to
     * before they had one of their own: that queue is never empty after a refusal, so every due authorisation is held.
     */
    @Test
    void knownBadTheDepthRuleOnTheRefusedQueueHoldsTheWholeNight() {
        WindowId window = new WindowId(LocalDate.now(Clock.systemUTC()).minusDays(1));
        Instant cutoff = WindowConfig.defaults().nightFor(window).cutoff();
        Instant a = cutoff.minus(Duration.ofDays(2));
        Instant d = cutoff.minus(Duration.ofDays(1));
        List<String> bodies = List.of(
                created("evt-a", "auth-a", 2599, "EUR", a, ""),
                created("evt-d", "auth-d", 5000, "JPY", d, ""),
                created("evt-g", "auth-g", 300, "EUR", a, ",\"note\":\"hello\""),              // refused, holds nothing
                REFUSED_SETTLEMENT_A.formatted(d.plusNanos(1_000)));                          // refused: held#auth-a
        try (LocalPipeline pipeline = LocalPipeline.start(LocalPipeline.Options.defaults(BUILD.resolve("own-events-twin"), Clock.systemUTC()))) {
            MappingSpec spec = LocalRun.localMapping(LocalPipeline.Hosting.IN_PROCESS);
            PlatformFeed.Tally tally;
            try (LocalIngestQueue queue = LocalIngestQueue.create(pipeline.engineEndpoint(), LocalResources.LOCAL_QUEUE_PREFIX, spec)) {
                tally = new PlatformFeed(queue, pipeline.lambdaEndpoint(), Clock.systemUTC(), 1, false)
                        .feed(bodies, 0, () -> StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables()));
            }
            assertThat(tally.rejected()).isEqualTo(2);
            assertThat(tally.deadLettered()).isZero();
            StoreSnapshot snapshot = StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables());

            DeadLetterDepth.Reading deadLetters = pipeline.queueDepth(LocalPipeline.localDeadLetterQueueUrl());
            assertThat(deadLetters).isInstanceOf(DeadLetterDepth.Empty.class);
            assertThat(WouldRelease.from(snapshot, cutoff, deadLetters.holds())).extracting(WouldRelease.Entry::authorisationId)
                    .containsExactly("auth-d");

            DeadLetterDepth.Reading oldArrangement = pipeline.queueDepth(LocalPipeline.localRefusedQueueUrl());
            assertThat(oldArrangement).isEqualTo(new DeadLetterDepth.NotEmpty(2));
            assertThat(WouldRelease.from(snapshot, cutoff, oldArrangement.holds())).as("every due authorisation held").isEmpty();
        }
    }

    /** The hold items the run left in Settlements ({@code held#...}), from the dump. */
    private static List<String> holdKeys(Path dump) throws Exception {
        List<String> keys = new ArrayList<>();
        for (JsonNode line : jsonLines(dump.resolve("tables.jsonl"))) {
            String id = line.at("/item/authorisationId").asText();
            if (line.get("table").asText().equals("Settlements") && id.startsWith("held#")) {
                keys.add(id);
            }
        }
        return keys;
    }

    private record Run(JsonNode report, String console) {
    }

    private static Run dryRun(List<String> file, WindowId window, Path dump) throws Exception {
        Path events = BUILD.resolve("own-events-" + UUID.randomUUID() + ".jsonl");
        Files.write(events, file, StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = HarnessCli.run(new String[] {"local", "--events", events.toString(), "--window", window.toString(), "--dry-run",
                        "--engine", "in-process", "--json", "--dump-state", dump.toString(), "--work-dir", BUILD.resolve("own-events").toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String console = err.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(console).isZero();
        return new Run(Json.mapper().readTree(out.toString(StandardCharsets.UTF_8)), console);
    }

    private static String created(String eventId, String authorisationId, long amount, String currency, Instant at, String extra) {
        return "{\"version\":1,\"type\":\"authorisation.created\",\"eventId\":\"" + eventId + "\",\"authorisationId\":\"" + authorisationId
                + "\",\"amountMinor\":" + amount + ",\"currency\":\"" + currency + "\",\"merchantId\":\"m-1\",\"authorisedAt\":\"" + at + "\""
                + extra + "}";
    }

    private static List<JsonNode> jsonLines(Path file) throws Exception {
        List<JsonNode> nodes = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            nodes.add(Json.mapper().readTree(line));
        }
        return nodes;
    }
}
