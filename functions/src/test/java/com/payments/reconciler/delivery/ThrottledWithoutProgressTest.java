package com.payments.reconciler.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.testing.MutableClock;
import com.payments.reconciler.workflow.ProviderQuota;
import com.payments.reconciler.workflow.Timing;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A provider that throttles every request is treated as down after {@link Timing#THROTTLED_WITHOUT_PROGRESS_LIMIT} of
 * clock, whatever pauses it asks for, and a shard's calls together keep to a tiny share. Before, the limit added up the
 * pauses asked for beyond the current one: a provider answering 429 with {@code Retry-After: 0} was never treated as
 * down (3 hours of clock), one asking for 200 ms after 1 h 15 min, and 429s without {@code Retry-After} at 4 requests/s
 * after 2 h 30 min; each new call's empty bucket let a shard send one request at once however small its share.
 */
class ThrottledWithoutProgressTest {

    private static final Instant NOW = Instant.parse("2026-12-02T03:00:00Z");

    /** CommandSender's loop for one command that is throttled every time: the clock until ProviderDown, or null. */
    private static Duration throttledUntilDown(ProviderQuota quota, Duration retryAfter, Duration horizon) {
        MutableClock clock = new MutableClock(NOW);
        SendingRate rate = new SendingRate(quota.share(4), clock, null, 0);
        ProviderResult.Throttled answer = new ProviderResult.Throttled(429, Optional.ofNullable(retryAfter));
        while (Duration.between(NOW, clock.instant()).compareTo(horizon) < 0) {
            clock.advance(rate.claimTurn());
            rate.throttled(answer.retryAfter().orElse(null));
            ProviderAnswers.Step step = ProviderAnswers.after(answer, "release-hold:a-1", 0, 1, rate.throttledSinceAnswerMillis(), false);
            if (step instanceof ProviderAnswers.Step.ProviderDown) {
                return Duration.between(NOW, clock.instant());
            }
        }
        return null;
    }

    @Test
    void everyKindOfThrottlingIsTreatedAsDownSoonAfterTheLimit() {
        Duration limit = Timing.THROTTLED_WITHOUT_PROGRESS_LIMIT;
        // Within one request's spacing at the floor rate (a tenth of the share) or one pause of the limit.
        assertThat(throttledUntilDown(ProviderQuota.DEFAULT, null, Duration.ofHours(3))).as("no Retry-After (1 s each)")
                .isBetween(limit.minusSeconds(2), limit.plusSeconds(2));
        assertThat(throttledUntilDown(ProviderQuota.DEFAULT, Duration.ZERO, Duration.ofHours(3))).as("Retry-After: 0")
                .isBetween(limit.minusSeconds(2), limit.plusSeconds(2));
        assertThat(throttledUntilDown(ProviderQuota.DEFAULT, Duration.ofMillis(200), Duration.ofHours(3))).as("Retry-After: 200 ms")
                .isBetween(limit.minusSeconds(2), limit.plusSeconds(2));
        assertThat(throttledUntilDown(new ProviderQuota(4, 32), null, Duration.ofHours(10))).as("4 requests/s: 0.1 a second per call at the floor")
                .isBetween(limit.minusSeconds(11), limit.plusSeconds(11));
        assertThat(throttledUntilDown(ProviderQuota.DEFAULT, Duration.ofMinutes(20), Duration.ofHours(3))).as("a pause past the limit: down at once")
                .isEqualTo(Duration.ZERO);
    }

    /** A call that carried no throttling starts counting at its first throttling answer, not at its own start. */
    @Test
    void aCallWithNothingCarriedCountsFromItsFirstThrottlingAnswer() {
        MutableClock clock = new MutableClock(NOW);
        SendingRate rate = new SendingRate(ProviderQuota.DEFAULT.share(4), clock, null, 0);
        clock.advance(Duration.ofMinutes(10));
        assertThat(rate.throttledSinceAnswerMillis()).isZero();
        rate.throttled(Duration.ZERO);
        assertThat(rate.throttledSinceAnswerMillis()).isZero();
        clock.advance(Duration.ofSeconds(3));
        assertThat(rate.throttledSinceAnswerMillis()).isEqualTo(3000);
    }

    @Test
    void anAnswerInBetweenStartsTheCountAgainAndTheCountCarriesAcrossCalls() {
        MutableClock clock = new MutableClock(NOW);
        SendingRate rate = new SendingRate(ProviderQuota.DEFAULT.share(4), clock, null, 0);
        rate.throttled(Duration.ZERO);
        clock.advance(Duration.ofMinutes(10));
        assertThat(rate.throttledSinceAnswerMillis()).isEqualTo(Duration.ofMinutes(10).toMillis());
        rate.answered();
        assertThat(rate.throttledSinceAnswerMillis()).isZero();
        rate.throttled(Duration.ZERO);
        clock.advance(Duration.ofMinutes(4));

        SendingRate nextCall = new SendingRate(ProviderQuota.DEFAULT.share(4), clock, rate.resumeAt(), rate.throttledSinceAnswerMillis());
        clock.advance(Duration.ofMinutes(2));
        assertThat(nextCall.throttledSinceAnswerMillis()).as("the shard's next call goes on counting").isEqualTo(Duration.ofMinutes(6).toMillis());
    }

    /**
     * A small share whose senders' turns come after the call's deadline: those turns are left for the next call. Claimed and
     * unused, 8 deferred senders per call pushed the next call's start 8 spacings on each time, further than the clock
     * moved, and the shard stopped sending (a review's simulation: 9 sent where 202 were due at 0.2 requests/s).
     */
    @Test
    void turnsACallCannotUseAreLeftForTheNextCall() {
        MutableClock clock = new MutableClock(NOW);
        ProviderQuota.Share share = new ProviderQuota(0.2, 32).share(4); // 0.05 requests/s a call: one per 20 s
        Duration usable = Duration.ofSeconds(100);
        Instant resumeAt = Instant.EPOCH;
        int sent = 0;
        for (int call = 0; call < 40; call++) { // 40 calls of 100 s: 200 turns, 8 senders a call
            SendingRate rate = new SendingRate(share, clock, resumeAt, 0);
            int startedAt = sent;
            for (int sender = 0; sender < 8; sender++) {
                if (rate.claimTurn(wait -> wait.compareTo(usable) < 0).claimed()) {
                    sent++;
                }
            }
            assertThat(sent - startedAt).as("call %d sends its 100 s of turns", call).isBetween(4, 6);
            resumeAt = rate.resumeAt();
            clock.advance(usable);
        }
        assertThat(sent).isBetween(195, 205);
    }

    @Test
    void aTinyShareIsKeptAcrossTheShardsCalls() {
        MutableClock clock = new MutableClock(NOW);
        ProviderQuota.Share share = new ProviderQuota(0.01, 4).share(4); // 0.0025 requests/s: one per 400 s
        Instant resumeAt = Instant.EPOCH;
        List<Instant> sent = new ArrayList<>();
        for (int call = 0; call < 12; call++) { // 12 calls of 100 s, each sending one request when its turn comes within the call
            SendingRate rate = new SendingRate(share, clock, resumeAt, 0);
            SendingRate.Turn turn = rate.claimTurn(wait -> wait.compareTo(Duration.ofSeconds(100)) < 0);
            if (turn.claimed()) {
                sent.add(clock.instant().plus(turn.delay()));
            }
            resumeAt = rate.resumeAt(); // as DeliveryCall carries it, whether or not the call sent
            clock.advance(Duration.ofSeconds(100));
        }
        assertThat(sent).as("one per 400 s in 1,200 s (12 on the old code: one at the start of every call)")
                .containsExactly(NOW, NOW.plusSeconds(400), NOW.plusSeconds(800));
    }
}
