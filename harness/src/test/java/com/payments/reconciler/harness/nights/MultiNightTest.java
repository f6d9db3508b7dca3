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
 * Three nights on the same tables, through the shipped ASL in moto with the handlers in-process, on one clock moved a
 * day at a time and a continuous platform feed: every night SUCCEEDED with I1-I5, the invariants across the nights
 * hold, no night re-reads a settled authorisation (none is even met: settlements take theirs out of the index when
 * they are stored), and what the nights requested is what the tables show released.
 */
class MultiNightTest {

    @TempDir
    Path workDir;

    @TempDir
    Path dump;

    @Test
    void threeNightsOnTheSameTablesEachReadOnlyWhatBecameDue() throws Exception {
        WindowConfig config = WindowConfig.defaults();
        WindowId last = config.latestStartedWindow(Clock.systemUTC().instant());
        List<String> console = new ArrayList<>();
        MultiNightRun.Report report = new MultiNightRun(new MultiNightRun.Options(new WindowId(last.date().minusDays(2)), 3, config, 40, 11,
                Optional.of(dump), workDir), console::add, Clock.systemUTC()).run();

        assertThat(report.nights()).hasSize(3);
        for (RunReport night : report.nights()) {
            assertThat(night.execution().status()).as(night.window()).isEqualTo("SUCCEEDED");
            assertThat(night.invariants()).as(night.window()).containsOnlyKeys("I1", "I2", "I3", "I4", "I5").doesNotContainValue(false);
            assertThat(night.counts().skippedSettled()).as(night.window() + ": settled history met again").isZero();
            assertThat(night.counts().candidatesRead()).as(night.window() + ": each item read was decided").isEqualTo(night.counts().candidates());
            assertThat(night.counts().candidatesRead()).as(night.window() + ": a day's due authorisations").isPositive();
        }
        assertThat(report.invariants()).doesNotContainValue(false);
        assertThat(report.totals().releaseRequested()).as("the nights' releases are what the tables show released")
                .isEqualTo(report.totals().releasedInTables());
        assertThat(Files.readAllLines(dump.resolve(MultiNightRun.PLATFORM_EVENTS))).hasSize((int) report.totals().published());
    }
}
