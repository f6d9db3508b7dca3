package com.payments.reconciler.harness.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.audit.ProviderEffect;
import com.payments.reconciler.cli.operator.ExecutionFollower;
import com.payments.reconciler.workflow.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * {@code local --scenario dead-lettered-settlement}: the platform publishes one settlement of a due authorisation with
 * a {@code settledAt} finer than a millisecond, which IngestEvents refuses (its hold item {@code held#<id>} written, the
 * message sent to the refused-events queue). Every other event is published as usual. The night must perform no provider
 * release for that authorisation, count it {@code heldForFeed} (≥ 1), and release no hold after the platform published
 * its settlement; the other due authorisations are released as on any night (the dead-letter queue stays empty).
 */
final class DeadLetteredSettlement {

    private static final ObjectMapper JSON = Json.mapper();
    static final String SETTLEMENT = "settlement.posted";

    /** The published bodies, one due authorisation's settlement made unacceptable; and that authorisation's id. */
    record Published(List<String> bodies, String authorisationId) {
    }

    private DeadLetteredSettlement() {
    }

    static Published published(List<String> bodies, Instant cutoff, Consumer<String> console) {
        Map<String, Instant> authorisedAt = new HashMap<>();
        for (String body : bodies) {
            JsonNode node = read(body);
            if ("authorisation.created".equals(node.path("type").asText())) {
                authorisedAt.put(node.path("authorisationId").asText(), Instant.parse(node.path("authorisedAt").asText()));
            }
        }
        String chosen = null;
        for (String body : bodies) {
            JsonNode node = read(body);
            Instant at = authorisedAt.get(node.path("authorisationId").asText());
            if (SETTLEMENT.equals(node.path("type").asText()) && at != null && at.isBefore(cutoff)) {
                chosen = node.path("authorisationId").asText();
                break;
            }
        }
        if (chosen != null) {
            // Every copy the platform publishes (the data publishes some events twice): all of them refused.
            List<String> published = new ArrayList<>(bodies.size());
            String refusedAt = null;
            for (String body : bodies) {
                JsonNode node = read(body);
                if (SETTLEMENT.equals(node.path("type").asText()) && chosen.equals(node.path("authorisationId").asText())) {
                    ObjectNode refused = (ObjectNode) node;
                    // One microsecond past the settlement's millisecond: the contract accepts milliseconds at most.
                    refusedAt = Instant.parse(node.path("settledAt").asText()).plusNanos(1_000).toString();
                    refused.put("settledAt", refusedAt);
                    published.add(refused.toString());
                } else {
                    published.add(body);
                }
            }
            console.accept("dead-lettered-settlement: the settlement of due authorisation " + chosen
                    + " is published with a settledAt finer than a millisecond (" + refusedAt + ")");
            return new Published(List.copyOf(published), chosen);
        }
        throw new IllegalStateException("dead-lettered-settlement: the data has no settled due authorisation; use more --authorisations");
    }

    /** What the scenario requires beyond I1-I5. */
    static List<String> findings(String authorisationId, ExecutionFollower.Followed night, List<ProviderEffect> effects, List<String> platformEvents) {
        List<String> findings = new ArrayList<>();
        if (effects.stream().anyMatch(e -> e.authorisationId().equals(authorisationId) && e.performed() > 0)) {
            findings.add("released " + authorisationId + ", whose settlement was refused (held#" + authorisationId + ")");
        }
        long held = heldForFeed(night);
        if (held < 1) {
            findings.add("the night counted heldForFeed " + held + ", expected at least 1");
        }
        findings.addAll(FeedOutage.releasedAfterSettlementPublished(effects, platformEvents));
        return findings;
    }

    static long heldForFeed(ExecutionFollower.Followed night) {
        Optional<String> output = night.output();
        return output.map(DeadLetteredSettlement::read).map(n -> n.path("reconcile").path("heldForFeed").asLong()).orElse(0L);
    }

    private static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
