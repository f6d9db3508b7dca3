package com.payments.reconciler.harness.report;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;

/**
 * Where an execution's time went, read from its history: from its start to its end, the reconcile pages (the first
 * page entered to the delivery Map entered, or to the end when there was no delivery) and the delivery Map (entered to
 * exited, or to the end when it failed). Seconds; null where the execution never reached that part or has not ended.
 */
public record NightPhases(Double nightSeconds, Double reconcileSeconds, Double deliverySeconds) {

    /** The reconcile pages' task state and the delivery Map of the shipped ASL. */
    public static final String PAGE_STATE = "ReconcilePage";
    public static final String DELIVERY_STATE = "DeliverReleases";

    public static NightPhases of(List<HistoryEvent> events) {
        Instant started = null;
        Instant ended = null;
        Instant firstPage = null;
        Instant deliveryEntered = null;
        Instant deliveryExited = null;
        for (HistoryEvent event : events) {
            Instant at = event.timestamp();
            if (event.executionStartedEventDetails() != null && started == null) {
                started = at;
            } else if (event.executionSucceededEventDetails() != null || event.executionFailedEventDetails() != null
                    || event.executionAbortedEventDetails() != null || event.executionTimedOutEventDetails() != null) {
                ended = at;
            } else if (event.stateEnteredEventDetails() != null) {
                String name = event.stateEnteredEventDetails().name();
                if (PAGE_STATE.equals(name) && firstPage == null) {
                    firstPage = at;
                } else if (DELIVERY_STATE.equals(name) && deliveryEntered == null) {
                    deliveryEntered = at;
                }
            } else if (event.stateExitedEventDetails() != null && DELIVERY_STATE.equals(event.stateExitedEventDetails().name())) {
                deliveryExited = at;
            }
        }
        // A delivery Map that failed has no exit event: its time runs to the execution's end.
        return new NightPhases(seconds(started, ended), seconds(firstPage, deliveryEntered != null ? deliveryEntered : ended),
                seconds(deliveryEntered, deliveryExited != null ? deliveryExited : ended));
    }

    private static Double seconds(Instant from, Instant to) {
        return from == null || to == null ? null : Duration.between(from, to).toMillis() / 1000.0;
    }
}
