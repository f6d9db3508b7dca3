package com.payments.reconciler.harness.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.harness.ingest.EventOutcomes.Entry;
import com.payments.reconciler.harness.ingest.EventOutcomes.Outcome;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Each event's outcome from what the queue and the tables show: a table of the cases, one per line. */
class EventOutcomesTest {

    private static String created(String eventId, String authorisationId, String currency) {
        return "{\"version\":1,\"type\":\"authorisation.created\",\"eventId\":\"" + eventId + "\",\"authorisationId\":\"" + authorisationId
                + "\",\"amountMinor\":100,\"currency\":\"" + currency + "\",\"merchantId\":\"m-1\",\"authorisedAt\":\"2026-11-20T10:00:00Z\"}";
    }

    @Test
    void eachLineGetsItsOutcomeAndOnlyAShowableId() {
        EventsFile file = new EventsFile(Path.of("events.jsonl"), List.of(
                new EventsFile.Line(1, created("e-1", "a-1", "EUR")),
                new EventsFile.Line(2, created("e-1", "a-1", "EUR")),
                new EventsFile.Line(3, created("e-2", "a-1", "GBP")),
                new EventsFile.Line(4, created("e-3", "a-3", "euro")),
                new EventsFile.Line(5, created("e-4111111111111111", "a-4", "EUR")),
                new EventsFile.Line(7, "{\"version\":1,\"type\":\"authorisation.voided\",\"eventId\":\"e-5\",\"authorisationId\":\"a-1\","
                        + "\"endedAt\":\"2026-11-21T10:00:00Z\"}")));
        List<String> messages = List.of("m1", "m2", "m3", "m4", "m5", "m6");

        List<Entry> entries = EventOutcomes.of(file, messages, Set.of("m3", "m4", "m5"), Set.of("e-1"));

        assertThat(entries).extracting(Entry::line, Entry::eventId, Entry::outcome, Entry::refusal).containsExactly(
                org.assertj.core.groups.Tuple.tuple(1, "e-1", Outcome.ACCEPTED, null),
                org.assertj.core.groups.Tuple.tuple(2, "e-1", Outcome.DUPLICATE, null),
                org.assertj.core.groups.Tuple.tuple(3, "e-2", Outcome.REFUSED, "CONFLICT"),
                org.assertj.core.groups.Tuple.tuple(4, "e-3", Outcome.REFUSED, "MALFORMED"),
                org.assertj.core.groups.Tuple.tuple(5, null, Outcome.REFUSED, "CARDHOLDER_DATA"),
                org.assertj.core.groups.Tuple.tuple(7, "e-5", Outcome.DUPLICATE, null));
        assertThat(entries.get(1).reason()).contains("first at line 1");
        assertThat(entries.get(2).reason()).contains("contradicts what is stored for authorisation a-1").contains("m3");
        assertThat(entries.get(3).reason()).startsWith("currency");
        assertThat(entries.get(5).reason()).contains("already records");
        assertThat(entries).extracting(Entry::reason).noneMatch(r -> r != null && r.contains("4111111111111111"));
        assertThat(EventOutcomes.counts(entries)).containsExactly(
                java.util.Map.entry(Outcome.ACCEPTED, 1L), java.util.Map.entry(Outcome.DUPLICATE, 2L), java.util.Map.entry(Outcome.REFUSED, 3L));
    }
}
