package com.payments.reconciler.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.delivery.DeliveryBatch;
import com.payments.reconciler.delivery.DeliveryTotals;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.lease.RunSummary;
import com.payments.reconciler.reconcile.Cursor;
import com.payments.reconciler.reconcile.PageState;
import com.payments.reconciler.reconcile.ReconcileTotals;
import com.payments.reconciler.window.NightWindow;
import com.payments.reconciler.workflow.Json;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * State payloads stay far below Step Functions' 256 KB at 1,000,000 candidates: nothing per candidate
 * travels through state (the outbox GSI is read by the tasks), so the largest state is the one the
 * workflow holds at its end, with every count at its largest and the most shards allowed. Built from
 * the handlers' own output records, composed as the ASL's ResultPaths compose them.
 */
class PayloadSizeTest {

    private static final int LIMIT = 256 * 1024;
    private static final long MILLION = 1_000_000;

    @Test
    void largestStatePayloadAtAMillionCandidates() throws Exception {
        ObjectMapper json = Json.mapper();
        int shards = NightWindow.MAX_SHARDS;
        NightWindow window = new NightWindow("2026-12-01", Instant.parse("2026-12-01T02:00:00Z"),
                Instant.parse("2026-11-28T02:00:00Z"), Duration.ofHours(72), false, shards);
        LeaseToken lease = new LeaseToken("hold-release-reconciler", "reconcile-2026-12-01-rerun-99/" + "0".repeat(8) + "-0000-0000-0000-" + "0".repeat(12), MILLION);
        ReconcileTotals totals = new ReconcileTotals(MILLION, MILLION, MILLION, MILLION, MILLION, MILLION, MILLION, MILLION);
        PageState page = new PageState(new Cursor(shards - 1, Long.MAX_VALUE, "a".repeat(256)), true, totals,
                IntStream.range(0, shards).boxed().toList());
        DeliveryTotals delivery = new DeliveryTotals(MILLION, MILLION, MILLION, MILLION);
        ObjectNode state = json.createObjectNode();
        state.set("window", json.valueToTree(window));
        state.put("ownerId", lease.ownerId());
        state.set("lease", json.valueToTree(lease));
        state.set("page", json.valueToTree(page));
        state.set("deliveries", json.valueToTree(Collections.nCopies(shards, delivery)));
        state.set("batch", json.valueToTree(new DeliveryBatch(true, delivery)));
        state.set("result", json.createObjectNode().set("summary", json.valueToTree(new RunSummary("2026-12-01", java.time.Duration.ofHours(72), java.time.Instant.parse("2026-11-28T02:00:00Z"), MILLION, "COMPLETED", totals, delivery))));
        state.set("error", json.createObjectNode().put("Error", "com.payments.reconciler.workflow.StoreContention").put("Cause", "x".repeat(32 * 1024)));
        int bytes = json.writeValueAsString(state).getBytes(StandardCharsets.UTF_8).length;
        System.out.printf("largest state payload at 1,000,000 candidates and %d shards: %,d bytes (limit %,d)%n", shards, bytes, LIMIT);
        assertThat(bytes).isLessThan(LIMIT / 4);
    }
}
