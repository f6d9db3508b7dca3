package com.payments.reconciler.harness.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.harness.report.RunReport;
import com.payments.reconciler.local.provider.ProviderFaults;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.workflow.ProviderQuota;
import com.payments.reconciler.workflow.Timing;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backlog larger than the budget, through the shipped ASL in moto: a night whose backlog is larger than what its budget fits at
 * the provider's quota ends SUCCEEDED with {@code backlogLeft > 0}, not TIMED_OUT. The handlers' clock runs 30 s short
 * of the delivery budget's end (moto's {@code $$.Execution.StartTime} is real time), so the budget is seconds, not hours.
 */
class BacklogNightTest {

    @TempDir
    Path workDir;

    @Test
    void aNightWithMoreThanItsBudgetFitsEndsSucceededWithTheRestLeftAndDeclared() throws Exception {
        Duration shortOfTheBudget = Timing.EXECUTION_TIMEOUT.minus(Timing.DELIVERY_FINISH_RESERVE).minusSeconds(30);
        Clock late = Clock.offset(Clock.systemUTC(), shortOfTheBudget);
        WindowConfig config = WindowConfig.defaults();
        WindowId window = config.latestStartedWindow(late.instant());
        LocalRun.Options options = new LocalRun.Options(window, config, new SyntheticData(2000, 0.1, 0.05, 7), LocalRun.Scenario.NONE,
                Optional.empty(), workDir, List.of(), ProviderFaults.NONE, true, LocalPipeline.Hosting.IN_PROCESS,
                Optional.of(new ProviderQuota(8, 8)));
        List<String> console = new ArrayList<>();

        LocalRun.Outcome outcome = new LocalRun(options, console::add, late).run();

        RunReport report = outcome.report();
        assertThat(report.execution().status()).isEqualTo("SUCCEEDED");
        assertThat(report.counts().backlogLeft()).as("at 8 requests/s, ~1,800 releases cannot fit in 30 s").isPositive();
        // 8 concurrent requests over 4 shards leave each call 2 slots for its 8 threads: what fits is still delivered.
        assertThat(report.counts().delivered()).as("what fits in the budget is delivered").isPositive();
        assertThat(report.counts().delivered() + report.counts().backlogLeft()).isEqualTo(report.counts().releaseRequested());
        assertThat(report.invariants()).as("the declared backlog is checked against the tables, the rest as always")
                .containsOnlyKeys("I1", "I2", "I3", "I4", "I5").doesNotContainValue(false);
        assertThat(report.provider().quotaViolations()).isZero();
    }
}
