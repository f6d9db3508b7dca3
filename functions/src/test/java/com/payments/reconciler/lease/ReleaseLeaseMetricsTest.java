package com.payments.reconciler.lease;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.delivery.DeliveryTotals;
import com.payments.reconciler.reconcile.ReconcileTotals;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.window.NightWindow;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.Metrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/** The per-night divergence counts (the dry-run dashboard's), emitted once per completed run by ReleaseLease. */
@ExtendWith(LocalDynamo.class)
class ReleaseLeaseMetricsTest {

    private static final Instant START = Instant.parse("2026-12-01T02:00:00Z");

    @Test
    void aCompletedNightEmitsItsCandidatesWouldReleaseReleasedAndSettledAfterDecision(LocalDynamo.Engine engine) throws Exception {
        List<String> lines = new ArrayList<>();
        JsonNode emitted = release(engine, lines, Map.of());

        assertThat(emitted.path(Metrics.NIGHT_CANDIDATES).asLong()).isEqualTo(100);
        assertThat(emitted.path(Metrics.NIGHT_WOULD_RELEASE).asLong()).isEqualTo(0);
        assertThat(emitted.path(Metrics.NIGHT_RELEASED).asLong()).isEqualTo(90);
        assertThat(emitted.path(Metrics.NIGHT_SETTLED_AFTER_DECISION).asLong()).isEqualTo(3 + 4);
    }

    @Test
    void aFailedRunEmitsNoNightCounts(LocalDynamo.Engine engine) throws Exception {
        List<String> lines = new ArrayList<>();
        assertThat(release(engine, lines, Map.of("Error", "X", "Cause", "y"))).isNull();
        assertThat(lines).isEmpty();
    }

    private static JsonNode release(LocalDynamo.Engine engine, List<String> lines, Map<String, String> failure) throws Exception {
        Clock clock = Clock.fixed(START.plusSeconds(3600), ZoneOffset.UTC);
        LeaseStore leases = new LeaseStore(engine.client(), engine.tables().leases(), Duration.ofMinutes(5));
        Lease lease = ((AcquireResult.Acquired) leases.acquire("job", "reconcile-2026-12-01/1", clock.instant())).lease();
        ReleaseLeaseHandler handler = new ReleaseLeaseHandler(leases, new EmfMetrics(clock, "ReleaseLease", lines::add), clock);
        NightWindow window = new NightWindow("2026-12-01", START, START.minus(Duration.ofHours(72)), Duration.ofHours(72), false, 4);
        ReconcileTotals reconcile = new ReconcileTotals(3, 100, 90, 8, 1, 1, 0, 0);
        List<DeliveryTotals> deliveries = List.of(new DeliveryTotals(1, 40, 0, 40, 3, 0, 0, 0, 0, 0),
                new DeliveryTotals(1, 43, 0, 43, 4, 0, 0, 0, 0, 0));
        handler.handle(new ReleaseRequest(window, lease.token(), reconcile, deliveries, failure), null);
        return lines.isEmpty() ? null : Json.mapper().readTree(lines.getFirst());
    }
}
