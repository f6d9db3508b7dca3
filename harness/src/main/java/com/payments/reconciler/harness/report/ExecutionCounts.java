package com.payments.reconciler.harness.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.cli.operator.ExecutionFollower;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.window.ExecutionName;
import java.io.IOException;
import java.util.List;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;

/**
 * What one execution of a window decided, read from its history. A run that ended in its summary reports it there;
 * one that failed or was superseded has no summary, and its decisions are what its last reconcile page carried out
 * of the state (the page's running totals), so a failed night is not reported as having decided nothing.
 *
 * @param candidatesRead items this execution read from the pending index
 * @param fencedRefusals transactions of this execution the engine refused on their lease check
 * @param heldForFeed due candidates this execution did not release because a refused settlement could concern them
 */
public record ExecutionCounts(String name, String status, String error, long candidates, long releaseRequested,
                              long skippedSettled, long skippedStale, long candidatesRead, long fencedRefusals, long heldForFeed) {

    /** The shipped workflow's task state that runs ReconcilePage (ExecutionCountsTest reads the definition). */

    public static ExecutionCounts of(ExecutionFollower.Followed followed, long fencedRefusals) {
        JsonNode decided = followed.output().map(ExecutionCounts::read).map(summary -> summary.path("reconcile"))
                .filter(node -> !node.isMissingNode())
                .orElseGet(() -> lastPageTotals(followed.events()));
        return new ExecutionCounts(ExecutionName.lastSegmentOf(followed.executionArn()), followed.status().toString(),
                followed.error().orElse(null), decided.path("candidates").asLong(), decided.path("releaseRequested").asLong(),
                decided.path("skippedSettled").asLong(), decided.path("skippedStale").asLong(), decided.path("candidatesRead").asLong(),
                fencedRefusals, decided.path("heldForFeed").asLong());
    }

    static JsonNode lastPageTotals(List<HistoryEvent> events) {
        JsonNode totals = Json.mapper().createObjectNode();
        for (HistoryEvent event : events) {
            var exited = event.stateExitedEventDetails();
            if (exited != null && NightPhases.PAGE_STATE.equals(exited.name())) {
                totals = read(exited.output()).path("page").path("totals");
            }
        }
        return totals;
    }

    private static JsonNode read(String json) {
        try {
            return json == null ? Json.mapper().createObjectNode() : Json.mapper().readTree(json);
        } catch (IOException e) {
            return Json.mapper().createObjectNode();
        }
    }
}
