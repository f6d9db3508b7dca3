package com.payments.reconciler.mutation;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.mutation.MutationSurvivorCheck.Mutant;
import com.payments.reconciler.mutation.MutationSurvivorCheck.Result;
import com.payments.reconciler.mutation.MutationSurvivorCheck.Survivor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The survivor check on fixture reports, so it is judged in every {@code mvn verify} without PIT having run. The
 * known-bad input is real: {@code report-weakened-test.xml} is PIT's report over {@code RetryAfter} with
 * {@code PacingBoundsTest}'s rows above the one-hour cap taken out (docs/mutation.md, "The check can fail"): the cap
 * dropped survives, and the check fails naming it.
 */
class MutationSurvivorCheckTest {

    @TempDir
    Path temp;

    private record Run(int exit, String output) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int exit = MutationSurvivorCheck.run(args, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return new Run(exit, bytes.toString(StandardCharsets.UTF_8));
    }

    private static Path fixture(String name) {
        try {
            return Path.of(MutationSurvivorCheckTest.class.getResource("/mutation/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aReportWhoseSurvivorsAreAllListedPassesAndPrintsTheScore() {
        Run run = run("--report", fixture("report-listed.xml").toString(), "--list", fixture("survivors.md").toString());
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).contains("mutation score: 5 mutations, 2 killed, 2 survived, 1 without coverage; "
                + "test strength 2/4 = 50.0 %").contains("every survivor is listed");
    }

    @Test
    void aWeakenedTestsSurvivorThatTheListDoesNotNameFailsTheCheck() {
        Run run = run("--report", fixture("report-weakened-test.xml").toString(), "--list", fixture("survivors.md").toString());
        assertThat(run.exit()).as(run.output()).isEqualTo(1);
        assertThat(run.output()).contains("FAIL a surviving mutant docs/mutation.md does not list: "
                + "com.payments.reconciler.delivery.RetryAfter.min line 44 RemoveConditionalMutator_ORDER_ELSE: "
                + "removed conditional - replaced comparison check with false");
        assertThat(run.output().lines().filter(line -> line.contains("FAIL"))).as("the listed survivors pass").hasSize(1);
    }

    @Test
    void aListedSurvivorThatNoLongerSurvivesFailsTheCheck() throws IOException {
        Path report = temp.resolve("mutations.xml");
        Files.writeString(report, Files.readString(fixture("report-listed.xml"))
                .replace("detected='false' status='SURVIVED'", "detected='true' status='KILLED'"));
        Run run = run("--report", report.toString(), "--list", fixture("survivors.md").toString());
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.output()).contains("FAIL docs/mutation.md lists a survivor the report does not have: "
                + "com.payments.reconciler.delivery.RetryAfter.parse ConditionalsBoundaryMutator: changed conditional boundary");
    }

    @Test
    void twoAlikeSurvivorsNeedTwoRows() throws IOException {
        List<Mutant> two = List.of(survivor(31), survivor(40));
        Result result = MutationSurvivorCheck.check(two, MutationSurvivorCheck.readList(fixture("survivors.md")));
        assertThat(result.unlisted()).containsExactly(survivor(40));
    }

    private static Mutant survivor(int line) {
        return new Mutant("SURVIVED", "com.payments.reconciler.delivery.RetryAfter", "parse", line, "ConditionalsBoundaryMutator",
                "changed conditional boundary");
    }

    @Test
    void aStrengthBelowTheFloorFailsTheCheck() {
        Run run = run("--report", fixture("report-listed.xml").toString(), "--list", fixture("survivors.md").toString(),
                "--min-strength", "90");
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.output()).contains("FAIL test strength 50.0 % is below 90.0 %");
    }

    @Test
    void aReportOlderThanTheBuildIsRefused() throws IOException {
        Path report = temp.resolve("mutations.xml");
        Files.copy(fixture("report-listed.xml"), report);
        Files.setLastModifiedTime(report, FileTime.from(Instant.parse("2026-01-01T00:00:00Z")));
        Run run = run("--report", report.toString(), "--list", fixture("survivors.md").toString(), "--build-start", "2026-01-01T00:00:01Z");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.output()).contains("is older than this build");
    }

    @Test
    void badUsageAndUnreadableInputsExitTwoNamingTheProblem() throws IOException {
        String list = fixture("survivors.md").toString();
        assertThat(run()).extracting(Run::exit).isEqualTo(2);
        assertThat(run("--report", fixture("report-listed.xml").toString()).output()).contains("--report and --list are required");
        assertThat(run("--verbose", "yes").output()).contains("unknown flag --verbose");
        assertThat(run("--report").output()).contains("--report needs a value");
        assertThat(run("--report", "x", "--list", list, "--min-strength", "ninety").output())
                .contains("--min-strength must be a percentage such as 90, was 'ninety'");
        assertThat(run("--report", temp.resolve("absent.xml").toString(), "--list", list))
                .isEqualTo(new Run(2, "mutation-check: no PIT report at " + temp.resolve("absent.xml") + " (run PIT first: bin/test --mutation)\n"));

        Path notPit = temp.resolve("surefire.xml");
        Files.writeString(notPit, "<testsuite/>");
        Run wrongRoot = run("--report", notPit.toString(), "--list", list);
        assertThat(wrongRoot.exit()).isEqualTo(2);
        assertThat(wrongRoot.output()).contains("its root is <testsuite>, not <mutations>");

        Path blankReason = temp.resolve("blank.md");
        Files.writeString(blankReason, Files.readString(fixture("survivors.md")).replace("nine digits are capped by `min` as ten are: the same hour", " "));
        Run blank = run("--report", fixture("report-listed.xml").toString(), "--list", blankReason.toString());
        assertThat(blank.exit()).isEqualTo(2);
        assertThat(blank.output()).contains("the survivor's reason is blank");

        Path noSection = temp.resolve("none.md");
        Files.writeString(noSection, "# nothing here\n");
        assertThat(run("--report", fixture("report-listed.xml").toString(), "--list", noSection.toString()).output())
                .contains("has no \"## Surviving mutants\" section");
    }

    /** The project's own list reads: every row has its six cells and a reason, and names a class of this project. */
    @Test
    void theProjectsSurvivorListReads() throws IOException {
        Path doc = Path.of(System.getProperty("reconciler.repositoryRoot", "..")).resolve("docs/mutation.md");
        List<Survivor> listed = MutationSurvivorCheck.readList(doc);
        assertThat(listed).allSatisfy(s -> {
            assertThat(s.mutatedClass()).startsWith("com.payments.reconciler.");
            assertThat(s.mutator()).matches("[A-Za-z]+Mutator(_[A-Z_]+)?");
        });
        List<Mutant> asSurvivors = listed.stream()
                .map(s -> new Mutant("SURVIVED", s.mutatedClass(), s.method(), 1, s.mutator(), s.description())).toList();
        Result result = MutationSurvivorCheck.check(asSurvivors, listed);
        assertThat(result.unlisted()).isEmpty();
        assertThat(result.stale()).isEmpty();
    }
}
