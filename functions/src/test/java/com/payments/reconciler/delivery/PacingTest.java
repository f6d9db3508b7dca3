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

/** Delivery pacing's pure pieces: the quota's split, Retry-After, the sending rate and the shard plan, as tables. */
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

        assertThat(rate.claimTurn()).as("a call's bucket starts empty: one now, then the share's spacing").isEqualTo(Duration.ZERO);
        assertThat(rate.claimTurn()).isEqualTo(Duration.ofMillis(100));
        assertThat(rate.claimTurn()).isEqualTo(Duration.ofMillis(200));
    }

    @ParameterizedTest
    @CsvSource({
            // share (requests/s), catch-up (ms), idle (ms) after the first turn -> turns given at once, then the next one's wait (ms)
            "10,   500, 1000, 5,  100",
            "10,   500, 250,  2,  50",
            "10,   0,   1000, 1,  100",
            "2.5,  500, 1000, 1,  300",
            "100,  500, 1000, 50, 10",
            "100,  500, 25,   2,  5"})
    void idleTimeIsSavedUpToTheCatchUpAndNoMore(double share, long catchUpMillis, long idleMillis, int atOnce, long nextWaitMillis) {
        MutableClock clock = new MutableClock(NOW);
        SendingRate rate = new SendingRate(new ProviderQuota.Share(share, 8), clock, null, 0, Duration.ofMillis(catchUpMillis));
        assertThat(rate.claimTurn()).isEqualTo(Duration.ZERO);
        clock.advance(Duration.ofMillis(idleMillis));

        for (int i = 0; i < atOnce; i++) {
            assertThat(rate.claimTurn()).as("turn %d after %d ms idle", i + 1, idleMillis).isEqualTo(Duration.ZERO);
        }
        assertThat(rate.claimTurn()).isEqualTo(Duration.ofMillis(nextWaitMillis));
    }

    /**
     * A delivery call's rounds as the handler runs them: a round claims its 8 turns, ends when its last request is
     * answered, and the next one starts after the round's settlement read (and, every 100 answers, the marks). What is
     * lost between rounds is made up within the catch-up; without one (the burst of one before it), it is not.
     */
    @ParameterizedTest
    @CsvSource({
            // share, catch-up (ms), answer latency (ms), read between rounds (ms), marks every 100 (ms) -> utilisation at least, at most
            "10,  500, 5,   30,  300, 0.99, 1.0",
            "10,  500, 40,  200, 600, 0.95, 1.0",
            "2.5, 500, 40,  120, 450, 0.97, 1.0",
            "25,  500, 20,  60,  400, 0.97, 1.0",
            // the burst of one: every round's lost time stays lost (the 0.77 measured on the first night paced at the quota)
            "10,  0,   40,  200, 600, 0.0,  0.85"})
    void timeLostBetweenRoundsIsMadeUpWithinTheCatchUp(double share, long catchUpMillis, long latencyMillis, long readMillis,
                                                       long marksMillis, double atLeast, double atMost) {
        MutableClock clock = new MutableClock(NOW);
        SendingRate rate = new SendingRate(new ProviderQuota.Share(share, 8), clock, null, 0, Duration.ofMillis(catchUpMillis));
        int rounds = 200;
        Instant firstTurn = null;
        Instant lastTurn = NOW;
        for (int round = 0; round < rounds; round++) {
            Instant start = clock.instant();
            for (int k = 0; k < Timing.DELIVERY_PARALLELISM; k++) {
                lastTurn = start.plus(rate.claimTurn());
                firstTurn = firstTurn == null ? lastTurn : firstTurn;
            }
            long between = latencyMillis + readMillis + (round % 13 == 12 ? marksMillis : 0);
            clock.advance(Duration.between(start, lastTurn).plusMillis(between));
        }
        double sent = rounds * Timing.DELIVERY_PARALLELISM;
        // The rate is counted as the provider sees it: requests over the time from the first to the last plus one spacing.
        double utilisation = sent / (share * (Duration.between(firstTurn, lastTurn).toNanos() / 1e9 + 1 / share));
        assertThat(utilisation).isBetween(atLeast, atMost);
    }

    /**
     * The night's calls together, each at its share with the catch-up, against a provider bucket of one second's quota
     * (the simulated provider's, and the common form of a per-second quota): senders that come late at random never
     * have a request refused. A catch-up of five seconds (known bad: one call's burst alone exceeds the provider's
     * bucket) is refused, so the check can fail.
     */
    @ParameterizedTest
    @CsvSource({
            // quota, catch-up (ms), seed -> refused at the provider
            "40,  500,  1, false",
            "40,  500,  2, false",
            "10,  500,  3, false",
            "100, 500,  4, false",
            "40,  5000, 1, true"})
    void theNightsCallsTogetherStayInsideAProviderBucketOfOneSecondsQuota(double quota, long catchUpMillis, long seed, boolean refused) {
        int calls = Timing.DELIVERY_MAP_CONCURRENCY;
        ProviderQuota.Share share = new ProviderQuota(quota, 32).share(calls);
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        java.util.List<Instant> sent = new java.util.ArrayList<>();
        for (int call = 0; call < calls; call++) {
            MutableClock clock = new MutableClock(NOW);
            SendingRate rate = new SendingRate(share, clock, null, 0, Duration.ofMillis(catchUpMillis));
            for (int round = 0; round < 150; round++) {
                Instant start = clock.instant();
                Instant last = start;
                for (int k = 0; k < Timing.DELIVERY_PARALLELISM; k++) {
                    last = start.plus(rate.claimTurn());
                    sent.add(last);
                }
                // Lost time between rounds from nothing to six seconds: an idle call fills its bucket, then spends it.
                long lost = random.nextInt(10) == 0 ? random.nextLong(6000) : random.nextLong(150);
                clock.advance(Duration.between(start, last).plusMillis(lost));
            }
        }
        sent.sort(null);
        assertThat(refusedByBucket(sent, quota) > 0).isEqualTo(refused);
    }

    /** A provider's token bucket of one second's quota, full at the first request: how many of {@code arrivals} it refuses. */
    private static int refusedByBucket(java.util.List<Instant> arrivals, double perSecond) {
        double tokens = perSecond;
        Instant last = arrivals.getFirst();
        int refused = 0;
        for (Instant at : arrivals) {
            tokens = Math.min(perSecond, tokens + Duration.between(last, at).toNanos() / 1e9 * perSecond);
            last = at;
            if (tokens < 1) {
                refused++;
            } else {
                tokens -= 1;
            }
        }
        return refused;
    }

    @Test
    void aPauseEndsWithAnEmptyBucketSoNoBurstFollowsARefusal() {
        MutableClock clock = new MutableClock(NOW);
        SendingRate rate = new SendingRate(new ProviderQuota(40, 32).share(4), clock, null, 0);
        clock.advance(Duration.ofSeconds(5));
        rate.throttled(Duration.ofSeconds(2));

        assertThat(rate.claimTurn()).isEqualTo(Duration.ofSeconds(2));
        assertThat(rate.claimTurn()).as("the halved rate's spacing after the pause, not a saved-up burst")
                .isEqualTo(Duration.ofMillis(2200));
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
