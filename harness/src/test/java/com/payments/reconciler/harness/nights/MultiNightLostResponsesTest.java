package com.payments.reconciler.harness.nights;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.harness.report.RunReport;
import com.payments.reconciler.local.provider.ProviderFaults;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.workflow.ProviderKeyRetention;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code local --nights N --provider-key-retention PT24H --scenario provider-lost-response}, small: one simulated provider
 * for the whole series, keeping keys 24 h on the moved clock. On night 1 it performs the first release of a few commands
 * and loses the answers; they are parked and requeued before night 3, the first night that starts 24 h or more after
 * those first attempts, when the provider no longer knows their keys: the status lookup must say they were released.
 * Three nights are enough (the done-when command runs four).
 */
class MultiNightLostResponsesTest {

    private static final int PER_DAY = 40;
    private static final long SEED = 11;

    @TempDir
    Path workDir;

    private MultiNightRun.Report run(ProviderKeyRetention nightsTrust, List<String> console) {
        WindowConfig config = WindowConfig.defaults();
        WindowId last = config.latestStartedWindow(Clock.systemUTC().instant());
        return new MultiNightRun(new MultiNightRun.Options(new WindowId(last.date().minusDays(2)), 3, config, PER_DAY, SEED,
                Optional.empty(), workDir, List.of(), ProviderFaults.NONE, true, ProviderKeyRetention.DEFAULT, nightsTrust,
                MultiNightRun.NightScenario.NONE),
                console::add, Clock.systemUTC()).run();
    }

    @Test
    void answersLostOnNightOneAreDecidedByTheStatusLookupAfterTheProviderForgotTheirKeys() {
        List<String> console = new ArrayList<>();
        MultiNightRun.Report report = run(ProviderKeyRetention.DEFAULT, console);

        LostResponses.Outcome lost = report.lostResponses();
        assertThat(lost).as(String.join("\n", console)).isNotNull();
        assertThat(lost.operations()).hasSize(LostResponses.COUNT);
        assertThat(lost.requeuedBeforeNight()).as("the first night starting 24 h or more after night 1's first attempts").isEqualTo(3);
        assertThat(lost.statuses().values()).containsOnly(ReleaseCommands.STATUS_DELIVERED);
        assertThat(lost.releasesPerformed().values()).as("each performed once, on night 1").containsOnly(1);
        assertThat(lost.eachReleasedOnce()).isTrue();
        assertThat(report.providerKeys().lookups().get(2)).as("night 3 asks the provider about each").isGreaterThanOrEqualTo(LostResponses.COUNT);
        assertThat(report.providerKeys().lookupsTotal()).isEqualTo(report.providerKeys().lookups().stream().mapToLong(Long::longValue).sum());
        assertThat(report.providerKeys().forgottenKeysTotal()).as("no request went under a forgotten key").isZero();
        for (RunReport night : report.nights()) {
            assertThat(night.execution().status()).as(night.window()).isEqualTo("SUCCEEDED");
            assertThat(night.invariants()).as(night.window()).doesNotContainValue(false);
        }
        assertThat(report.invariants()).doesNotContainValue(false);
        assertThat(report.succeeded()).isTrue();
    }

    /**
     * Known-bad: the nights trust the provider to keep keys far longer than it does, so the lookup is never asked (main's
     * delivery before the lookup). Night 3 re-sends the lost releases blindly; the provider has forgotten the keys, takes
     * each as a new request for a hold it released and refuses it: the commands end REJECTED although their own first
     * requests released the holds, and the night's I4 says so.
     */
    @Test
    void withTheLookupNeverAskedTheSameNightsRecordTheReleasedHoldsAsRejected() {
        List<String> console = new ArrayList<>();
        MultiNightRun.Report report = run(new ProviderKeyRetention(ProviderKeyRetention.MAX), console);

        LostResponses.Outcome lost = report.lostResponses();
        assertThat(lost).as(String.join("\n", console)).isNotNull();
        assertThat(lost.requeuedBeforeNight()).isEqualTo(3);
        assertThat(report.providerKeys().lookupsTotal()).isZero();
        assertThat(report.providerKeys().forgottenKeys().get(2)).isGreaterThanOrEqualTo(LostResponses.COUNT);
        assertThat(lost.statuses().values()).containsOnly(ReleaseCommands.STATUS_REJECTED);
        assertThat(lost.eachReleasedOnce()).isFalse();
        assertThat(report.nights().get(2).invariants()).containsEntry("I4", false);
        assertThat(report.succeeded()).isFalse();
    }
}
