package com.payments.reconciler.harness.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.delivery.ProviderAdapters;
import com.payments.reconciler.harness.report.RunReport;
import com.payments.reconciler.local.provider.ProviderFaults;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short local night through the Stripe adapter against the Stripe fake: the synthetic events carry each authorisation's
 * PaymentIntent id, settled ones are captured at the fake, and the night ends SUCCEEDED with I1–I5 true, I2 judged from
 * the fake's own log of performed cancellations, and every release DELIVERED.
 */
class StripeNightTest {

    @TempDir
    Path workDir;

    @Test
    void aShortNightThroughTheStripeAdapterReleasesEveryDueHoldOnceWithI1ToI5() throws Exception {
        Clock clock = Clock.systemUTC();
        WindowConfig config = WindowConfig.defaults();
        WindowId window = config.latestStartedWindow(clock.instant());
        LocalRun.Options options = new LocalRun.Options(window, config, new SyntheticData(120, 0.2, 0.05, 11), LocalRun.Scenario.NONE,
                Optional.empty(), workDir, List.of(), ProviderFaults.NONE, true, LocalPipeline.Hosting.IN_PROCESS,
                Optional.empty(), Optional.empty(), Optional.empty(), ProviderAdapters.Adapter.STRIPE);
        List<String> console = new ArrayList<>();

        LocalRun.Outcome outcome = new LocalRun(options, console::add, clock).run();

        RunReport report = outcome.report();
        assertThat(report.execution().status()).as(String.join("\n", console)).isEqualTo("SUCCEEDED");
        assertThat(report.invariants()).containsOnlyKeys("I1", "I2", "I3", "I4", "I5").doesNotContainValue(false);
        assertThat(report.counts().releaseRequested()).isPositive();
        assertThat(report.counts().delivered()).as("each through Stripe's cancel: none quarantined for a missing PaymentIntent id")
                .isEqualTo(report.counts().releaseRequested());
        assertThat(report.counts().quarantined()).isZero();
        assertThat(report.counts().escalated()).isZero();
    }
}
