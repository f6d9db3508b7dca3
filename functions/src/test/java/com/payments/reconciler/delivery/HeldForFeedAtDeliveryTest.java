package com.payments.reconciler.delivery;

import com.payments.reconciler.audit.ProviderRelease;
import com.payments.reconciler.ingest.IngestOutcome;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.workflow.Timing;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario "a settlement refused after the night decided": the release of auth-1 and auth-2 was committed (PENDING),
 * then IngestEvents refused auth-1's settlement (a {@code settledAt} finer than a millisecond) and wrote
 * {@code held#auth-1}. DeliverCommands reads the holds with the facts, in the same BatchGetItem, and sends nothing held:
 * auth-1's command stays PENDING and is counted {@code heldForFeed}; auth-2 is delivered. The night-wide hold keeps every
 * command. A command held is never stamped as first attempted. Known-bad twin: the same delivery with the hold not there to read (what DeliverCommands saw before it read
 * the holds) releases auth-1, whose settlement the platform published.
 */
@ExtendWith(LocalDynamo.class)
class HeldForFeedAtDeliveryTest {

    private static final String SUB_MILLISECOND_SETTLEMENT = """
            {"version":1,"type":"settlement.posted","eventId":"evt-settle-auth-1","authorisationId":"auth-1",\
            "amountMinor":1000,"currency":"EUR","settledAt":"2026-11-30T10:00:00.000001Z"}""";

    @Test
    void aSettlementRefusedAfterTheDecisionKeepsItsCommandPending(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1)) {
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
            List<String> ops = w.command(lease, "auth-1", "auth-2");
            assertThat(w.ingestion.ingest(SUB_MILLISECOND_SETTLEMENT)).isInstanceOf(IngestOutcome.Refused.class);

            DeliveryBatch batch = w.invoke(w.handler(w.fixedGuard(), 2), lease, 0, DeliveryBatch.FIRST,
                    new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT));

            assertThat(w.releases()).extracting(ProviderRelease::authorisationId).containsExactly("auth-2");
            assertThat(w.provider.effects()).noneMatch(e -> e.authorisationId().equals("auth-1"));
            assertThat(w.status(ops.get(0))).isEqualTo(ReleaseCommands.STATUS_PENDING);
            assertThat(batch.totals().heldForFeed()).isEqualTo(1);
            assertThat(batch.totals().delivered()).isEqualTo(1);
            assertThat(batch.totals().backlogLeft()).as("the held command is left for a later night").isEqualTo(1);
            // Never sent, so not first attempted: a stamp would have it looked up (or escalated) a day later.
            assertThat(w.command(ops.get(0))).doesNotContainKey(ReleaseCommands.FIRST_ATTEMPT_AT);
            assertThat(w.command(ops.get(1))).containsKey(ReleaseCommands.FIRST_ATTEMPT_AT);
        }
    }

    @Test
    void theNightWideHoldKeepsEveryCommandPending(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1)) {
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
            List<String> ops = w.command(lease, "auth-1", "auth-2");
            assertThat(w.ingestion.ingest("{\"version\":1,\"type\":\"settlement.posted\",\"authorisationId\":42")).isInstanceOf(IngestOutcome.Refused.class);

            DeliveryBatch batch = w.invoke(w.handler(w.fixedGuard(), 2), lease, 0, DeliveryBatch.FIRST,
                    new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT));

            assertThat(w.provider.releases()).isEmpty();
            ops.forEach(op -> assertThat(w.status(op)).isEqualTo(ReleaseCommands.STATUS_PENDING));
            assertThat(batch.totals().heldForFeed()).isEqualTo(2);
            // Stamped before the hold was read, every pending command would reach providerKeyRetention in a day's hold
            // and be escalated where the provider has no status lookup.
            ops.forEach(op -> assertThat(w.command(op)).as(op + " was never sent").doesNotContainKey(ReleaseCommands.FIRST_ATTEMPT_AT));
        }
    }

    @Test
    void knownBadWithTheHoldUnreadTheDeliveryReleasesTheSettledHold(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1)) {
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
            w.command(lease, "auth-1", "auth-2");
            w.ingestion.ingest(SUB_MILLISECOND_SETTLEMENT);
            // What DeliverCommands saw before it read the holds: no hold at all.
            w.dynamo.deleteItem(b -> b.tableName(engine.tables().settlements())
                    .key(Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS(Settlements.heldKey("auth-1")))));

            DeliveryBatch batch = w.invoke(w.handler(w.fixedGuard(), 2), lease, 0, DeliveryBatch.FIRST,
                    new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT));

            assertThat(w.releases()).extracting(ProviderRelease::authorisationId).as("the platform settled auth-1, yet it is released")
                    .containsExactlyInAnyOrder("auth-1", "auth-2");
            assertThat(batch.totals().heldForFeed()).isZero();
        }
    }
}
