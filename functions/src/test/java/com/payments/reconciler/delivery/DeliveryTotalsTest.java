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

    @Test
    void aMistypedCountIsStillRefused() {
        assertThatThrownBy(() -> Json.mapper().readValue(
                "{\"more\":true,\"totals\":{\"batches\":2,\"delivered\":5,\"rejected\":1,\"attempts\":7,\"quarantined\":\"x\"}}", DeliveryBatch.class))
                .hasMessageContaining("quarantined");
    }
}
