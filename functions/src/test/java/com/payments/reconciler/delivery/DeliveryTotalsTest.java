package com.payments.reconciler.delivery;

import com.payments.reconciler.workflow.Json;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The totals travel through the workflow's state: a redrive replays a task input written by an older build. */
class DeliveryTotalsTest {

    /** An execution started (or failed, then redriven within 14 days) before the end-state counts existed. */
    @Test
    void totalsWrittenBeforeTheEndStateCountsStillParseAsZeroes() throws Exception {
        DeliveryBatch old = Json.mapper().readValue("{\"more\":true,\"totals\":{\"batches\":2,\"delivered\":5,\"rejected\":1,\"attempts\":7}}",
                DeliveryBatch.class);
        assertThat(old.totals()).isEqualTo(new DeliveryTotals(2, 5, 1, 7, 0, 0, 0));
    }

    /**
     * Totals written before {@code sent} was counted read as every command ended sent, the count that build's plan
     * charged: a shard redriven (or called again after an upgrade) from such an input starts no more than the older build
     * would have. Read as none sent (the known-bad default), the same shard would start its whole allotment again.
     */
    @Test
    void totalsWrittenBeforeSentWasCountedReadAsEveryEndSent() throws Exception {
        DeliveryBatch old = Json.mapper().readValue("{\"more\":true,\"totals\":{\"batches\":1,\"delivered\":5,\"rejected\":1,"
                + "\"attempts\":7,\"cancelledSettled\":3,\"cancelledEnded\":2,\"quarantined\":1,\"escalated\":1,\"acknowledged\":1}}",
                DeliveryBatch.class);
        assertThat(old.totals().sent()).isEqualTo(14).isEqualTo(old.totals().ended());
        ShardPlan plan = new ShardPlan(100, 20, Long.MAX_VALUE, 0, 0);
        java.time.Instant now = java.time.Instant.parse("2026-12-01T02:30:00Z");
        assertThat(plan.startable(old.totals().sent(), 0, now)).as("what the older build allowed").isEqualTo(6);
        long knownBadDefault = 0;
        assertThat(plan.startable(knownBadDefault, 0, now)).as("none sent: past what the older build planned").isEqualTo(20);
    }

    @Test
    void sentIsReadAsWrittenAndSummedAcrossCalls() throws Exception {
        DeliveryBatch written = Json.mapper().readValue("{\"more\":true,\"totals\":{\"batches\":1,\"delivered\":5,\"rejected\":0,"
                + "\"attempts\":6,\"cancelledSettled\":30,\"sent\":5}}", DeliveryBatch.class);
        assertThat(written.totals().sent()).isEqualTo(5);
        assertThat(written.totals().ended()).isEqualTo(35);
        DeliveryBatch again = Json.mapper().readValue(Json.mapper().writeValueAsString(written), DeliveryBatch.class);
        assertThat(again.totals()).as("a round trip through the workflow's state").isEqualTo(written.totals());
        assertThat(written.totals().plus(written.totals()).sent()).isEqualTo(10);
    }

    @Test
    void aMistypedCountIsStillRefused() {
        assertThatThrownBy(() -> Json.mapper().readValue(
                "{\"more\":true,\"totals\":{\"batches\":2,\"delivered\":5,\"rejected\":1,\"attempts\":7,\"quarantined\":\"x\"}}", DeliveryBatch.class))
                .hasMessageContaining("quarantined");
    }
}
