package com.payments.reconciler.harness.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.audit.ProviderEffect;
import java.util.List;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code local --scenario settlement-feed-outage}: the platform's settlement publisher stopped a day before the window.
 * The night releases nothing and fails FeedNotComplete (exit 1, the cause naming the watermark and its age), and
 * {@code platform-events.jsonl} shows what was published. On main's code the scenario does not exist (exit 2), and the
 * same feed without the gate releases every due hold whose settlement was held back.
 */
class SettlementFeedOutageScenarioTest {

    @Test
    void settlementFeedOutageReleasesNothingAndFailsFeedNotComplete() throws Exception {
        LocalScenarioRun run = LocalScenarioRun.of("settlement-feed-outage", "feed-outage");
        String console = run.console();

        assertThat(run.exit()).as(console).isEqualTo(1);
        assertThat(console).contains("FeedNotComplete").contains("PT24H").contains("old").contains("maxSettlementFeedLag PT6H")
                .doesNotContain("SCENARIO:");
        JsonNode report = run.report();
        assertThat(report.at("/execution/status").asText()).isEqualTo("FAILED");
        assertThat(report.at("/counts/releaseRequested").asLong()).as("no decision committed").isZero();

        List<JsonNode> published = run.dumped(FeedOutage.PLATFORM_EVENTS);
        assertThat(published).filteredOn(l -> l.at("/event/type").asText().equals("feed.watermark")).hasSize(1);
        long settlements = published.stream().filter(l -> l.at("/event/type").asText().equals("settlement.posted")).count();
        assertThat(settlements).as("half the settlements held back, the rest published").isPositive();
        assertThat(run.dumped("provider-effects.jsonl")).allSatisfy(e -> assertThat(e.get("performed").asInt()).isZero());
    }

    /** The scenario's invariant, and its known-bad proof: a release after its settlement was published is named. */
    @Test
    void aReleaseAfterThePlatformPublishedItsSettlementIsAFinding() {
        List<String> platform = FeedOutage.lines(List.of(
                "{\"version\":1,\"type\":\"settlement.posted\",\"eventId\":\"s1\",\"authorisationId\":\"auth-1\",\"amountMinor\":1,"
                        + "\"currency\":\"EUR\",\"settledAt\":\"2026-12-01T00:00:00Z\"}"), java.time.Instant.ofEpochMilli(1_000));
        ProviderEffect before = new ProviderEffect("release-hold:auth-1", "auth-1", 1, 1, List.of(999L));
        ProviderEffect after = new ProviderEffect("release-hold:auth-1", "auth-1", 1, 1, List.of(1_000L));
        ProviderEffect other = new ProviderEffect("release-hold:auth-2", "auth-2", 1, 1, List.of(5_000L));
        assertThat(FeedOutage.releasedAfterSettlementPublished(List.of(before, other), platform)).isEmpty();
        assertThat(FeedOutage.releasedAfterSettlementPublished(List.of(after), platform))
                .containsExactly("released auth-1 after the platform published its settlement");
    }
}
