package com.payments.reconciler.reconcile;

import com.payments.reconciler.ingest.IngestOutcome;
import com.payments.reconciler.reconcile.FeedGate.Verdict;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.Tables.Settlements;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import com.payments.reconciler.testing.Ingestion;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.testing.MutableClock;
import com.payments.reconciler.workflow.ErrorNames;
import com.payments.reconciler.workflow.FeedNotComplete;
import com.payments.reconciler.workflow.MaxSettlementFeedLag;
import com.payments.reconciler.workflow.Timing;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The feed-completeness rule as a decision table (pure), and the deployed gate reading the watermark IngestEvents
 * stored. The one-millisecond rows are the known-bad proof: a rule that compared with the cutoff, or with a lag one
 * millisecond longer, fails them.
 */
@ExtendWith(LocalDynamo.class)
class FeedGateTest {

    private static final Instant NOW = Instant.parse("2026-12-06T02:00:00Z");
    private static final MaxSettlementFeedLag SIX_HOURS = MaxSettlementFeedLag.DEFAULT;
    private static final Backoff NO_WAIT = new Backoff(1, d -> { }, 6, Duration.ofMillis(1), Duration.ofMillis(5));

    @ParameterizedTest(name = "watermark {0} at 2026-12-06T02:00Z, lag PT6H: complete {1}")
    @CsvSource({
            "2026-12-06T02:00:00Z,      true",   // as fresh as it gets
            "2026-12-05T20:00:00Z,      true",   // exactly now - lag: every settlement before it was published
            "2026-12-05T19:59:59.999Z,  false",  // one millisecond older: refused
            "2026-12-05T02:00:00Z,      false",  // the publisher stopped a day ago
            "2026-12-03T02:00:00Z,      false",  // at the cutoff (grace PT72H): still refused, the rule is about now
            "2026-12-06T02:05:00Z,      true",   // ahead by the skew allowed
            "2026-12-06T02:05:00.001Z,  false",  // further ahead: a publisher's bug never opens the gate
    })
    void theWatermarkMustBeNoOlderThanTheLagAtTheMomentOfTheDecision(Instant watermark, boolean complete) {
        Verdict verdict = FeedGate.judge(Optional.of(watermark), NOW, SIX_HOURS);
        assertThat(verdict instanceof Verdict.Complete).isEqualTo(complete);
    }

    @Test
    void noWatermarkEverIngestedIsNotComplete() {
        Verdict verdict = FeedGate.judge(Optional.empty(), NOW, SIX_HOURS);
        assertThat(verdict).isInstanceOf(Verdict.NotComplete.class);
        assertThat(((Verdict.NotComplete) verdict).why()).contains("no feed.watermark", "settlements");
    }

    @Test
    void theRefusalNamesTheWatermarkItsAgeAndTheLag() {
        FeedGate gate = new FeedGate(() -> Optional.of(Instant.parse("2026-12-05T01:00:00Z")), SIX_HOURS, java.time.Clock.fixed(NOW, java.time.ZoneOffset.UTC));
        assertThatThrownBy(() -> gate.requireComplete("deciding window 2026-12-06"))
                .isInstanceOf(FeedNotComplete.class)
                .hasMessageContaining("FeedNotComplete")
                .hasMessageContaining("2026-12-05T01:00:00Z")
                .hasMessageContaining("PT25H old")
                .hasMessageContaining("maxSettlementFeedLag PT6H")
                .hasMessageContaining("deciding window 2026-12-06");
        assertThat(new FeedNotComplete("x").errorName()).isEqualTo(ErrorNames.FEED_NOT_COMPLETE);
        assertThat(ErrorNames.handling(ErrorNames.FEED_NOT_COMPLETE).retried()).as("never retried by the task retry").isFalse();
    }

    @Test
    void theStoredGateReadsWhatIngestionStoredAndOnlyEverMovesItForward(LocalDynamo.Engine engine) {
        MutableClock clock = new MutableClock(NOW);
        Ingestion ingestion = new Ingestion(engine.client(), engine.tables(), 1);
        FeedGate gate = FeedGate.stored(engine.client(), engine.tables().settlements(), NO_WAIT, SIX_HOURS, clock);
        assertThat(gate.verdict()).as("nothing ingested yet").isInstanceOf(Verdict.NotComplete.class);

        assertThat(ingestion.watermark("wm-1", NOW.minus(Duration.ofHours(1)))).isInstanceOf(IngestOutcome.Accepted.class);
        assertThat(gate.verdict()).isEqualTo(new Verdict.Complete(NOW.minus(Duration.ofHours(1))));

        // A late, older watermark (SQS does not keep order) is a duplicate-like no-op: the stored one stays.
        assertThat(ingestion.watermark("wm-0", NOW.minus(Duration.ofDays(2)))).isInstanceOf(IngestOutcome.Duplicate.class);
        assertThat(ingestion.watermark("wm-1", NOW.minus(Duration.ofHours(1)))).as("redelivered").isInstanceOf(IngestOutcome.Duplicate.class);
        assertThat(gate.verdict()).isEqualTo(new Verdict.Complete(NOW.minus(Duration.ofHours(1))));

        clock.advance(Duration.ofHours(6));
        assertThat(gate.verdict()).as("7 h old now").isInstanceOf(Verdict.NotComplete.class);
        assertThat(ingestion.watermark("wm-2", clock.instant().minus(Duration.ofMinutes(10)))).isInstanceOf(IngestOutcome.Accepted.class);
        assertThat(gate.verdict()).isEqualTo(new Verdict.Complete(clock.instant().minus(Duration.ofMinutes(10))));
    }

    /**
     * Known-bad proof of the previous test's "only forward" check: the same older watermark written as a blind put
     * (no ADVANCE_WATERMARK condition) moves the stored one back, and the gate then refuses a feed that was complete.
     */
    @Test
    void aBlindPutWithoutTheAdvanceConditionWouldMoveTheWatermarkBack(LocalDynamo.Engine engine) {
        MutableClock clock = new MutableClock(NOW);
        Ingestion ingestion = new Ingestion(engine.client(), engine.tables(), 1);
        FeedGate gate = FeedGate.stored(engine.client(), engine.tables().settlements(), NO_WAIT, SIX_HOURS, clock);
        ingestion.watermark("wm-1", NOW.minus(Duration.ofHours(1)));
        engine.client().putItem(b -> b.tableName(engine.tables().settlements()).item(java.util.Map.of(
                Settlements.AUTHORISATION_ID, AttributeValue.fromS(Settlements.feedKey(Settlements.SETTLEMENTS_FEED)),
                Settlements.WATERMARK, AttributeValue.fromN(Long.toString(NOW.minus(Duration.ofDays(2)).toEpochMilli())))));
        assertThat(gate.verdict()).isInstanceOf(Verdict.NotComplete.class);
    }

    @Test
    void theLagIsValidatedWithItsAcceptedForm() {
        assertThat(MaxSettlementFeedLag.parse("PT6H")).isEqualTo(SIX_HOURS);
        assertThat(MaxSettlementFeedLag.MAX).isEqualTo(Duration.ofHours(24));
        for (String bad : new String[] {"6h", "PT0S", "PT-1H", "PT25H"}) {
            assertThatThrownBy(() -> MaxSettlementFeedLag.parse(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(MaxSettlementFeedLag.ACCEPTED_FORM).hasMessageContaining("'" + bad + "'");
        }
        assertThat(Timing.FEED_WATERMARK_MAX_AHEAD).isEqualTo(Duration.ofMinutes(5));
    }
}
