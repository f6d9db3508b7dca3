package com.payments.reconciler.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;

/**
 * The states a redrive restarts, read from the execution's history: each state entered without a matching
 * exit ("if the execution completes without the {@code <stateType>Exited} event corresponding to a
 * {@code <stateType>Entered} event, the unsuccessful state is redriven": developer guide, "Redriving Map
 * Runs"). Named once each: after an earlier redrive, a restarted state's entries do not say how many
 * iterations failed, so no count is shown.
 */
public final class UnsuccessfulStates {

    private UnsuccessfulStates() {
    }

    /** The names of the states with an entry that has no exit, in the order they were first entered. */
    public static List<String> of(List<HistoryEvent> events) {
        Map<String, Integer> open = new LinkedHashMap<>();
        for (HistoryEvent event : events) {
            if (event.stateEnteredEventDetails() != null) {
                open.merge(event.stateEnteredEventDetails().name(), 1, Integer::sum);
            } else if (event.stateExitedEventDetails() != null) {
                open.merge(event.stateExitedEventDetails().name(), -1, Integer::sum);
            }
        }
        return open.entrySet().stream().filter(e -> e.getValue() > 0).map(Map.Entry::getKey).toList();
    }

    static String describe(List<String> open) {
        return open.isEmpty() ? "(no unfinished state in the history)" : String.join(", ", open);
    }
}
