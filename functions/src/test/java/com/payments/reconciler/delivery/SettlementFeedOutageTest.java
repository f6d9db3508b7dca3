package com.payments.reconciler.delivery;

import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.reconcile.DeadLetterDepth;
import com.payments.reconciler.reconcile.FeedGate;
import com.payments.reconciler.reconcile.HeldForFeed;
import com.payments.reconciler.reconcile.ReconcilePageHandler;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.workflow.FeedNotComplete;
import com.payments.reconciler.workflow.MaxSettlementFeedLag;
import com.payments.reconciler.workflow.Timing;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Scenario settlement-feed-outage at the functions: the platform stopped publishing settlements and watermarks a day
 * before the window. The night decides nothing and delivers nothing ({@link FeedNotComplete}); on the same tables, once
 * the feed caught up (watermark advanced), the rerun releases what is due. Shown failing without the gate: with the
 * {@code requireComplete} call taken out of ReconcilePage, the stale night's first call decides (no FeedNotComplete);
 * taken out of DeliverCommands, the stale delivery sends.
 */
@ExtendWith(LocalDynamo.class)
class SettlementFeedOutageTest {

    @Test
    void aNightWithAStaleSettlementWatermarkReleasesNothingAndTheRunAfterTheFeedCaughtUpReleases(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1)) {
            // The feed stopped a day before the window: its last watermark is 24 h old when the night decides.
            assertThat(w.ingestion.watermark("wm-last", w.clock.instant().minus(Duration.ofHours(24))))
                    .isInstanceOf(com.payments.reconciler.ingest.IngestOutcome.Accepted.class);
            List.of("auth-1", "auth-2").forEach(id -> w.ingestion.authorise(id, 1_000, DeliveryWorld.CUTOFF.minus(Duration.ofHours(1))));
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
            ReconcilePageHandler reconcile = w.reconcilePage(new HeldForFeed(DeadLetterDepth.empty()));

            assertThatThrownBy(() -> DeliveryWorld.page(reconcile, w.window(), lease))
                    .isInstanceOf(FeedNotComplete.class)
                    .hasMessageContaining("PT24H old").hasMessageContaining("maxSettlementFeedLag PT6H");
            assertThat(w.commandedAuthorisations()).as("no decision committed").isEmpty();
            List.of("auth-1", "auth-2").forEach(id ->
                    assertThat(w.ingestion.authorisation(id).get(Authorisations.STATE).s()).isEqualTo(Authorisations.STATE_AUTHORISED));

            // The feed resumes: a watermark of five minutes ago. The same tables, the rerun releases.
            w.ingestion.watermark("wm-resumed", w.clock.instant().minus(Duration.ofMinutes(5)));
            DeliveryWorld.page(reconcile, w.window(), lease);
            assertThat(w.commandedAuthorisations()).hasSize(2);

            // The feed stalls again between decision and delivery: no provider call while it is stale.
            w.clock.advance(Duration.ofHours(7));
            LeaseToken deliveryLease = w.acquire("worker-B", Timing.LEASE_DURATION);
            DeliverCommandsHandler deliver = w.handler(w.fixedGuard(), 2,
                    FeedGate.stored(w.dynamo, engine.tables().settlements(), DeliveryWorld.NO_WAIT, MaxSettlementFeedLag.DEFAULT, w.clock));
            TestContext context = new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT);
            assertThatThrownBy(() -> w.invoke(deliver, deliveryLease, 0, null, context)).isInstanceOf(FeedNotComplete.class);
            assertThat(w.provider.totalRequests()).as("no provider call").isZero();
            assertThat(commands(w)).allSatisfy(c -> assertThat(c.get(ReleaseCommands.STATUS).s()).isEqualTo(ReleaseCommands.STATUS_PENDING));

            w.ingestion.watermark("wm-caught-up", w.clock.instant());
            w.invoke(deliver, deliveryLease, 0, null, context);
            assertThat(commands(w)).allSatisfy(c -> assertThat(c.get(ReleaseCommands.STATUS).s()).isEqualTo(ReleaseCommands.STATUS_DELIVERED));
            assertThat(w.effects()).hasSize(2);
        }
    }

    private static List<Map<String, AttributeValue>> commands(DeliveryWorld w) {
        return w.dynamo.scan(b -> b.tableName(w.engine.tables().releaseCommands()).consistentRead(true)).items();
    }
}
