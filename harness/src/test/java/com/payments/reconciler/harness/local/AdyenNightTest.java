package com.payments.reconciler.harness.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.delivery.ProviderAdapters;
import com.payments.reconciler.harness.report.RunReport;
import com.payments.reconciler.local.provider.ProviderFaults;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code local --provider adyen}, short: the night cancels each due hold through the Adyen adapter against the Adyen fake
 * (201 received: ACKNOWLEDGED), then the harness delivers the fake's CANCELLATION notifications — delayed, reordered, some
 * duplicated, one forged copy — to the real receiver handler, drains ingestion, and only then audits. The night ends
 * SUCCEEDED with I1–I5 true (I2 from the fake's own effect log), every command DELIVERED, nothing outstanding. Known-bad
 * twin: the same night whose notifications are never delivered fails with findings, not a silent pass
 * ({@link #aNightWhoseWebhooksAreNeverDeliveredFails}).
 */
class AdyenNightTest {

    @TempDir
    Path workDir;

    private LocalRun.Outcome night(AdyenWebhooks.Plan plan, List<String> console) throws InterruptedException {
        Clock clock = Clock.systemUTC();
        WindowConfig config = WindowConfig.defaults();
        WindowId window = config.latestStartedWindow(clock.instant());
        LocalRun.Options options = new LocalRun.Options(window, config, new SyntheticData(120, 0.2, 0.05, 11), LocalRun.Scenario.NONE,
                Optional.empty(), workDir, List.of(), ProviderFaults.NONE, true, LocalPipeline.Hosting.IN_PROCESS,
                Optional.empty(), Optional.empty(), Optional.empty(), ProviderAdapters.Adapter.ADYEN, plan);
        return new LocalRun(options, console::add, clock).run();
    }

    @Test
    void aShortNightThroughTheAdyenAdapterEndsEveryCommandDeliveredThroughItsWebhooksWithI1ToI5() throws Exception {
        List<String> console = new ArrayList<>();

        LocalRun.Outcome outcome = night(AdyenWebhooks.Plan.DEFAULT, console);

        RunReport report = outcome.report();
        String log = String.join("\n", console);
        assertThat(report.execution().status()).as(log).isEqualTo("SUCCEEDED");
        assertThat(outcome.scenarioFindings()).as(log).isEmpty();
        assertThat(outcome.succeeded()).isTrue();
        assertThat(report.invariants()).containsOnlyKeys("I1", "I2", "I3", "I4", "I5").doesNotContainValue(false);
        assertThat(report.provider().adapter()).isEqualTo("adyen");
        assertThat(report.counts().releaseRequested()).isEqualTo(outcome.expected().releasable()).isPositive();
        assertThat(report.counts().delivered()).as("each DELIVERED by its CANCELLATION notification, none left ACKNOWLEDGED")
                .isEqualTo(report.counts().releaseRequested());
        assertThat(report.counts().quarantined()).isZero();
        assertThat(report.counts().escalated()).isZero();
        RunReport.Webhooks webhooks = report.provider().webhooks();
        assertThat(webhooks.outstanding()).isZero();
        assertThat(webhooks.acknowledgedLeft()).isZero();
        assertThat(webhooks.forged()).as("one forged copy, refused by the receiver").isEqualTo(1);
        assertThat(webhooks.refusedByReceiver()).isEqualTo(1);
        assertThat(webhooks.notifications()).isEqualTo((int) report.counts().releaseRequested());
        assertThat(webhooks.duplicates()).as("at-least-once delivery: some posted twice").isPositive();
        assertThat(webhooks.outcomeEvents()).isEqualTo(webhooks.notifications() + webhooks.duplicates());
        assertThat(webhooks.writesPerEvent()).as("one conditional UpdateItem per provider.outcome event, applied or duplicate")
                .isEqualTo(1.0);
    }

    @Test
    void aNightWhoseWebhooksAreNeverDeliveredFails() throws Exception {
        List<String> console = new ArrayList<>();

        LocalRun.Outcome outcome = night(new AdyenWebhooks.Plan(0, Duration.ofMinutes(1), 0.2, true), console);

        assertThat(outcome.report().execution().status()).as(String.join("\n", console)).isEqualTo("SUCCEEDED");
        assertThat(outcome.succeeded()).as("the state machine succeeded, the run must not").isFalse();
        assertThat(outcome.scenarioFindings()).hasSize(2)
                .anySatisfy(f -> assertThat(f).contains("notifications still outstanding after 0 delivery rounds"))
                .anySatisfy(f -> assertThat(f).contains("commands still ACKNOWLEDGED"));
        assertThat(outcome.report().provider().webhooks().acknowledgedLeft()).isEqualTo(outcome.report().counts().releaseRequested());
    }
}
