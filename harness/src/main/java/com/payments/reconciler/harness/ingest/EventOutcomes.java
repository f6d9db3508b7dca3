package com.payments.reconciler.harness.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.ingest.CardDataScreen;
import com.payments.reconciler.ingest.EventDecoder;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.workflow.Json;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * What became of each event of an {@link EventsFile}, from what the queue and the tables show, never from the
 * function's own counts: a message the mapping was told not to delete is <b>refused</b> (its reason is the contract's
 * decoder's, the code IngestEvents runs; a valid event refused all the same contradicted the stored item); a deleted
 * message whose event id is on the items is <b>accepted</b> at its first line; any other deleted message is a
 * <b>duplicate</b> (a re-publication, or an event whose effect was already stored). A refused event's body is never
 * kept, and its id only when it is a well-formed id that holds no card number.
 */
public final class EventOutcomes {

    /** The file {@code --dump-state DIR} gets: one line per event of the file. */
    public static final String FILE = "ingestion.jsonl";

    public enum Outcome { ACCEPTED, DUPLICATE, REFUSED }

    /**
     * @param eventId null when the event has none that may be shown
     * @param refusal for a refused event, the kind of refusal (CARDHOLDER_DATA, MALFORMED, CONFLICT)
     * @param reason why it was refused or not applied; null for an accepted event
     */
    public record Entry(int line, String messageId, String eventId, Outcome outcome, String refusal, String reason) {
    }

    private static final ObjectMapper JSON = Json.mapper();
    /** The contract's id form (docs/integration.md): what may be shown of a refused event. */
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}");

    private EventOutcomes() {
    }

    /**
     * @param messageIds each line's SQS message id, in the file's order
     * @param refusedMessageIds the messages the function reported and that were never deleted
     * @param applied the event ids stored on the items ({@link #appliedEventIds})
     */
    public static List<Entry> of(EventsFile events, List<String> messageIds, Set<String> refusedMessageIds, Set<String> applied) {
        if (messageIds.size() != events.lines().size()) {
            throw new IllegalArgumentException(events.lines().size() + " events but " + messageIds.size() + " message ids");
        }
        EventDecoder decoder = new EventDecoder();
        Map<String, Integer> firstLine = new HashMap<>();
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < events.lines().size(); i++) {
            EventsFile.Line line = events.lines().get(i);
            String messageId = messageIds.get(i);
            if (refusedMessageIds.contains(messageId)) {
                String id = showableId(line.body());
                entries.add(switch (decoder.decode(line.body())) {
                    case EventDecoder.Decoded.Refused refused -> new Entry(line.number(), messageId, id, Outcome.REFUSED,
                            refused.refusal().reason().name(), refused.refusal().message());
                    case EventDecoder.Decoded.Valid valid -> new Entry(line.number(), messageId, id, Outcome.REFUSED, "CONFLICT",
                            "contradicts what is stored for authorisation " + valid.event().authorisationId()
                                    + " (the stored one stays; IngestEvents' log names message " + messageId + ")");
                });
                continue;
            }
            // Deleted: IngestEvents accepted it or found it already applied; the decoder passed it, so its id is well formed.
            String eventId = textField(line.body(), "eventId");
            Integer earlier = firstLine.putIfAbsent(eventId, line.number());
            if (earlier == null && applied.contains(eventId)) {
                entries.add(new Entry(line.number(), messageId, eventId, Outcome.ACCEPTED, null, null));
            } else if (earlier != null) {
                entries.add(new Entry(line.number(), messageId, eventId, Outcome.DUPLICATE, null,
                        "event " + eventId + " again (first at line " + earlier + "): applied once"));
            } else {
                entries.add(new Entry(line.number(), messageId, eventId, Outcome.DUPLICATE, null,
                        "nothing to change: the stored item already records this (another event's void, expiry or settlement)"));
            }
        }
        return entries;
    }

    /** The event ids ingestion stores on the items it writes (docs/integration.md): what was applied. */
    public static Set<String> appliedEventIds(StoreSnapshot snapshot) {
        Set<String> ids = new HashSet<>();
        for (Map<String, AttributeValue> item : snapshot.of(Authorisations.SCHEMA)) {
            addString(ids, item, Authorisations.CREATED_EVENT_ID);
            addString(ids, item, Authorisations.END_EVENT_ID);
        }
        for (Map<String, AttributeValue> item : snapshot.of(Settlements.SCHEMA)) {
            addString(ids, item, Settlements.SETTLEMENT_EVENT_ID);
            // The feed's watermark item keeps the event that last moved it forward; earlier ones read as duplicates.
            addString(ids, item, Settlements.WATERMARK_EVENT_ID);
        }
        return ids;
    }

    public static Map<Outcome, Long> counts(List<Entry> entries) {
        Map<Outcome, Long> counts = new LinkedHashMap<>();
        for (Outcome o : Outcome.values()) {
            counts.put(o, entries.stream().filter(e -> e.outcome() == o).count());
        }
        return counts;
    }

    public static void write(Path dir, List<Entry> entries) {
        try (BufferedWriter out = Files.newBufferedWriter(dir.resolve(FILE), StandardCharsets.UTF_8)) {
            for (Entry e : entries) {
                var line = JSON.createObjectNode().put("line", e.line()).put("messageId", e.messageId());
                line.put("eventId", e.eventId());
                line.put("outcome", e.outcome().name().toLowerCase(java.util.Locale.ROOT));
                if (e.refusal() != null) {
                    line.put("refusal", e.refusal());
                }
                if (e.reason() != null) {
                    line.put("reason", e.reason());
                }
                out.write(JSON.writeValueAsString(line));
                out.newLine();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + dir.resolve(FILE), e);
        }
    }

    /** A refused event's id, when it is one the contract allows and holds no card number; otherwise nothing of it. */
    static String showableId(String body) {
        String id = textField(body, "eventId");
        return id != null && ID.matcher(id).matches() && !CardDataScreen.containsCardNumber(id) ? id : null;
    }

    private static String textField(String body, String field) {
        try {
            JsonNode node = JSON.readTree(body);
            JsonNode value = node == null ? null : node.get(field);
            return value != null && value.isTextual() ? value.textValue() : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static void addString(Set<String> ids, Map<String, AttributeValue> item, String attribute) {
        AttributeValue value = item.get(attribute);
        if (value != null && value.s() != null) {
            ids.add(value.s());
        }
    }
}
