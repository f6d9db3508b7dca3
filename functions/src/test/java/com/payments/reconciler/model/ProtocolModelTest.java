package com.payments.reconciler.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.model.SpinModelChecker.Verification;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The lease and fenced-write protocol, model-checked with spin (docs/model/lease.pml, 3 workers,
 * 2 authorisations, up to 3 takeovers): the fenced protocol has no assertion violation and no invalid end
 * state over its whole state space; without the fence, and with the "highest epoch seen per authorisation"
 * alternative, spin finds a trail in which a stale worker commits (I1). Mutants that drop one other guard
 * each break the invariant that guard protects, so no assertion is vacuous.
 *
 * <p>Needs {@code spin} and {@code gcc} on PATH; without them every test here fails, naming the packages.
 */
class ProtocolModelTest {

    private static final String I1 = "I1_no_stale_commit";
    private static final Pattern FAILED_ASSERTION = Pattern.compile("spin: text of failed assertion: assert\\((\\w+)\\)");
    // The model prints this line, and only in a replay, just before the I1 assertion fails.
    private static final Pattern STALE_COMMIT = Pattern.compile(
            "I1 violated: worker (\\d+) committed authorisation (\\d+) with epoch (\\d+) after the takeover to epoch (\\d+)"
                    + "(?:; lastEpoch of authorisation \\d+ was (\\d+))?");

    private static SpinModelChecker spin;

    @BeforeAll
    static void locateTools() {
        spin = SpinModelChecker.locate(Path.of(System.getProperty("reconciler.target")));
    }

    // FENCED is the protocol as built; REBUMP_ON_RETRY is the acquire condition as the design words it, which
    // bumps the epoch again on a lost-response retry: both must hold.
    @ParameterizedTest(name = "{0} verifies")
    @EnumSource(value = ModelVariant.class, names = {"FENCED", "REBUMP_ON_RETRY"})
    void fencedProtocolHasNoViolationAndNoInvalidEndStateInTheWholeStateSpace(ModelVariant variant) throws Exception {
        Verification run = spin.verify(variant);
        PanReport report = run.report();
        System.out.println("spin " + variant + " (" + run.compileCommand() + "): " + report.figures());

        assertThat(report.exhaustive())
                .as("a full state-space search checking assertions and invalid end states, not truncated %s; output in %s",
                        report.truncations(), run.directory())
                .isTrue();
        assertThat(report.errors()).as(run.output()).isZero();
        assertThat(run.wroteTrail()).as("no counterexample trail").isFalse();
        // Every statement of the worker is reachable -- each commit, fenced refusal, renew and release -- so the
        // assertions on the commit path were evaluated, not skipped by an over-constrained model.
        assertThat(report.unreachedWorkerStates()).as(run.output()).contains(0);
    }

    @Test
    void withoutTheFenceAStaleWorkerCommitsAfterATakeover() throws Exception {
        StaleCommit commit = staleCommitCounterexample(ModelVariant.UNFENCED);

        assertThat(commit.epoch()).isLessThan(commit.takeoverEpoch());
    }

    @Test
    void highestEpochSeenPerAuthorisationLetsAStaleWorkerCommitWhatTheNewLeaderHasNotTouched() throws Exception {
        StaleCommit commit = staleCommitCounterexample(ModelVariant.HIGHEST_EPOCH_SEEN);

        assertThat(commit.epoch()).isLessThan(commit.takeoverEpoch());
        assertThat(commit.lastEpochOnItem())
                .as("the authorisation's highest epoch seen, when the stale write passed it")
                .isNotNull()
                .isLessThan(commit.takeoverEpoch())
                .isLessThanOrEqualTo(commit.epoch());
    }

    @ParameterizedTest(name = "{0} violates {1}")
    @CsvSource({
            "NO_SETTLEMENT_CHECK, I3_not_settled_at_decision",
            "UNGUARDED_COMMAND, I2_one_command_per_authorisation",
            "DELETE_ON_RELEASE, I5_epoch_never_decreases"})
    void droppingAGuardBreaksTheInvariantItProtects(ModelVariant mutant, String invariant) throws Exception {
        Verification run = counterexample(mutant);

        assertThat(run.report().violatedAssertion()).contains(invariant);
        assertThat(failedAssertionInReplay(run)).isEqualTo(invariant);
    }

    /** The stale commit a variant's trail shows, as the model printed it during the replay. */
    record StaleCommit(int worker, int authorisation, int epoch, int takeoverEpoch, Integer lastEpochOnItem) {
    }

    private static StaleCommit staleCommitCounterexample(ModelVariant variant) throws Exception {
        Verification run = counterexample(variant);
        assertThat(run.report().violatedAssertion()).as(run.output()).contains(I1);
        String replay = spin.replay(run);
        assertThat(failedAssertion(replay)).as(replay).isEqualTo(I1);
        Matcher line = STALE_COMMIT.matcher(replay);
        assertThat(line.find()).as("the replay prints the stale commit:\n%s", replay).isTrue();
        StaleCommit commit = new StaleCommit(Integer.parseInt(line.group(1)), Integer.parseInt(line.group(2)),
                Integer.parseInt(line.group(3)), Integer.parseInt(line.group(4)),
                line.group(5) == null ? null : Integer.valueOf(line.group(5)));
        System.out.println("spin " + variant + " counterexample: " + line.group() + " (trail in " + run.directory() + ")");
        return commit;
    }

    private static Verification counterexample(ModelVariant variant) throws Exception {
        Verification run = spin.verify(variant);
        System.out.println("spin " + variant + " (" + run.compileCommand() + "): " + run.report().figures());
        assertThat(run.report().errors()).as(run.output()).isGreaterThanOrEqualTo(1);
        assertThat(run.wroteTrail()).as("pan wrote %s in %s", SpinModelChecker.TRAIL_FILE, run.directory()).isTrue();
        return run;
    }

    private static String failedAssertionInReplay(Verification run) throws Exception {
        return failedAssertion(spin.replay(run));
    }

    private static String failedAssertion(String replay) {
        Matcher matcher = FAILED_ASSERTION.matcher(replay);
        assertThat(matcher.find()).as("the replay reaches a failed assertion:\n%s", replay).isTrue();
        return matcher.group(1);
    }
}
