package com.payments.reconciler.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.payments.reconciler.testing.MutableClock;
import com.payments.reconciler.workflow.ProviderQuota;
import com.payments.reconciler.workflow.Timing;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Issue 17's pure pieces: the quota's split, Retry-After, the sending rate and the shard plan, as tables. */
class PacingTest {

    static final Instant NOW = Instant.parse("2026-12-02T03:00:00Z");

    @ParameterizedTest
    @CsvSource({
            // rps, concurrent, calls at once -> rps per call, concurrent per call (capped at the call's 8 slots)
            "40,  32, 4, 10.0, 8",
            "40,  32, 2, 20.0, 8",
            "40,  8,  4, 10.0, 2",
            "10,  4,  4, 2.5,  1",
            "100, 64, 1, 100.0, 8"})
    void theQuotaIsSplitExactlyByTheDeliveryCallsThatRunAtOnce(double rps, int concurrent, int calls, double perCall, int perCallConcurrent) {
        ProviderQuota.Share share = new ProviderQuota(rps, concurrent).share(calls);
        assertThat(share.requestsPerSecond()).isEqualTo(perCall);
        assertThat(share.maxConcurrentRequests()).isEqualTo(perCallConcurrent);
        assertThat(share.requestsPerSecond() * calls).as("the calls together never exceed the quota").isLessThanOrEqualTo(rps);
        assertThat(share.maxConcurrentRequests() * calls).isLessThanOrEqualTo(concurrent);
    }

    @Test
    void aQuotaThatCannotGiveEveryCallARequestIsRefusedNamingTheField() {
        assertThatThrownBy(() -> new ProviderQuota(40, 3)).hasMessageContaining("max concurrent requests")
                .hasMessageContaining("from " + Timing.DELIVERY_MAP_CONCURRENCY);
        assertThatThrownBy(() -> new ProviderQuota(0, 32)).hasMessageContaining("requests per second");
        assertThatThrownBy(() -> new ProviderQuota(Double.NaN, 32)).hasMessageContaining("requests per second");
    }

    @ParameterizedTest
    @CsvSource(nullValues = "none", value = {
            "120,                           PT2M",
            "0,                             PT0S",
            "'  7 ',                        PT7S",
            "'Wed, 02 Dec 2026 03:00:05 GMT', PT5S",
            "'Wed, 02 Dec 2026 02:59:00 GMT', PT0S",
            "99999999999,                   PT1H",
            "-3,                            none",
            "soon,                          none",
            "'2026-12-02T03:00:05Z',        none",
            "none,                          none"})
    void retryAfterIsDelaySecondsOrAnHttpDateAndNothingElse(String header, String expected) {
        assertThat(RetryAfter.parse(header, NOW)).isEqualTo(Optional.ofNullable(expected).map(Duration::parse));
    }

    @Test
    void turnsAreSpacedAtTheSharesRateHowEverManySendersClaimThem() {
        MutableClock clock = new MutableClock(NOW);
        SendingRate rate = new SendingRate(new ProviderQuota(40, 32).share(4), clock, null, 0);

        assertThat(rate.claimTurn()).isEqualTo(Duration.ZERO);
        assertThat(rate.claimTurn()).isEqualTo(Duration.ofMillis(100));
        assertThat(rate.claimTurn()).isEqualTo(Duration.ofMillis(200));
        clock.advance(Duration.ofSeconds(1));
        assertThat(rate.claimTurn()).as("an idle second is not saved up as a burst").isEqualTo(Duration.ZERO);
    }

    @Test
    void throttlingHalvesTheRatePausesForRetryAfterAndAnswersRecoverItGradually() {
        MutableClock clock = new MutableClock(NOW);
        SendingRate rate = new SendingRate(new ProviderQuota(40, 32).share(4), clock, null, 0);

        rate.throttled(Duration.ofSeconds(3));
        assertThat(rate.rate()).isEqualTo(5.0);
        assertThat(rate.claimTurn()).isEqualTo(Duration.ofSeconds(3));
        assertThat(rate.throttledMillis()).isEqualTo(3000);
        rate.throttled(Duration.ofSeconds(1));
        assertThat(rate.throttledMillis()).as("a shorter pause inside a longer one adds nothing").isEqualTo(3000);
        rate.throttled(null);
        rate.throttled(null);
        rate.throttled(null);
        assertThat(rate.rate()).as("never below a tenth of the share").isEqualTo(1.0);
        assertThat(rate.throttledSinceAnswerMillis()).isEqualTo(3000);

        rate.answered();
        assertThat(rate.rate()).isGreaterThan(1.0).isLessThan(10.0);
        assertThat(rate.throttledSinceAnswerMillis()).isZero();
        for (int i = 0; i < SendingRate.RECOVERY_ANSWERS; i++) {
            rate.answered();
        }
        assertThat(rate.rate()).as("back to the share, never above it").isEqualTo(10.0);
    }

    @Test
    void aPauseCarriedFromTheShardsEarlierCallIsHonoured() {
        MutableClock clock = new MutableClock(NOW);
        SendingRate rate = new SendingRate(new ProviderQuota(40, 32).share(4), clock, NOW.plusSeconds(30), 4000);
        assertThat(rate.claimTurn()).isEqualTo(Duration.ofSeconds(30));
        assertThat(rate.throttledSinceAnswerMillis()).isEqualTo(4000);
    }

    @ParameterizedTest
    @CsvSource({
            // backlog, rps per call, seconds left -> allotment, fits all
            "100,    10, 3600, 100,   true",
            "50000,  10, 3600, 36000, false",
            "0,      10, 3600, 0,     true",
            "10,     10, 0,    0,     false",
            "10,     10, -60,  0,     false",
            "10,     2.5, 2,   5,     false"})
    void aShardPlansWhatFitsAtItsShareBeforeTheBudgetEnds(long backlog, double rps, long secondsLeft, long allotment, boolean fitsAll) {
        ShardPlan plan = ShardPlan.plan(backlog, new ProviderQuota.Share(rps, 8), NOW, NOW.plusSeconds(secondsLeft));
        assertThat(plan.allotment()).isEqualTo(allotment);
        assertThat(plan.fitsAll()).isEqualTo(fitsAll);
    }

    @Test
    void theBudgetEndsTheReserveBeforeTheExecutionTimeout() {
        assertThat(ShardPlan.deliverUntil(NOW)).isEqualTo(NOW.plus(Timing.EXECUTION_TIMEOUT).minus(Timing.DELIVERY_FINISH_RESERVE));
    }
}
