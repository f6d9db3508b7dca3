package com.payments.reconciler.harness.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.audit.ProviderEffect;
import com.payments.reconciler.cli.operator.ExecutionFollower;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code local --scenario dead-lettered-settlement}: one settlement of a due authorisation is refused (into the
 * refused-events queue, its hold item {@code held#<id>} written first). No provider release is performed for it, the
 * report counts {@code heldForFeed} 1, and {@code platform-events.jsonl} shows the refused settlement as published. The
 * refusal holds exactly its authorisation: the dead-letter queue, whose depth holds a whole night, stays empty, so the
 * night's other due authorisations are released. The findings' known-bad proof is kept below; the whole-night hold of
 * the arrangement before (refusals in the dead-letter queue) is LocalOwnEventsTest's known-bad twin.
 */
class DeadLetteredSettlementScenarioTest {

    @Test
    void deadLetteredSettlementIsNotReleasedAndIsCountedHeldForFeed() throws Exception {
        LocalScenarioRun run = LocalScenarioRun.of("dead-lettered-settlement", "dead-lettered");
        String console = run.console();

        assertThat(run.exit()).as(console).isZero();
        assertThat(console).doesNotContain("SCENARIO:").doesNotContain("VIOLATION");
        JsonNode report = run.report();
        assertThat(report.at("/counts/heldForFeed").asLong()).as(console).isEqualTo(1);
        assertThat(report.at("/ingestion/rejected").asLong()).as(console).isGreaterThanOrEqualTo(1);
        assertThat(report.at("/ingestion/deadLettered").asLong()).as("the refusal is not in the dead-letter queue: " + console).isZero();
        assertThat(report.at("/counts/releaseRequested").asLong()).as("the other due authorisations are released: " + console).isPositive();
        assertThat(console).as("the night is not held whole").doesNotContain("held for feed: the ingestion dead-letter queue held messages");

        List<JsonNode> published = run.dumped(FeedOutage.PLATFORM_EVENTS);
        List<String> subMillisecond = published.stream().filter(l -> l.at("/event/type").asText().equals("settlement.posted"))
                .filter(l -> l.at("/event/settledAt").asText().matches(".*\\.\\d{6,}Z"))
                .map(l -> l.at("/event/authorisationId").asText()).distinct().toList();
        assertThat(subMillisecond).as("the refused settlement (each copy), as the platform published it").hasSize(1);
        assertThat(run.dumped("provider-effects.jsonl"))
                .noneMatch(e -> e.get("authorisationId").asText().equals(subMillisecond.getFirst()) && e.get("performed").asInt() > 0);
    }

    /** Known-bad proof of the scenario's findings: a release of the refused settlement's authorisation, or no heldForFeed, is named. */
    @Test
    void releasingTheRefusedSettlementsAuthorisationIsAFinding() {
        var night = new ExecutionFollower.Followed("arn:aws:states:eu-west-1:000000000000:execution:sm:reconcile-2026-12-01",
                ExecutionStatus.SUCCEEDED, Optional.of("{\"reconcile\":{\"heldForFeed\":0}}"), Optional.empty(), Optional.empty(), List.of(), 1, 0);
        ProviderEffect released = new ProviderEffect("release-hold:auth-1", "auth-1", 1, 1, List.of(5L));
        assertThat(DeadLetteredSettlement.findings("auth-1", night, List.of(released), List.of()))
                .containsExactly("released auth-1, whose settlement was refused (held#auth-1)",
                        "the night counted heldForFeed 0, expected at least 1");
    }
}
