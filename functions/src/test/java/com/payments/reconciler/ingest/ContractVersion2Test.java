package com.payments.reconciler.ingest;

import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.reconcile.HoldValidity;
import com.payments.reconciler.reconcile.ReleaseOutcome;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.testing.LocalDynamo;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Contract version 2's card lifecycles through ingestion on the local DynamoDB, each a scenario version 1 got wrong:
 * a hotel's increment was a conflicting second create (dead-lettered after three receives), a second capture's amount
 * was dropped as a duplicate, a reversal did not exist, and a long hold was released after the grace period alone.
 */
@ExtendWith(LocalDynamo.class)
class ContractVersion2Test {

    private static final int SHARDS = 2;
    private static final Instant WINDOW_START = Instant.parse("2026-12-01T02:00:00Z");
    private static final Duration GRACE = Duration.ofHours(72);
    private static final Instant CUTOFF = WINDOW_START.minus(GRACE);

    private IngestionTables tables;

    @BeforeEach
    void setUp(LocalDynamo.Engine engine) {
        this.tables = new IngestionTables(engine, SHARDS, CUTOFF);
    }

    private static String created(String auth, long amount) {
        return """
                {"version":1,"type":"authorisation.created","eventId":"c-%s","authorisationId":"%s","amountMinor":%d,\
                "currency":"EUR","merchantId":"m-hotel-7","authorisedAt":"2026-11-20T10:00:00Z"}""".formatted(auth, auth, amount);
    }

    private static String incremented(String eventId, String auth, long amount, String at, String holdUntil) {
        return """
                {"version":2,"type":"authorisation.incremented","eventId":"%s","authorisationId":"%s","amountMinor":%d,\
                "currency":"EUR","incrementedAt":"%s"%s}""".formatted(eventId, auth, amount, at,
                holdUntil == null ? "" : ",\"holdUntil\":\"" + holdUntil + "\"");
    }

    private static String reversed(String eventId, String auth, long amount) {
        return """
                {"version":2,"type":"authorisation.reversed","eventId":"%s","authorisationId":"%s","amountMinor":%d,\
                "currency":"EUR","reversedAt":"2026-11-21T10:00:00Z"}""".formatted(eventId, auth, amount);
    }

    private static String capture(String eventId, String auth, long amount, int sequence, boolean last) {
        return """
                {"version":2,"type":"settlement.posted","eventId":"%s","authorisationId":"%s","amountMinor":%d,"currency":"EUR",\
                "settledAt":"2026-11-22T10:00:00Z","captureSequence":%d,"finalCapture":%s}""".formatted(eventId, auth, amount, sequence, last);
    }

    @Test
    void aHotelIncrementIsNoLongerDeadLettered() {
        tables.ingest(created("auth-1", 20_000));

        IngestOutcome outcome = tables.ingest(incremented("i-1", "auth-1", 35_000, "2026-11-21T09:00:00Z", "2026-12-21T10:00:00Z"));

        assertThat(outcome).isEqualTo(new IngestOutcome.Accepted("i-1", "IncrementAuthorisation", 1));
        Map<String, AttributeValue> item = tables.authorisation("auth-1");
        assertThat(item.get(Authorisations.AMOUNT_MINOR).n()).isEqualTo("35000");
        assertThat(item.get(Authorisations.VERSION).n()).isEqualTo("2");
        assertThat(item.get(Authorisations.HOLD_UNTIL).n()).isEqualTo(Long.toString(Instant.parse("2026-12-21T10:00:00Z").toEpochMilli()));
        // Redelivered after a lost response: nothing written again.
        assertThat(tables.ingest(incremented("i-1", "auth-1", 35_000, "2026-11-21T09:00:00Z", "2026-12-21T10:00:00Z")))
                .isInstanceOf(IngestOutcome.Duplicate.class);
        // A lower total, later: refused naming the field (the stored amount stays).
        IngestOutcome lower = tables.ingest(incremented("i-2", "auth-1", 30_000, "2026-11-21T10:00:00Z", null));
        assertThat(((IngestOutcome.Refused) lower).refusal().field()).isEqualTo("amountMinor");
        assertThat(tables.authorisation("auth-1").get(Authorisations.AMOUNT_MINOR).n()).isEqualTo("35000");
        // The candidate the night reads has the new amount and the hold's validity.
        Candidate candidate = tables.candidates().getFirst();
        assertThat(candidate.amountMinor()).isEqualTo(35_000);
        assertThat(candidate.holdUntil()).contains(Instant.parse("2026-12-21T10:00:00Z"));
    }

    @Test
    void anIncrementBeforeItsCreateWaitsForSqsToDeliverItAgain() {
        assertThatThrownBy(() -> tables.ingest(incremented("i-1", "auth-1", 35_000, "2026-11-21T09:00:00Z", null)))
                .isInstanceOf(EventIngestion.NotYetApplicable.class).hasMessageContaining("not created yet");
        assertThat(tables.authorisation("auth-1")).isEmpty();
        tables.ingest(created("auth-1", 20_000));
        assertThat(tables.ingest(incremented("i-1", "auth-1", 35_000, "2026-11-21T09:00:00Z", null))).isInstanceOf(IngestOutcome.Accepted.class);
    }

    @Test
    void anIncrementAfterTheCandidateWasReadMakesTheReleaseDecideAgainWithTheNewAmount() {
        tables.ingest(created("auth-1", 20_000));
        Candidate read = tables.candidates().getFirst();
        tables.ingest(incremented("i-1", "auth-1", 35_000, "2026-11-21T09:00:00Z", null));

        // The transaction's "version = observed" fails; the round decides again from the item it returned.
        assertThat(tables.release(read, WINDOW_START, WINDOW_START.plusSeconds(60))).isInstanceOf(ReleaseOutcome.Committed.class);
        assertThat(tables.command("auth-1").get(ReleaseCommands.AMOUNT_MINOR).n()).isEqualTo("35000");
    }

    @Test
    void aSecondCapturesAmountIsNotDropped() {
        tables.ingest(created("auth-1", 20_000));
        assertThat(tables.ingest(capture("s-1", "auth-1", 12_000, 1, false))).isInstanceOf(IngestOutcome.Accepted.class);

        assertThat(tables.ingest(capture("s-2", "auth-1", 8_000, 2, true))).isEqualTo(new IngestOutcome.Accepted("s-2", "AddCapture", 2));

        Map<String, AttributeValue> settlement = tables.settlement("auth-1");
        assertThat(settlement.get(Settlements.AMOUNT_MINOR).n()).isEqualTo("20000");
        assertThat(settlement.get(Settlements.CAPTURES).m()).containsOnlyKeys("1", "2");
        assertThat(settlement.get(Settlements.FINAL_CAPTURE).bool()).isTrue();
        // The same sequence again: a duplicate, never summed twice; another amount under it: a conflict.
        assertThat(tables.ingest(capture("s-2", "auth-1", 8_000, 2, true))).isInstanceOf(IngestOutcome.Duplicate.class);
        assertThat(tables.ingest(capture("s-2b", "auth-1", 8_000, 2, true))).isInstanceOf(IngestOutcome.Duplicate.class);
        IngestOutcome other = tables.ingest(capture("s-2c", "auth-1", 7_000, 2, true));
        assertThat(((IngestOutcome.Refused) other).refusal().field()).isEqualTo("amountMinor");
        assertThat(tables.settlement("auth-1").get(Settlements.AMOUNT_MINOR).n()).isEqualTo("20000");
        // Any capture means settled: never a candidate.
        assertThat(tables.candidates()).isEmpty();
    }

    @Test
    void capturesInAnyOrderSumTheSame() {
        tables.ingest(capture("s-3", "auth-1", 300, 3, true));
        tables.ingest(capture("s-1", "auth-1", 100, 1, false));
        tables.ingest(capture("s-2", "auth-1", 200, 2, false));
        tables.ingest(capture("s-1", "auth-1", 100, 1, false));
        assertThat(tables.settlement("auth-1").get(Settlements.AMOUNT_MINOR).n()).isEqualTo("600");
    }

    @Test
    void aPartialReversalLowersTheRemainingAmountOnceAndTheRestEndsIt() {
        tables.ingest(created("auth-1", 20_000));

        assertThat(tables.ingest(reversed("r-1", "auth-1", 5_000))).isEqualTo(new IngestOutcome.Accepted("r-1", "ReduceAuthorisation", 1));
        assertThat(tables.ingest(reversed("r-1", "auth-1", 5_000))).isInstanceOf(IngestOutcome.Duplicate.class);
        assertThat(tables.authorisation("auth-1").get(Authorisations.AMOUNT_MINOR).n()).isEqualTo("15000");
        assertThat(tables.candidates()).extracting(Candidate::amountMinor).containsExactly(15_000L);

        // The rest: ended like a void, out of the index.
        assertThat(tables.ingest(reversed("r-2", "auth-1", 15_000))).isEqualTo(new IngestOutcome.Accepted("r-2", "EndAuthorisation", 2));
        Map<String, AttributeValue> item = tables.authorisation("auth-1");
        assertThat(item.get(Authorisations.STATE).s()).isEqualTo(Authorisations.STATE_VOIDED);
        assertThat(item.get(Authorisations.END_KIND).s()).isEqualTo("REVERSED");
        assertThat(tables.candidates()).isEmpty();
    }

    @Test
    void aHoldValidLongerThanTheGraceIsReadButNotDue() {
        tables.ingest("""
                {"version":2,"type":"authorisation.created","eventId":"c-1","authorisationId":"auth-1","amountMinor":20000,\
                "currency":"EUR","merchantId":"m-hotel-7","authorisedAt":"2026-11-20T10:00:00Z","holdUntil":"2026-12-21T10:00:00Z"}""");
        tables.ingest(created("auth-2", 100));

        List<Candidate> read = tables.candidates();
        assertThat(read).hasSize(2);
        assertThat(read.stream().filter(c -> HoldValidity.dueInWindow(c, GRACE, WINDOW_START)).map(Candidate::authorisationId))
                .containsExactly("auth-2");
    }
}
