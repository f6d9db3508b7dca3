package com.payments.reconciler.harness.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.cli.operator.ExecutionFollower;
import com.payments.reconciler.audit.ProviderEffect;
import com.payments.reconciler.harness.nights.MultiNightRun;
import com.payments.reconciler.workflow.ErrorNames;
import com.payments.reconciler.workflow.Json;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code local --scenario settlement-feed-outage}: the card platform's settlement publisher stopped a day before the
 * window. Every other event is published; half the settlements (every second one, in publishing order) were posted
 * during the outage and are not, and the last watermark published is a day old. The night must release nothing and fail
 * {@code FeedNotComplete}, its cause naming the watermark and its age; no provider release may follow the publication of
 * its authorisation's settlement. {@code --dump-state} adds what the platform published ({@link MultiNightRun#PLATFORM_EVENTS}).
 */
final class FeedOutage {

    /** How long before the night the publisher stopped. */
    static final Duration OUTAGE = Duration.ofDays(1);
    static final String PLATFORM_EVENTS = MultiNightRun.PLATFORM_EVENTS;
    private static final ObjectMapper JSON = Json.mapper();

    private FeedOutage() {
    }

    /** The bodies the platform published before it stopped, then its last watermark, {@link #OUTAGE} before {@code now}. */
    static List<String> published(List<String> bodies, Instant now, Consumer<String> console) {
        List<String> published = new ArrayList<>();
        int settlements = 0;
        int heldBack = 0;
        for (String body : bodies) {
            if (body.contains("\"type\":\"settlement.posted\"") && settlements++ % 2 == 1) {
                heldBack++;
                continue;
            }
            published.add(body);
        }
        Instant watermark = now.minus(OUTAGE);
        published.add(SyntheticEvents.watermark("watermark:" + watermark.truncatedTo(java.time.temporal.ChronoUnit.MILLIS), watermark));
        console.accept("settlement-feed-outage: the platform's settlement publisher stopped " + OUTAGE.toHours() + " h ago: " + heldBack
                + " of " + settlements + " settlements not published, its last watermark " + watermark.truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
        return List.copyOf(published);
    }

    /** Each published body as a line of {@link #PLATFORM_EVENTS}: when, and the event. */
    static List<String> lines(List<String> bodies, Instant publishedAt) {
        List<String> lines = new ArrayList<>();
        for (String body : bodies) {
            ObjectNode line = JSON.createObjectNode();
            line.put("publishedAt", publishedAt.toEpochMilli());
            line.set("event", read(body));
            lines.add(line.toString());
        }
        return lines;
    }

    /**
     * What the scenario requires beyond I1-I5: the night failed FeedNotComplete, nothing was released, and no release
     * followed the publication of its authorisation's settlement.
     */
    static List<String> findings(ExecutionFollower.Followed night, List<ProviderEffect> effects, List<String> platformEvents) {
        List<String> findings = new ArrayList<>();
        if (!night.error().orElse("").equals(ErrorNames.FEED_NOT_COMPLETE)) {
            findings.add("the night ended " + night.status() + " " + night.error().orElse("") + ", not failed with " + ErrorNames.FEED_NOT_COMPLETE);
        } else if (!night.cause().orElse("").contains("watermark")) {
            findings.add("the night's FeedNotComplete does not name the watermark: " + night.cause().orElse("(no cause)"));
        }
        long released = effects.stream().filter(e -> e.performed() > 0).count();
        if (released > 0) {
            findings.add(released + " holds released while the settlement feed was not complete");
        }
        findings.addAll(releasedAfterSettlementPublished(effects, platformEvents));
        return findings;
    }

    /** The invariant: no provider release at or after the platform published that authorisation's settlement. */
    static List<String> releasedAfterSettlementPublished(List<ProviderEffect> effects, List<String> platformEvents) {
        Map<String, Long> settlementPublished = new HashMap<>();
        for (String line : platformEvents) {
            JsonNode node = read(line);
            if (node.at("/event/type").asText().equals("settlement.posted")) {
                settlementPublished.merge(node.at("/event/authorisationId").asText(), node.get("publishedAt").asLong(), Math::min);
            }
        }
        List<String> findings = new ArrayList<>();
        for (ProviderEffect effect : effects) {
            Long published = settlementPublished.get(effect.authorisationId());
            if (published != null && effect.performedAt().stream().anyMatch(at -> at >= published)) {
                findings.add("released " + effect.authorisationId() + " after the platform published its settlement");
            }
        }
        return findings;
    }

    static void write(Path dir, List<String> lines) {
        try {
            Files.createDirectories(dir);
            try (BufferedWriter out = Files.newBufferedWriter(dir.resolve(PLATFORM_EVENTS), StandardCharsets.UTF_8)) {
                for (String line : lines) {
                    out.write(line);
                    out.newLine();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
