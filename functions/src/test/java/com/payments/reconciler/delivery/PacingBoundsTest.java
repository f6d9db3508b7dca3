package com.payments.reconciler.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.reconcile.DeliveryMark;
import com.payments.reconciler.reconcile.DeliveryRecord;
import com.payments.reconciler.store.AwsClients;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.testing.MutableClock;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.HandlerEnvironment;
import com.payments.reconciler.workflow.ProviderQuota;
import com.payments.reconciler.workflow.Timing;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The edges of the pacing arithmetic and of delivery's pure verdicts, as tables: the quota's bounds and its
 * environment form, Retry-After past its cap, the shard plan's carried pacing state, the sending rate's recovery and
 * pause, and the words a person reads when a command is escalated or the provider is treated as down.
 */
class PacingBoundsTest {

    private static final Instant NOW = Instant.parse("2026-12-02T03:00:00Z");

    // ---- the provider's quota ---------------------------------------------------------------------------------

    @ParameterizedTest
    @CsvSource({"10000, 4", "0.5, 1000", "40, 32"})
    void aQuotaIsAcceptedUpToItsBounds(double rps, int concurrent) {
        ProviderQuota quota = new ProviderQuota(rps, concurrent);
        assertThat(quota.requestsPerSecond()).isEqualTo(rps);
        assertThat(quota.maxConcurrentRequests()).isEqualTo(concurrent);
    }

    @ParameterizedTest
    @CsvSource({
            "10000.5, 32, 'provider requests per second must be a number above 0 and at most 10000, was 10000.5'",
            "-1,      32, 'provider requests per second must be a number above 0 and at most 10000, was -1.0'",
            "40,      3,  'provider max concurrent requests must be an integer from 4 (one per concurrent delivery call) to 1000, was 3'",
            "40,    1001, 'provider max concurrent requests must be an integer from 4 (one per concurrent delivery call) to 1000, was 1001'"})
    void aQuotaJustOutsideItsBoundsIsRefusedNamingTheField(double rps, int concurrent, String message) {
        assertThatThrownBy(() -> new ProviderQuota(rps, concurrent)).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    @ParameterizedTest
    @CsvSource({"1, 40.0, 8", "4, 10.0, 8"})
    void aShareIsForOneToFourCallsAtOnce(int calls, double rps, int concurrent) {
        assertThat(new ProviderQuota(40, 32).share(calls)).isEqualTo(new ProviderQuota.Share(rps, concurrent));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 5})
    void aShareForAnImpossibleNumberOfCallsIsRefused(int calls) {
        assertThatThrownBy(() -> new ProviderQuota(40, 32).share(calls)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("concurrent delivery calls must be from 1 to 4, was " + calls);
    }

    @ParameterizedTest
    @CsvSource({"40, 32, 40", "2.5, 8, 2.5", "0.5, 4, 0.5"})
    void theQuotaIsWrittenToTheEnvironmentAndReadBack(double rps, int concurrent, String written) {
        ProviderQuota quota = new ProviderQuota(rps, concurrent);
        assertThat(quota.environment()).isEqualTo(Map.of(EnvVars.PROVIDER_REQUESTS_PER_SECOND, written,
                EnvVars.PROVIDER_MAX_CONCURRENT_REQUESTS, Integer.toString(concurrent)));
        assertThat(ProviderQuota.fromEnvironment(environment(quota.environment()))).isEqualTo(quota);
    }

    @Test
    void aQuotaMissingOrMalformedInTheEnvironmentStopsTheHandlerNamingTheVariables() {
        assertThatThrownBy(() -> ProviderQuota.fromEnvironment(environment(Map.of(EnvVars.PROVIDER_MAX_CONCURRENT_REQUESTS, "32"))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(EnvVars.PROVIDER_REQUESTS_PER_SECOND);
        assertThatThrownBy(() -> ProviderQuota.fromEnvironment(environment(Map.of(
                EnvVars.PROVIDER_REQUESTS_PER_SECOND, "forty", EnvVars.PROVIDER_MAX_CONCURRENT_REQUESTS, "32"))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("were 'forty' and '32'");
        assertThatThrownBy(() -> ProviderQuota.fromEnvironment(environment(Map.of(
                EnvVars.PROVIDER_REQUESTS_PER_SECOND, "40", EnvVars.PROVIDER_MAX_CONCURRENT_REQUESTS, "2"))))
                .isInstanceOf(IllegalStateException.class).hasMessageStartingWith("environment: provider max concurrent requests");
    }

    private static HandlerEnvironment environment(Map<String, String> env) {
        AwsClients noAws = new com.payments.reconciler.testing.NoAwsClients("the quota");
        return new HandlerEnvironment(env, noAws, Clock.systemUTC());
    }

    @Test
    void pacingNeedsAQuotaAndAPause() {
        Backoff.Pause pause = duration -> { };
        DeliveryPacing pacing = new DeliveryPacing(ProviderQuota.DEFAULT, pause);
        assertThat(pacing.quota()).isEqualTo(ProviderQuota.DEFAULT);
        assertThat(pacing.pause()).isSameAs(pause);
        assertThat(DeliveryPacing.sleeping(ProviderQuota.DEFAULT)).isEqualTo(new DeliveryPacing(ProviderQuota.DEFAULT, Backoff.SLEEP));
        assertThatThrownBy(() -> new DeliveryPacing(null, pause)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a quota and a pause are required");
        assertThatThrownBy(() -> new DeliveryPacing(ProviderQuota.DEFAULT, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a quota and a pause are required");
    }

    // ---- Retry-After past its cap -----------------------------------------------------------------------------

    @ParameterizedTest
    @CsvSource(nullValues = "none", value = {
            "3600,                          PT1H",
            "3601,                          PT1H",
            "7200,                          PT1H",
            "999999999,                     PT1H",
            // delay-seconds is 1*DIGIT: nine digits with leading zeros are a short wait, not a cap
            "000000005,                     PT5S",
            "99999999999999999999,          PT1H",
            "'Wed, 02 Dec 2026 05:00:00 GMT', PT1H",
            "'Wed, 02 Dec 2026 03:59:59 GMT', PT59M59S",
            "'   ',                         none",
            "'',                            none"})
    void aWaitLongerThanAnHourIsCappedAndABlankHeaderAsksForNone(String header, String expected) {
        assertThat(RetryAfter.parse(header, NOW)).isEqualTo(Optional.ofNullable(expected).map(Duration::parse));
    }

    // ---- the shard plan ---------------------------------------------------------------------------------------

    @Test
    void aNegativeBacklogIsRefused() {
        assertThatThrownBy(() -> ShardPlan.plan(-1, new ProviderQuota.Share(10, 8), NOW, NOW.plusSeconds(60)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("backlog must not be negative, was -1");
    }

    @Test
    void aPlanCarriesItsBudgetAndThePacingStateTheNextCallMustHonour() {
        ShardPlan plan = ShardPlan.plan(500, new ProviderQuota.Share(10, 8), NOW, NOW.plusSeconds(20));
        assertThat(plan).isEqualTo(new ShardPlan(500, 200, NOW.plusSeconds(20).toEpochMilli(), 0, 0));
        ShardPlan carried = plan.withPacing(NOW.plusSeconds(5), 4000);
        assertThat(carried.backlog()).isEqualTo(500);
        assertThat(carried.allotment()).isEqualTo(200);
        assertThat(carried.deliverUntil()).isEqualTo(NOW.plusSeconds(20).toEpochMilli());
        assertThat(carried.resumeAt()).isEqualTo(NOW.plusSeconds(5).toEpochMilli());
        assertThat(carried.throttledSinceAnswerMillis()).isEqualTo(4000);
    }

    // ---- the sending rate -------------------------------------------------------------------------------------

    @Test
    void aNegativeCatchUpIsRefused() {
        assertThatThrownBy(() -> new SendingRate(new ProviderQuota.Share(10, 8), new MutableClock(NOW), null, 0, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("the pacing catch-up must not be negative, was PT-0.001S");
    }

    @Test
    void eachAnswerClimbsBackAOneTwentiethOfTheWayFromTheFloorToTheShare() {
        SendingRate rate = new SendingRate(new ProviderQuota.Share(10, 8), new MutableClock(NOW), null, 0);
        rate.throttled(Duration.ofSeconds(1));
        assertThat(rate.rate()).isEqualTo(5.0);
        rate.answered();
        assertThat(rate.rate()).as("5 + (10 - 1) / 20").isCloseTo(5.45, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void answersThatArriveDuringAPauseDoNotShortenIt() {
        MutableClock clock = new MutableClock(NOW);
        SendingRate rate = new SendingRate(new ProviderQuota.Share(10, 8), clock, null, 0);
        rate.throttled(Duration.ofSeconds(2));
        assertThat(rate.pausedUntil()).isEqualTo(NOW.plusSeconds(2));
        // Requests in flight before the refusal are answered during the pause: the rate climbs back to the share,
        // which widens the bucket's tolerance; the pause still holds to its end.
        for (int i = 0; i < SendingRate.RECOVERY_ANSWERS; i++) {
            rate.answered();
        }
        assertThat(rate.rate()).isEqualTo(10.0);
        assertThat(rate.claimTurn()).isEqualTo(Duration.ofSeconds(2));
        assertThat(rate.pausedUntil()).isEqualTo(NOW.plusSeconds(2));
    }

    // ---- what a person reads ----------------------------------------------------------------------------------

    @Test
    void anEscalatedCommandSaysHowLongItWaitedAndWhatToDo() {
        DeliveryDecision.Escalate escalate = new DeliveryDecision.Escalate(Duration.ofDays(17));
        assertThat(escalate.age()).isEqualTo(Duration.ofDays(17));
        assertThat(escalate.reason()).isEqualTo("PENDING for 408 h, longer than automatic delivery may wait ("
                + Timing.AUTOMATIC_DELIVERY_HORIZON.toHours() + " h): ask the provider whether it released the hold, then requeue it"
                + " (bin/reconciler commands requeue)");
        UnsentCommand unsent = UnsentCommand.of(escalate, Optional.empty(), 3);
        assertThat(unsent.result()).isEqualTo(new DeliveryRecord.Result.Escalated(escalate.reason(), 3));
        assertThat(unsent.why()).isEqualTo(escalate.reason());
        assertThat(unsent.sentBefore()).isFalse();
    }

    @Test
    void aCommandNotSentSaysWhy() {
        Instant settledAt = Instant.parse("2026-12-01T10:00:00Z");
        assertThat(UnsentCommand.of(new DeliveryDecision.CancelSettled(settledAt), Optional.empty(), 1).why())
                .isEqualTo("its authorisation settled at 2026-12-01T10:00:00Z");
        assertThat(UnsentCommand.of(new DeliveryDecision.CancelSettled(settledAt), Optional.of(new ProviderResult.Released("prov-9")), 1).why())
                .isEqualTo("answered by the provider in an earlier attempt");
    }

    @Test
    void aProviderTreatedAsDownSaysForHowLongAndForWhichCommand() {
        long throttledMs = Timing.THROTTLED_WITHOUT_PROGRESS_LIMIT.toMillis() + 1500;
        ProviderAnswers.Step throttled = ProviderAnswers.after(new ProviderResult.Throttled(429, Optional.empty()),
                "release-hold:a-1", 0, 40, throttledMs, false);
        assertThat(throttled).isEqualTo(new ProviderAnswers.Step.ProviderDown("provider throttled every request for 901 s"
                + " without one answer (the last for release-hold:a-1); treated as down, keys intact"));
        ProviderAnswers.Step down = ProviderAnswers.after(new ProviderResult.Unavailable("503 Service Unavailable"),
                "release-hold:a-2", ProviderAnswers.ATTEMPTS_PER_COMMAND, 3, 0, false);
        assertThat(((ProviderAnswers.Step.ProviderDown) down).reason()).isEqualTo("provider unavailable for release-hold:a-2 after 3"
                + " attempts (same Idempotency-Key each time): 503 Service Unavailable");
    }

    @Test
    void aMarkAlreadyFinalKeepsItsStatusAndWhetherWeEndedIt() {
        LeaseToken lease = new LeaseToken("nightly", "run-2/owner", 2);
        DeliveryMark mark = new DeliveryMark("release-hold:a-1", new DeliveryRecord.Result.Delivered("prov-1"), 1);
        for (boolean byUs : new boolean[] {true, false}) {
            MarkVerdict verdict = MarkVerdict.of(lease, mark, new DeliveryRecord.AlreadyFinal("DELIVERED", byUs));
            assertThat(verdict).isEqualTo(new MarkVerdict.AlreadyFinal("DELIVERED", byUs));
            assertThat(((MarkVerdict.AlreadyFinal) verdict).status()).isEqualTo("DELIVERED");
            assertThat(((MarkVerdict.AlreadyFinal) verdict).byUs()).isEqualTo(byUs);
        }
    }
}
