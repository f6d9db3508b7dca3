package com.payments.reconciler.harness.nights;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.harness.report.RunReport;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.workflow.ErrorNames;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code local --nights 2 --scenario settlement-feed-outage}: the platform's settlement publisher stopped a day before
 * the first night's batch (those settlements and the batch's watermark not published, the last watermark a day old).
 * Night 1 ends FeedNotComplete (the scheduled run and any rerun alike) and releases nothing; the publisher resumes, and
 * night 2 releases what is due, none whose settlement the platform published (I3 against what was published, across
 * the nights). Before this scenario existed, {@code local} refused it with {@code --nights 2} (exit 2); the known-bad
 * report (a first night that did not end FeedNotComplete) is refused by the scenario's judgement below.
 */
class SettlementFeedOutageNightsTest {

    @TempDir
    Path workDir;

    @TempDir
    Path dump;

    @Test
    void settlementFeedOutageEndsNightOneFeedNotCompleteAndNightTwoReleasesWhatIsDue() {
        WindowConfig config = WindowConfig.defaults();
        WindowId last = config.latestStartedWindow(Clock.systemUTC().instant());
        List<String> console = new ArrayList<>();
        MultiNightRun.Report report = new MultiNightRun(new MultiNightRun.Options(new WindowId(last.date().minusDays(1)), 2, config, 100, 7,
                Optional.of(dump), workDir).withScenario(MultiNightRun.NightScenario.SETTLEMENT_FEED_OUTAGE),
                console::add, Clock.systemUTC()).run();
        console.forEach(System.out::println);

        List<RunReport> nights = report.nights();
        assertThat(report.firstNightErrors()).as("every run of night 1").isNotEmpty().allMatch(ErrorNames.FEED_NOT_COMPLETE::equals);
        assertThat(nights.getFirst().execution().status()).isEqualTo("FAILED");
        assertThat(nights.getFirst().counts().releaseRequested()).as("night 1 decided nothing").isZero();
        assertThat(nights.getFirst().counts().delivered()).isZero();
        RunReport second = nights.get(1);
        assertThat(second.execution().status()).isEqualTo("SUCCEEDED");
        assertThat(second.counts().releaseRequested()).as("night 2 releases what is due").isPositive();
        assertThat(second.counts().delivered()).isEqualTo(second.counts().releaseRequested());
        assertThat(report.invariants()).as("I1-I5 on every night and across, I3 against what was published").doesNotContainValue(false);
        assertThat(report.feedOutageRecovered()).isTrue();
        assertThat(console).anyMatch(line -> line.contains("settlement publisher stopped")).anyMatch(line -> line.contains("publisher resumed"))
                .anyMatch(line -> line.contains("for the failed run's lease to expire"));
    }

    /** Known-bad: a first night that succeeded (released on the stale feed), or failed otherwise, does not meet the scenario. */
    @Test
    void aFirstNightThatDidNotEndFeedNotCompleteDoesNotMeetTheScenario() {
        for (List<String> firstNight : List.of(List.of("SUCCEEDED"), List.of(ErrorNames.FEED_NOT_COMPLETE, "States.Timeout"), List.<String>of())) {
            MultiNightRun.Report report = new MultiNightRun.Report(List.of(), null, Map.of(), null, "in-process", 1, null, null, null, firstNight);
            assertThat(report.feedOutageRecovered()).as(firstNight.toString()).isFalse();
        }
        assertThat(new MultiNightRun.Report(List.of(), null, Map.of(), null, "in-process", 1, null, null, null,
                List.of(ErrorNames.FEED_NOT_COMPLETE)).feedOutageRecovered()).as("the good shape").isTrue();
    }
}
