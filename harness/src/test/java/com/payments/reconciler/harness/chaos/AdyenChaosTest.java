package com.payments.reconciler.harness.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.delivery.ProviderAdapters;
import com.payments.reconciler.local.faults.FaultSpec;
import com.payments.reconciler.local.provider.Fault;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.workflow.ProviderKeyRetention;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code chaos --provider adyen}: the schedules' faults on the Adyen fake's wire (perform-then-drop, 500 with
 * {@code Transient-Error: true}, slow, HTML answers, a 429 burst) and on the webhook path (notifications after the
 * night's end, reordered, duplicated, a forged one mixed in, one lost for good so that only the providerOutcomeTimeout
 * escalation ends its command), with the DynamoDB faults; I1-I5 after each schedule. The known-bad twin: the same
 * schedules with a receiver that skips the HMAC check ({@link Mutant#WEBHOOK_HMAC_SKIPPED}) must be reported (I4). A mutant
 * given with an adapter it cannot run with is refused: BadInputTableTest's chaos rows.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdyenChaosTest {

    private static final Path BUILD = Path.of(System.getProperty("reconciler.target"));
    private static final FaultSpec DDB = FaultSpec.parse("ddb-conflict=0.15,ddb-throttle=0.02,ddb-lost-response=0.02");

    private List<Long> schedules;
    private ChaosReport correct;
    private ChaosReport mutant;

    /**
     * Two schedules of campaign seed 1's stream (a pure function of the seeds): the first with a forged notification, a lost
     * one, a 429 burst and a perform-then-drop forced on a hold the night releases; the second with a forged notification,
     * a GC pause (a rerun's takeover under Adyen) and a slow answer forced on a hold the night releases.
     */
    static List<Long> chosenSchedules() {
        List<Long> chosen = new ArrayList<>();
        for (long seed : ChaosCampaign.scheduleSeeds(1, 5_000)) {
            ChaosSchedule s = ChaosSchedule.generate(seed);
            WebhookFaults w = WebhookFaults.generate(seed);
            boolean first = chosen.isEmpty() && w.forgeOne() && w.loseOne() && s.providerThrottleBurst() > 0
                    && s.authorisations() <= 12 && s.dynamoFaults() && forcedOnReleasable(s, Fault.PERFORM_THEN_DROP);
            boolean second = chosen.size() == 1 && w.forgeOne() && !w.loseOne() && s.gcPause() && s.authorisations() <= 12
                    && forcedOnReleasable(s, Fault.SLOW);
            if (first || second) {
                chosen.add(seed);
            }
            if (chosen.size() == 2) {
                return chosen;
            }
        }
        throw new IllegalStateException("no schedules with the faults this test needs among the first 5,000: " + chosen);
    }

    /** Whether the schedule forces {@code fault} on an authorisation its night releases (due, without a settlement). */
    private static boolean forcedOnReleasable(ChaosSchedule s, Fault fault) {
        WindowConfig config = WindowConfig.defaults();
        java.time.Instant cutoff = config.nightFor(config.latestStartedWindow(java.time.Instant.now())).cutoff();
        List<String> releasable = ChaosCampaign.dataOf(s).releasableIds(cutoff);
        return ChaosCampaign.forcedFaults(s, ChaosCampaign.scheduleRandom(s.seed())).stream()
                .anyMatch(f -> f.fault() == fault && releasable.contains(f.authorisationId()));
    }

    @BeforeAll
    void runTheCampaigns() throws InterruptedException {
        schedules = chosenSchedules();
        correct = new ChaosCampaign(BUILD.resolve("chaos-adyen"), null, DDB, null, line -> System.out.println("adyen chaos: " + line),
                ProviderKeyRetention.DEFAULT, ProviderAdapters.Adapter.ADYEN).runSchedules(schedules);
        mutant = new ChaosCampaign(BUILD.resolve("chaos-adyen-mutant"), Mutant.WEBHOOK_HMAC_SKIPPED, DDB, null,
                line -> System.out.println("adyen chaos (webhook-hmac-skipped): " + line), ProviderKeyRetention.DEFAULT,
                ProviderAdapters.Adapter.ADYEN).runSchedules(schedules);
        System.out.printf("adyen chaos on %s: %d ms, faults %s, violations %s; mutant: %d ms, took effect %d, violations %s%n", schedules,
                correct.wallTimeMillis(), correct.faultsInjected(), correct.violations(), mutant.wallTimeMillis(), mutant.mutantEffects(),
                mutant.violations());
    }

    @Test
    void theCorrectWorkersKeepI1ToI5UnderTheAdyenWireAndWebhookFaults() {
        assertThat(correct.errors()).as("every schedule ran to a verdict: %s", correct.errors()).isEmpty();
        assertThat(correct.failures()).as("failures: %s", correct.failures()).isEmpty();
        assertThat(correct.violations()).allSatisfy((invariant, n) -> assertThat(n).as(invariant).isZero());
        assertThat(correct.clean()).isTrue();
        // The faults took effect: on the wire, and on the webhook path.
        assertThat(correct.faultsInjected()).containsKeys("webhook-delayed-past-night-end", "webhook-forged", "webhook-lost",
                "provider-429-burst", "provider-perform-then-drop", "provider-slow", "gc-pause-past-lease");
        // The lost notification's command was ended by the providerOutcomeTimeout escalation in the operator's run
        // (counted only when that command is ESCALATED at the schedule's end).
        assertThat(correct.faultsInjected().get("webhook-lost-escalated")).isEqualTo(correct.faultsInjected().get("webhook-lost"));
        assertThat(correct.rerunsNeeded()).isPositive();
    }

    @Test
    void aReceiverThatSkipsTheHmacCheckIsReported() {
        assertThat(mutant.errors()).as("every schedule ran to a verdict: %s", mutant.errors()).isEmpty();
        assertThat(mutant.mutant()).isEqualTo(Mutant.WEBHOOK_HMAC_SKIPPED.cliName());
        assertThat(mutant.mutantEffects()).as("the forged notifications were accepted").isPositive();
        assertThat(mutant.violations().get("I4")).as("failures: %s", mutant.failures()).isPositive();
        assertThat(mutant.clean()).isFalse();
    }

}
