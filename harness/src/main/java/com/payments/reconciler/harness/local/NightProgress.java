package com.payments.reconciler.harness.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.harness.report.NightPhases;
import com.payments.reconciler.workflow.Json;
import java.io.IOException;
import java.time.Clock;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;

/**
 * The night's progress between its history lines: delivery runs for minutes inside a few long DeliverCommands calls, so
 * while its Map state runs, each tick offers a line of what the provider performed so far (per shard, with the rate and
 * the quota) to {@link ProgressLines}, which prints one every {@link ProgressLines#EVERY} at most. The reconcile pages
 * report themselves: each page's history line carries its counts.
 */
final class NightProgress {

    private final Clock clock;
    private final Consumer<String> console;
    /** The delivery's plan, given the releases the pages requested, read when delivery starts. */
    private final Function<Long, DeliveryProgress> plan;
    private final Supplier<Map<Integer, Long>> delivered;
    /** Each shard's commands when delivery started (empty until known, e.g. in scenarios that do not count them). */
    private final Supplier<Map<Integer, Long>> backlog;
    private volatile long requested;
    private volatile DeliveryProgress delivery;
    private volatile ProgressLines lines;

    NightProgress(Clock clock, Consumer<String> console, Function<Long, DeliveryProgress> plan, Supplier<Map<Integer, Long>> delivered) {
        this(clock, console, plan, delivered, Map::of);
    }

    NightProgress(Clock clock, Consumer<String> console, Function<Long, DeliveryProgress> plan, Supplier<Map<Integer, Long>> delivered,
                  Supplier<Map<Integer, Long>> backlog) {
        this.backlog = backlog;
        this.clock = clock;
        this.console = console;
        this.plan = plan;
        this.delivered = delivered;
    }

    void on(HistoryEvent event) {
        if (event.stateExitedEventDetails() != null && NightPhases.PAGE_STATE.equals(event.stateExitedEventDetails().name())) {
            requested = releaseRequested(event.stateExitedEventDetails().output());
        } else if (event.stateEnteredEventDetails() != null && NightPhases.DELIVERY_STATE.equals(event.stateEnteredEventDetails().name())) {
            delivery = plan.apply(requested);
            lines = new ProgressLines(clock, console);
        } else if (event.stateExitedEventDetails() != null && NightPhases.DELIVERY_STATE.equals(event.stateExitedEventDetails().name())) {
            delivery = null;
        }
    }

    /** Asks for a delivery line; printed only when one is due and says something new. */
    void tick() {
        DeliveryProgress current = delivery;
        ProgressLines out = lines;
        if (current != null && out != null) {
            out.offer(() -> current.line(delivered.get(), backlog.get(), clock.instant()));
        }
    }

    private static long releaseRequested(String output) {
        try {
            JsonNode node = output == null ? null : Json.mapper().readTree(output);
            return node == null ? 0 : node.path("page").path("totals").path("releaseRequested").asLong();
        } catch (IOException e) {
            return 0;
        }
    }
}
