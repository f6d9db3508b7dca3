package com.payments.reconciler.harness.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.cli.ExitCodes;
import com.payments.reconciler.harness.HarnessCli;
import com.payments.reconciler.workflow.Json;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The fault campaign as CI runs it, through the CLI: a fenced campaign that must find nothing, and the
 * unfenced negative control that must find stale commits (I1) — proof that the campaign can fail, and
 * fails for the reason the fence exists. Sized to fit CI (see docs/chaos.md for the measured cost per
 * schedule); the 1,000-schedule figures are in docs/chaos.md.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChaosCampaignTest {

    /** Schedules per campaign: with seed 1 they inject every fault kind (asserted below). */
    static final int SCHEDULES = 15;
    static final String SEED = "1";
    /**
     * Above the default rates: at 15 schedules the default 1 % throttling of each form may inject none of one
     * (chosen when draws hashed request content, owner UUIDs included; they now come from seeded streams).
     */
    static final String FAULTS = "ddb-conflict=0.25,ddb-throttle=0.06,ddb-lost-response=0.02";
    /** Every kind of fault the campaign injects, as the report names them. */
    static final List<String> EVERY_FAULT_KIND = List.of(
            "gc-pause-past-lease", "rerun-racing", "scheduler-duplicate", "lambda-commit-then-timeout",
            "ddb-transaction-conflict", "ddb-throttling", "ddb-provisioned-throughput-exceeded", "ddb-response-lost",
            "provider-perform-then-drop", "provider-error-5xx", "provider-slow", "settlement-during-run",
            // provider quota pressure and Lambda throttling
            "provider-429-burst", "provider-quota-lowered", "lambda-throttled");

    private static final Path BUILD = Path.of(System.getProperty("reconciler.target"));

    private Run fenced;
    private Run unfenced;

    record Run(int exit, String out, String err, ChaosReport report) {
    }

    static Run chaos(String... args) throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = HarnessCli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
        ChaosReport report = exit == ExitCodes.OK || exit == ExitCodes.RUN_FAILED
                ? Json.mapper().readValue(out.toString(), ChaosReport.class) : null;
        return new Run(exit, out.toString(), err.toString(), report);
    }

    @BeforeAll
    void runBothCampaigns() throws Exception {
        fenced = chaos("chaos", "--schedules", Integer.toString(SCHEDULES), "--seed", SEED, "--faults", FAULTS, "--json",
                "--work-dir", BUILD.resolve("chaos-fenced").toString());
        unfenced = chaos("chaos", "--schedules", Integer.toString(SCHEDULES), "--seed", SEED, "--faults", FAULTS, "--json", "--unfenced",
                "--work-dir", BUILD.resolve("chaos-unfenced").toString());
        System.out.printf("chaos fenced: %d schedules in %d ms (median schedule %d ms), faults %s%n", SCHEDULES,
                fenced.report().wallTimeMillis(), fenced.report().medianScheduleMillis(), fenced.report().faultsInjected());
        System.out.printf("chaos unfenced: %d schedules in %d ms (median schedule %d ms), violations %s%n", SCHEDULES,
                unfenced.report().wallTimeMillis(), unfenced.report().medianScheduleMillis(), unfenced.report().violations());
    }

    @Test
    void fencedCampaignFindsNoViolationUnderEveryKindOfFault() {
        ChaosReport r = fenced.report();
        assertThat(fenced.exit()).as(fenced.err()).isEqualTo(ExitCodes.OK);
        assertThat(r.fenced()).isTrue();
        assertThat(r.schedules()).isEqualTo(SCHEDULES);
        assertThat(r.violations()).containsOnlyKeys("I1", "I2", "I3", "I4", "I5").allSatisfy((invariant, n) -> assertThat(n).as(invariant).isZero());
        assertThat(r.failures()).as("failures: %s", r.failures()).isEmpty();
        assertThat(r.errors()).as("every schedule ran to a verdict: %s", r.errors()).isEmpty();
        assertThat(r.faultsInjected()).containsKeys(EVERY_FAULT_KIND.toArray(String[]::new));
        assertThat(r.faultsInjected().values()).allSatisfy(n -> assertThat(n).isPositive());
        assertThat(r.executionsSuperseded()).as("the frozen workers were fenced out").isPositive();
    }

    @Test
    void unfencedControlFindsStaleCommitsWithASeedAndATrace() {
        ChaosReport r = unfenced.report();
        assertThat(unfenced.exit()).isEqualTo(ExitCodes.RUN_FAILED);
        assertThat(r.fenced()).isFalse();
        // --unfenced is a row of the mutant table now, an interceptor in the harness rather than a switch in the handler.
        assertThat(r.mutant()).isEqualTo(Mutant.NO_LEASE_CHECK.cliName());
        assertThat(r.mutantEffects()).isPositive();
        // The negative control's stale workers race the new leader; an engine error there is reported, never hidden.
        assertThat(r.errors()).allSatisfy(e -> {
            assertThat(e.schedule()).startsWith("seed " + e.seed() + ": ");
            assertThat(e.trace()).anySatisfy(line -> assertThat(line).startsWith("ERROR "));
        });
        assertThat(r.violations().get("I1")).as("stale commits after a takeover").isPositive();
        assertThat(r.faultsInjected()).containsKeys(EVERY_FAULT_KIND.toArray(String[]::new));
        assertThat(r.failures()).isNotEmpty().allSatisfy(f -> {
            assertThat(f.seed()).isNotZero();
            assertThat(f.schedule()).startsWith("seed " + f.seed() + ": ");
            assertThat(f.violations()).isNotEmpty();
            assertThat(f.trace()).anySatisfy(line -> assertThat(line).startsWith("scheduler delivers the occurrence"));
        });
        // The right reason: each stale commit is a frozen worker's write applied after the rerun's takeover.
        assertThat(r.failures()).filteredOn(f -> f.violations().stream().anyMatch(v -> v.startsWith("I1")))
                .isNotEmpty()
                .allSatisfy(f -> {
                    assertThat(f.schedule()).contains("GC pause");
                    assertThat(f.trace()).anySatisfy(line -> assertThat(line).contains("frozen worker resumes"));
                    assertThat(f.violations()).anySatisfy(v -> assertThat(v).contains("carrying epoch 1 applied after the takeover to epoch 2"));
                });
    }

    @Test
    void jsonIsExactlyOneObjectOnStdout() throws Exception {
        assertThat(fenced.out().strip().lines()).hasSize(1);
        assertThat(Json.mapper().readTree(fenced.out()).isObject()).isTrue();
        assertThat(fenced.err()).contains("schedule 1/" + SCHEDULES);
    }

    @Test
    void aFailingScheduleIsReproducibleFromItsSeed() throws Exception {
        ChaosReport.Failure failure = unfenced.report().failures().getFirst();
        Run replay = chaos("chaos", "--replay", Long.toString(failure.seed()), "--unfenced", "--faults", FAULTS, "--json",
                "--work-dir", BUILD.resolve("chaos-replay").toString());

        assertThat(replay.exit()).isEqualTo(ExitCodes.RUN_FAILED);
        assertThat(replay.report().schedules()).isEqualTo(1);
        assertThat(replay.report().failures()).singleElement().satisfies(again -> {
            assertThat(again.seed()).isEqualTo(failure.seed());
            assertThat(again.schedule()).isEqualTo(failure.schedule());
            assertThat(invariants(again.violations())).isEqualTo(invariants(failure.violations()));
        });
    }

    @Test
    void aScheduleIsAPureFunctionOfItsSeedAndCampaignsDoNotShareSchedules() {
        List<Long> seeds = ChaosCampaign.scheduleSeeds(1, SCHEDULES);
        assertThat(ChaosCampaign.scheduleSeeds(1, SCHEDULES)).isEqualTo(seeds);
        for (long seed : seeds) {
            assertThat(ChaosSchedule.generate(seed)).isEqualTo(ChaosSchedule.generate(seed));
            assertThat(ChaosSchedule.generate(seed).describe()).startsWith("seed " + seed + ": ");
        }
        assertThat(ChaosCampaign.scheduleSeeds(2, SCHEDULES)).doesNotContainAnyElementsOf(seeds);
    }

    private static List<String> invariants(List<String> violations) {
        return violations.stream().map(v -> v.substring(0, v.indexOf(':'))).distinct().sorted().toList();
    }
}
