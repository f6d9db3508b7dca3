package com.payments.reconciler.harness.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.local.faults.FaultSpec;
import com.payments.reconciler.workflow.LambdaFunction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code --replay SEED} reproduces the faults that took effect: one schedule replayed twice meets, in every stream
 * (DynamoDB: per caller and item; provider: per operation id), the same faults in the same order.
 */
class ChaosReplayTest {

    private static final Path BUILD = Path.of(System.getProperty("reconciler.target"));
    /** Well above the defaults, so one schedule meets every DynamoDB kind; item conflicts off (they are real overlaps, not draws). */
    private static final FaultSpec RATES = FaultSpec.parse("ddb-conflict=0.3,ddb-throttle=0.1,ddb-lost-response=0.05");

    @Test
    void aScheduleReplayedTwiceMeetsTheSameFaultsInEveryStreamAndAnotherScheduleDoesNot() throws Exception {
        // A schedule whose executions are ordered by latches, not by timing: no racing rerun (docs/chaos.md, Reproducing).
        List<Long> candidates = ChaosCampaign.scheduleSeeds(1, 200).stream()
                .filter(seed -> {
                    ChaosSchedule s = ChaosSchedule.generate(seed);
                    return s.dynamoFaults() && !s.racingRerun() && s.providerFaults() > 0;
                }).limit(2).toList();
        long seed = candidates.get(0);

        Map<String, List<String>> first = replay(seed, "replay-a");
        Map<String, List<String>> second = replay(seed, "replay-b");
        Map<String, List<String>> other = replay(candidates.get(1), "replay-c");

        assertThat(first.keySet()).as("faults took effect in DynamoDB streams and at the provider")
                .anyMatch(k -> k.startsWith("ddb ")).anyMatch(k -> k.startsWith("provider "));
        assertThat(second).as("seed " + seed + " replayed").isEqualTo(first);
        assertThat(other).as("the comparison tells another schedule apart").isNotEqualTo(first);
    }

    @Test
    void theCallerOfAnInvocationIsItsExecutionFunctionAndShardNeverItsOwnerUuid() {
        byte[] payload = ("{\"lease\":{\"ownerId\":\"reconcile-2026-12-03-rerun-1/5f0c7d0e-1111-4222-8333-944445555666\",\"epoch\":2},"
                + "\"shard\": 3}").getBytes(StandardCharsets.UTF_8);
        assertThat(ChaosCampaign.caller(LambdaFunction.DELIVER_COMMANDS, payload)).isEqualTo("reconcile-2026-12-03-rerun-1/DeliverCommands/3");
        assertThat(ChaosCampaign.caller(LambdaFunction.START_WINDOW, "{}".getBytes(StandardCharsets.UTF_8))).isEqualTo("-/StartWindow/-");
    }

    @Test
    void aRerunRacesOnlyIfTheExecutionsOverlapped() {
        Instant t0 = Instant.parse("2026-12-03T02:00:00Z");
        assertThat(ChaosCampaign.overlapped(t0, t0.plusSeconds(10), t0.plusSeconds(5), t0.plusSeconds(20))).isTrue();
        assertThat(ChaosCampaign.overlapped(t0, t0.plusSeconds(30), t0.plusSeconds(5), t0.plusSeconds(20))).isTrue();
        assertThat(ChaosCampaign.overlapped(t0, t0.plusSeconds(10), t0.plusSeconds(10), t0.plusSeconds(20)))
                .as("the rerun started as the first stopped").isFalse();
        assertThat(ChaosCampaign.overlapped(t0.plusSeconds(30), t0.plusSeconds(40), t0, t0.plusSeconds(20))).isFalse();
    }

    private static Map<String, List<String>> replay(long seed, String dir) throws InterruptedException {
        ChaosReport report = new ChaosCampaign(BUILD.resolve(dir), true, RATES, line -> { }).replay(seed);
        assertThat(report.clean()).as("seed " + seed + ": " + report.failures() + report.errors()).isTrue();
        return report.faultSequence();
    }
}
