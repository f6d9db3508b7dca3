package com.payments.reconciler.harness.nights;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.harness.report.RunReport;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code local --nights 4 --scenario settlement-feed-partial-loss}: three usual nights, then a night whose due
 * authorisations lost half their settlements at the publisher. The guard holds it (ReleaseSurge, the scheduled run and
 * the operator's rerun alike); the provider performs none of the window's releases until the approval, and the rerun
 * after it delivers them; no release is performed after a published settlement of its authorisation.
 */
class SettlementFeedPartialLossTest {

    @TempDir
    Path workDir;

    @TempDir
    Path dump;

    @Test
    void settlementFeedPartialLossEndsReleaseSurgeAndNothingIsDeliveredUntilApprove() throws Exception {
        WindowConfig config = WindowConfig.defaults();
        WindowId last = config.latestStartedWindow(Clock.systemUTC().instant());
        List<String> console = new ArrayList<>();
        MultiNightRun.Report report = new MultiNightRun(new MultiNightRun.Options(new WindowId(last.date().minusDays(3)), 4, config, 100, 7,
                Optional.of(dump), workDir).withScenario(MultiNightRun.NightScenario.SETTLEMENT_FEED_PARTIAL_LOSS),
                console::add, Clock.systemUTC()).run();
        console.forEach(System.out::println);

        List<RunReport> nights = report.nights();
        for (RunReport night : nights.subList(0, 3)) {
            assertThat(night.execution().status()).as(night.window()).isEqualTo("SUCCEEDED");
            assertThat(night.executions()).as(night.window() + ": no night of the history is held").hasSize(1);
        }
        MultiNightRun.SurgeHold hold = report.surgeHold();
        assertThat(hold).as("the last night was held").isNotNull();
        assertThat(hold.heldBy()).as("the scheduled run and the operator's rerun before the approval").hasSize(2)
                .allSatisfy(run -> assertThat(run).contains("FAILED", "ReleaseSurge"));
        assertThat(hold.settlementsDropped()).isPositive();
        assertThat(hold.commands()).as("decisions committed while held").isPositive();
        assertThat(hold.performedBeforeApproval()).as("provider releases of the held window before the approval").isZero();
        assertThat(hold.approval()).isEqualTo("APPROVED");
        assertThat(hold.performedAfterApproval()).as("the rerun after the approval delivers").isEqualTo(hold.commands());
        assertThat(nights.getLast().execution().status()).isEqualTo("SUCCEEDED");
        assertThat(hold.releases()).as("the night record's count is the window's commands").isEqualTo(hold.commands());
        assertThat(nights.getLast().counts().releaseRequested()).as("the held night's decisions in its report").isEqualTo(hold.releases());
        long usual = nights.get(1).counts().releaseRequested();
        assertThat(hold.releases()).as("a surge: more than twice a usual night").isGreaterThan(2 * usual);
        assertThat(report.invariants()).as("I1-I5 on every night and across, I3 against what was published").doesNotContainValue(false);
        List<String> published = Files.readAllLines(dump.resolve(MultiNightRun.PLATFORM_EVENTS));
        assertThat(published).hasSize((int) report.totals().published());
    }
}
