package com.payments.reconciler.harness.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.WorkflowDefinition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;

class NightPhasesTest {

    private static final Instant T0 = Instant.parse("2026-12-07T02:00:00Z");

    private final List<HistoryEvent> events = new ArrayList<>();

    private void at(double seconds, HistoryEvent.Builder event) {
        events.add(event.timestamp(T0.plusMillis((long) (seconds * 1000))).build());
    }

    private static HistoryEvent.Builder entered(String state) {
        return HistoryEvent.builder().stateEnteredEventDetails(d -> d.name(state));
    }

    private static HistoryEvent.Builder exited(String state) {
        return HistoryEvent.builder().stateExitedEventDetails(d -> d.name(state));
    }

    @Test
    void aNightThatDeliveredHasEachPhaseFromItsHistory() {
        at(0, HistoryEvent.builder().executionStartedEventDetails(d -> d.input("{}")));
        at(1.2, entered(NightPhases.PAGE_STATE));
        at(9.1, exited(NightPhases.PAGE_STATE));
        at(9.1, entered(NightPhases.PAGE_STATE));
        at(30.0, exited(NightPhases.PAGE_STATE));
        at(30.1, entered(NightPhases.DELIVERY_STATE));
        at(171.7, exited(NightPhases.DELIVERY_STATE));
        at(172.8, HistoryEvent.builder().executionSucceededEventDetails(d -> d.output("{}")));

        assertThat(NightPhases.of(events)).isEqualTo(new NightPhases(172.8, 28.9, 141.6));
    }

    @Test
    void aNightThatFailedBeforeDeliveryHasNoDeliveryPhase() {
        at(0, HistoryEvent.builder().executionStartedEventDetails(d -> d.input("{}")));
        at(1.0, entered(NightPhases.PAGE_STATE));
        at(1.5, HistoryEvent.builder().executionFailedEventDetails(d -> d.error("FeedNotComplete")));

        assertThat(NightPhases.of(events)).isEqualTo(new NightPhases(1.5, 0.5, null));
    }

    @Test
    void aNightWhoseDeliveryFailedHasItsDeliveryToTheEnd() {
        at(0, HistoryEvent.builder().executionStartedEventDetails(d -> d.input("{}")));
        at(1.0, entered(NightPhases.PAGE_STATE));
        at(3.0, entered(NightPhases.DELIVERY_STATE));
        at(63.0, HistoryEvent.builder().executionFailedEventDetails(d -> d.error("ProviderUnavailable")));

        assertThat(NightPhases.of(events)).isEqualTo(new NightPhases(63.0, 2.0, 60.0));
    }

    @Test
    void aRunningExecutionHasNoNightYet() {
        at(0, HistoryEvent.builder().executionStartedEventDetails(d -> d.input("{}")));
        at(0.5, entered(NightPhases.PAGE_STATE));

        assertThat(NightPhases.of(events)).isEqualTo(new NightPhases(null, null, null));
    }

    /** The names it reads are the shipped definition's: a renamed state would leave every phase null. */
    @Test
    void theStatesItReadsAreInTheShippedDefinition() throws Exception {
        JsonNode asl = Json.mapper().readTree(WorkflowDefinition.shipped().text());
        assertThat(asl.path("States").has(NightPhases.PAGE_STATE)).isTrue();
        assertThat(asl.path("States").path(NightPhases.DELIVERY_STATE).path("Type").asText()).isEqualTo("Map");
    }
}
