package com.payments.reconciler.reconcile;

import com.payments.reconciler.workflow.Json;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The reconcile totals travel through the workflow's state: a redrive replays a page state written by an older build. */
class ReconcileTotalsTest {

    private static final String OLD = "\"pages\":1,\"candidates\":9,\"releaseRequested\":7,\"skippedSettled\":2,\"skippedStale\":0,"
            + "\"alreadyCommanded\":0,\"malformed\":0,\"wouldRelease\":0";

    @Test
    void totalsWrittenBeforeCandidatesReadExistedParseWithZeroes() throws Exception {
        PageState old = Json.mapper().readValue("{\"more\":true,\"totals\":{" + OLD + "}}", PageState.class);
        assertThat(old.totals()).isEqualTo(new ReconcileTotals(1, 9, 7, 2, 0, 0, 0, 0, 0, 0));
    }

    @Test
    void theNewCountsRoundTripAndAMistypedOneIsStillRefused() throws Exception {
        ReconcileTotals totals = new ReconcileTotals(1, 9, 7, 2, 0, 0, 0, 0, 11, 2);
        assertThat(Json.mapper().readValue(Json.mapper().writeValueAsString(totals), ReconcileTotals.class)).isEqualTo(totals);
        assertThatThrownBy(() -> Json.mapper().readValue("{" + OLD + ",\"candidatesRead\":\"x\"}", ReconcileTotals.class))
                .hasMessageContaining("candidatesRead");
        assertThatThrownBy(() -> Json.mapper().readValue("{\"pages\":1}", ReconcileTotals.class))
                .as("known-bad: the counts every build writes stay required").hasMessageContaining("candidates");
    }
}
