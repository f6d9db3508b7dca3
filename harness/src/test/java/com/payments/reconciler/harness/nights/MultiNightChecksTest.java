package com.payments.reconciler.harness.nights;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.audit.ProviderEffect;
import com.payments.reconciler.workflow.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The checks across nights, each shown to fail on a known-bad record: I3 against what the platform had published
 * before the provider call (a late capture is not a finding), I2 over every night's provider record, and the feed's
 * promise that no event is timed while a night runs.
 */
class MultiNightChecksTest {

    private static final long T = Instant.parse("2026-12-01T02:00:00Z").toEpochMilli();

    @Test
    void aReleaseAfterItsSettlementWasPublishedIsAFindingALateCaptureIsNot() {
        List<MultiNightRun.Published> settledAtT = List.of(new MultiNightRun.Published(T, true, settlement("auth-1")));

        assertThat(MultiNightRun.noReleaseAfterAPublishedSettlement(List.of(effect("auth-1", T - 1)), settledAtT))
                .as("released before the platform published the settlement: a late capture").isTrue();
        assertThat(MultiNightRun.noReleaseAfterAPublishedSettlement(List.of(effect("auth-1", T + 1)), settledAtT))
                .as("known-bad: released after the settlement was published").isFalse();
        assertThat(MultiNightRun.noReleaseAfterAPublishedSettlement(List.of(effect("auth-2", T + 1)), settledAtT)).isTrue();
    }

    @Test
    void twoReleasesOfOneAuthorisationOnDifferentNightsAreAFinding() {
        assertThat(MultiNightRun.oneReleasePerAuthorisationEver(List.of(effect("auth-1", T), effect("auth-2", T)))).isTrue();
        assertThat(MultiNightRun.oneReleasePerAuthorisationEver(List.of(effect("auth-1", T),
                new ProviderEffect("release-hold:auth-1-again", "auth-1", 1, 1, List.of(T + Duration.ofDays(1).toMillis())))))
                .as("known-bad: a second night released it again under another key").isFalse();
    }

    @Test
    void noEventIsTimedWhileANightRuns() {
        Instant first = Instant.parse("2026-11-27T02:00:00Z");
        NightFeed feed = new NightFeed(first, 6, 200, 3);
        for (NightFeed.Event event : feed.events()) {
            long intoTheDay = Duration.between(first, event.at()).toMillis() % NightFeed.DAY.toMillis();
            assertThat(intoTheDay).as(event.type() + " of " + event.authorisationId())
                    .isBetween(NightFeed.BUSINESS_START.toMillis(), NightFeed.BUSINESS_START.plus(NightFeed.BUSINESS_LENGTH).toMillis() - 1);
        }
        // Known-bad: an instant in the night is moved to the next day's start, never kept.
        Instant duringANight = first.plus(Duration.ofDays(2)).plus(Duration.ofMinutes(30));
        assertThat(feed.duringTheDay(duringANight)).isEqualTo(first.plus(Duration.ofDays(2)).plus(NightFeed.BUSINESS_START));
    }

    private static ProviderEffect effect(String authorisationId, long at) {
        return new ProviderEffect("release-hold:" + authorisationId, authorisationId, 1, 1, List.of(at));
    }

    private static JsonNode settlement(String authorisationId) {
        return Json.mapper().createObjectNode().put("type", "settlement.posted").put("authorisationId", authorisationId);
    }
}
