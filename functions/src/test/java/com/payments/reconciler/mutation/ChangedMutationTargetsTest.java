package com.payments.reconciler.mutation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.payments.reconciler.mutation.ChangedMutationTargets.Baseline;
import com.payments.reconciler.mutation.ChangedMutationTargets.Change;
import com.payments.reconciler.mutation.ChangedMutationTargets.Kind;
import com.payments.reconciler.mutation.ChangedMutationTargets.PitConfig;
import com.payments.reconciler.mutation.ChangedMutationTargets.Selection;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The CI step's selection (docs/mutation.md, "How CI runs it"): a table of diffs since the baseline and the target
 * classes PIT then mutates; the fallbacks to the whole set on a real git repository (no baseline, a commit missing
 * from a shallow clone); and the known-bad proof: a weakened target test selects the class it tested, and the survivor
 * check on the CI step's report of that run (PIT's own, kept as a fixture) fails naming the survivor.
 */
class ChangedMutationTargetsTest {

    private static final String P = "com.payments.reconciler.";
    private static final String MAIN = ChangedMutationTargets.MAIN + "com/payments/reconciler/";
    private static final String TESTS = ChangedMutationTargets.TESTS + "com/payments/reconciler/";
    private static final List<String> MUTATORS = List.of("DEFAULTS", "REMOVE_CONDITIONALS");

    /** The pom's configuration at the baseline: PIT's globs, as the real one writes them, and its target tests. */
    private static final PitConfig AT_BASE = new PitConfig(
            List.of(P + "reconcile.BatchRounds*", P + "reconcile.Cancellations*", P + "delivery.RetryAfter*",
                    P + "delivery.SendingRate*", P + "window.WindowId*"),
            List.of(P + "reconcile.BatchRoundsTest", P + "delivery.PacingTest", P + "delivery.PacingBoundsTest",
                    P + "window.WindowNamingProperties"),
            MUTATORS);

    /** What each target test covered in the baseline's full run. */
    private static final Baseline BASELINE = new Baseline("0123456789abcdef0123456789abcdef01234567", Map.of(
            P + "reconcile.BatchRoundsTest", Set.of(P + "reconcile.BatchRounds", P + "reconcile.Cancellations"),
            P + "delivery.PacingTest", Set.of(P + "delivery.RetryAfter", P + "delivery.SendingRate"),
            P + "delivery.PacingBoundsTest", Set.of(P + "delivery.RetryAfter"),
            P + "window.WindowNamingProperties", Set.of(P + "window.WindowId")));

    private static final Set<String> MAIN_CLASSES = Set.of(P + "reconcile.BatchRounds", P + "reconcile.Cancellations",
            P + "reconcile.FencedWriter", P + "delivery.RetryAfter", P + "delivery.SendingRate", P + "window.WindowId",
            P + "delivery.RetryAfterJitter", P + "delivery.FeedCompleteness");

    /** Test sources: a target test, the fixture it uses, the fixture that fixture uses, an engine test. */
    private static final Map<String, String> TEST_SOURCES = Map.of(
            P + "reconcile.BatchRoundsTest", "class BatchRoundsTest { BatchRounds rounds; Object r = CancellationReasons.of(); }",
            P + "reconcile.CancellationReasons", "final class CancellationReasons { static Object of() { return ReasonImages.empty(); } }",
            P + "reconcile.ReasonImages", "final class ReasonImages { static Object empty() { return null; } }",
            P + "delivery.PacingTest", "class PacingTest { RetryAfter r; SendingRate s; }",
            P + "delivery.PacingBoundsTest", "class PacingBoundsTest { RetryAfter r; }",
            P + "window.WindowNamingProperties", "class WindowNamingProperties { WindowId w; }",
            P + "reconcile.LeaseStoreTest", "class LeaseStoreTest { /* against moto */ }",
            P + "delivery.FeedCompletenessTest", "class FeedCompletenessTest { FeedCompleteness rule; }",
            P + "delivery.WiringTest", "class WiringTest { /* names no target class */ }");

    private static Selection select(PitConfig now, List<Change> changes) {
        return ChangedMutationTargets.select(now, AT_BASE, BASELINE, changes, MAIN_CLASSES, TEST_SOURCES.keySet(),
                name -> Optional.ofNullable(TEST_SOURCES.get(name)));
    }

    private static Change modified(String path) {
        return new Change(Kind.MODIFIED, path);
    }

    private static PitConfig withClasses(String... added) {
        List<String> globs = new ArrayList<>(AT_BASE.targetClasses());
        globs.addAll(List.of(added));
        return new PitConfig(globs, AT_BASE.targetTests(), MUTATORS);
    }

    private static PitConfig withTests(List<String> tests) {
        return new PitConfig(AT_BASE.targetClasses(), tests, MUTATORS);
    }

    private static List<String> plus(List<String> list, String added) {
        List<String> copy = new ArrayList<>(list);
        copy.add(added);
        return copy;
    }

    static Stream<Arguments> diffs() {
        return Stream.of(
                Arguments.of("nothing changed", AT_BASE, List.of(), Set.of()),
                Arguments.of("a target class changed", AT_BASE, List.of(modified(MAIN + "delivery/RetryAfter.java")),
                        Set.of("delivery.RetryAfter")),
                Arguments.of("a class outside the target set changed", AT_BASE,
                        List.of(modified(MAIN + "reconcile/FencedWriter.java")), Set.of()),
                Arguments.of("a new class a target glob matches", AT_BASE,
                        List.of(new Change(Kind.ADDED, MAIN + "delivery/RetryAfterJitter.java")), Set.of("delivery.RetryAfterJitter")),
                Arguments.of("a new class added to the target set with its glob", withClasses(P + "delivery.FeedCompleteness*"),
                        List.of(new Change(Kind.ADDED, MAIN + "delivery/FeedCompleteness.java")), Set.of("delivery.FeedCompleteness")),
                Arguments.of("an unchanged class that joined the target set", withClasses(P + "reconcile.FencedWriter"),
                        List.of(), Set.of("reconcile.FencedWriter")),
                Arguments.of("a deleted target class (nothing left to mutate)", AT_BASE,
                        List.of(new Change(Kind.DELETED, MAIN + "reconcile/Cancellations.java")), Set.of()),
                Arguments.of("a target test changed: what it covered at the baseline", AT_BASE,
                        List.of(modified(TESTS + "delivery/PacingTest.java")), Set.of("delivery.RetryAfter", "delivery.SendingRate")),
                Arguments.of("a fixture of a target test changed", AT_BASE,
                        List.of(modified(TESTS + "reconcile/CancellationReasons.java")),
                        Set.of("reconcile.BatchRounds", "reconcile.Cancellations")),
                Arguments.of("a fixture of that fixture changed", AT_BASE,
                        List.of(modified(TESTS + "reconcile/ReasonImages.java")),
                        Set.of("reconcile.BatchRounds", "reconcile.Cancellations")),
                Arguments.of("a test no target test uses changed", AT_BASE,
                        List.of(modified(TESTS + "reconcile/LeaseStoreTest.java")), Set.of()),
                Arguments.of("a new target test: the target classes its source names",
                        new PitConfig(withClasses(P + "delivery.FeedCompleteness*").targetClasses(),
                                plus(AT_BASE.targetTests(), P + "delivery.FeedCompletenessTest"), MUTATORS),
                        List.of(new Change(Kind.ADDED, TESTS + "delivery/FeedCompletenessTest.java")),
                        Set.of("delivery.FeedCompleteness")),
                Arguments.of("a target test left the set: what it covered at the baseline",
                        withTests(List.of(P + "reconcile.BatchRoundsTest", P + "delivery.PacingTest", P + "window.WindowNamingProperties")),
                        List.of(new Change(Kind.DELETED, TESTS + "delivery/PacingBoundsTest.java")), Set.of("delivery.RetryAfter")),
                Arguments.of("a class and a test changed: both", AT_BASE,
                        List.of(modified(MAIN + "window/WindowId.java"), modified(TESTS + "reconcile/BatchRoundsTest.java"),
                                modified("functions/src/main/resources/logback.xml")),
                        Set.of("window.WindowId", "reconcile.BatchRounds", "reconcile.Cancellations")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("diffs")
    void aDiffSelectsTheTargetClassesItCanChange(String row, PitConfig now, List<Change> changes, Set<String> expected) {
        Selection selection = select(now, changes);
        assertThat(selection.whole()).as(selection.why()).isFalse();
        assertThat(selection.classes()).as(selection.why())
                .containsExactlyInAnyOrderElementsOf(expected.stream().map(c -> P + c).toList());
        assertThat(selection.why()).contains("since the baseline 0123456789ab")
                .contains(expected.isEmpty() ? "PIT not run" : "PIT over " + expected.size() + " target class");
    }

    @Test
    void aNewTargetTestThatNamesNoTargetClassRunsTheWholeSet() {
        Selection selection = select(withTests(plus(AT_BASE.targetTests(), P + "delivery.WiringTest")),
                List.of(new Change(Kind.ADDED, TESTS + "delivery/WiringTest.java")));
        assertThat(selection.whole()).isTrue();
        assertThat(selection.why()).contains("WiringTest joined the target tests")
                .contains("PIT runs over the whole target set");
        assertThat(selection.globs(AT_BASE)).isEqualTo(AT_BASE.targetClasses());
    }

    @Test
    void changedMutatorsRunTheWholeSet() {
        Selection selection = select(new PitConfig(AT_BASE.targetClasses(), AT_BASE.targetTests(), List.of("STRONGER")), List.of());
        assertThat(selection.whole()).isTrue();
        assertThat(selection.why()).contains("the mutators changed");
    }

    @Test
    void aSelectedClassIsMutatedWithItsNestedClassesOnly() {
        Selection selection = select(AT_BASE, List.of(modified(MAIN + "delivery/RetryAfter.java")));
        assertThat(selection.globs(AT_BASE)).containsExactly(P + "delivery.RetryAfter", P + "delivery.RetryAfter$*");
        assertThat(ChangedMutationTargets.globMatches(P + "delivery.RetryAfter$*", P + "delivery.RetryAfter$Parsed")).isTrue();
        assertThat(ChangedMutationTargets.globMatches(P + "delivery.RetryAfter$*", P + "delivery.RetryAfterJitter")).isFalse();
        assertThat(ChangedMutationTargets.globMatches(P + "delivery.RetryAfter*", P + "delivery.RetryAfterJitter")).isTrue();
    }

    // --- the known-bad proof -------------------------------------------------------------------------------------

    /**
     * The CI step on this project: PacingBoundsTest with its rows above the one-hour cap taken out (3601 and 7200
     * seconds, 999999999 seconds, a date two hours ahead) is a changed target test; with the recorded baseline the step
     * selects every target class the test covered, RetryAfter among them, and its PIT run leaves the cap's removal
     * alive. {@code report-changed-weakened.xml} is that run's report as the CI step wrote it; the check fails on it
     * naming the survivor, with the project's own survivor list.
     */
    @Test
    void aWeakenedTargetTestFailsTheCiStep() throws IOException {
        Selection selection = projectSelection(List.of(modified(TESTS + "delivery/PacingBoundsTest.java")));
        assertThat(selection.whole()).isFalse();
        assertThat(selection.classes()).contains(P + "delivery.RetryAfter");

        Run run = check("report-changed-weakened.xml", selection);
        assertThat(run.exit()).as(run.output()).isEqualTo(1);
        assertThat(run.output()).contains("FAIL a surviving mutant docs/mutation.md does not list: "
                + "com.payments.reconciler.delivery.RetryAfter.min line 44 RemoveConditionalMutator_ORDER_ELSE: "
                + "removed conditional - replaced comparison check with false");
    }

    /**
     * A one-class change with the tests intact: {@code report-changed-intact.xml} is the CI step's report after a
     * change to RetryAfter alone; its one survivor is listed, and no row of another class is judged stale.
     */
    @Test
    void aChangedClassWithItsTestsIntactPassesTheCiStep() throws IOException {
        Selection selection = projectSelection(List.of(modified(MAIN + "delivery/RetryAfter.java")));
        assertThat(selection.classes()).containsExactly(P + "delivery.RetryAfter");

        Run run = check("report-changed-intact.xml", selection);
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).contains("the changed classes only (com.payments.reconciler.delivery.RetryAfter)");

        Run unscoped = check("report-changed-intact.xml", null);
        assertThat(unscoped.exit()).as("without the scope every other class's row would be stale").isEqualTo(1);
        assertThat(unscoped.output()).contains("FAIL docs/mutation.md lists a survivor the report does not have");
    }

    private static Selection projectSelection(List<Change> changes) throws IOException {
        PitConfig config = ChangedMutationTargets.readPitConfig(Files.readString(projectFile(ChangedMutationTargets.POM)));
        Baseline baseline = ChangedMutationTargets.readBaseline(projectFile("functions/src/test/resources/mutation/baseline.properties"));
        Set<String> mainClasses = new java.util.TreeSet<>();
        Set<String> testClasses = new java.util.TreeSet<>();
        Path root = projectFile(".");
        for (String tree : List.of(ChangedMutationTargets.MAIN, ChangedMutationTargets.TESTS)) {
            try (Stream<Path> files = Files.walk(root.resolve(tree))) {
                files.filter(f -> f.toString().endsWith(".java")).forEach(f -> (tree.equals(ChangedMutationTargets.MAIN)
                        ? mainClasses : testClasses).add(ChangedMutationTargets.className(tree, root.relativize(f).toString())));
            }
        }
        return ChangedMutationTargets.select(config, config, baseline, changes, mainClasses, testClasses, name -> {
            Path file = root.resolve(ChangedMutationTargets.TESTS + name.replace('.', '/') + ".java");
            try {
                return Files.isRegularFile(file) ? Optional.of(Files.readString(file)) : Optional.empty();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    private static Run check(String report, Selection scope) {
        List<String> args = new ArrayList<>(List.of("--report", fixture(report).toString(), "--list",
                projectFile("docs/mutation.md").toString(), "--min-strength", "90"));
        if (scope != null) {
            args.addAll(List.of("--scope", String.join(",", scope.classes())));
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int exit = MutationSurvivorCheck.run(args.toArray(String[]::new), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return new Run(exit, bytes.toString(StandardCharsets.UTF_8), new Properties());
    }

    // --- on a real git repository --------------------------------------------------------------------------------

    @TempDir
    Path temp;

    private record Run(int exit, String output, Properties selection) {
    }

    private Run selectIn(Path repo, String baseline) throws IOException {
        Path out = temp.resolve("selection.properties");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<String> args = new ArrayList<>(List.of("select", "--repo", repo.toString(), "--out", out.toString()));
        if (baseline != null) {
            args.addAll(List.of("--baseline", baseline));
        }
        int exit = ChangedMutationTargets.run(args.toArray(String[]::new), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        Properties props = new Properties();
        if (Files.exists(out)) {
            try (var reader = Files.newBufferedReader(out)) {
                props.load(reader);
            }
        }
        return new Run(exit, bytes.toString(StandardCharsets.UTF_8), props);
    }

    private static String git(Path dir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git", "-C", dir.toString(), "-c", "user.name=test", "-c",
                "user.email=test@example.invalid", "-c", "commit.gpgsign=false"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(String.join(" ", command) + ": " + output).isZero();
        return output.strip();
    }

    /** A repository with the project's layout: a pom naming RetryAfter and PacingBoundsTest, one commit. */
    private Path repository() throws IOException, InterruptedException {
        Path repo = temp.resolve("repo");
        Files.createDirectories(repo.resolve(MAIN + "delivery"));
        Files.createDirectories(repo.resolve(TESTS + "delivery"));
        Files.writeString(repo.resolve(ChangedMutationTargets.POM), """
                <project><build><plugins><plugin>
                  <artifactId>pitest-maven</artifactId>
                  <configuration>
                    <targetClasses><param>com.payments.reconciler.delivery.RetryAfter*</param></targetClasses>
                    <targetTests><param>com.payments.reconciler.delivery.PacingBoundsTest</param></targetTests>
                    <mutators><mutator>DEFAULTS</mutator></mutators>
                  </configuration>
                </plugin></plugins></build></project>
                """);
        Files.writeString(repo.resolve(MAIN + "delivery/RetryAfter.java"), "class RetryAfter {}\n");
        Files.writeString(repo.resolve(TESTS + "delivery/PacingBoundsTest.java"), "class PacingBoundsTest { RetryAfter r; }\n");
        git(temp, "init", "-q", repo.toString());
        git(repo, "add", ".");
        git(repo, "commit", "-q", "-m", "base");
        return repo;
    }

    private Path baselineFile(String commit) throws IOException {
        Path file = temp.resolve("baseline.properties");
        Files.writeString(file, "commit=" + commit + "\ncovers.com.payments.reconciler.delivery.PacingBoundsTest="
                + "com.payments.reconciler.delivery.RetryAfter\n");
        return file;
    }

    @Test
    void onARealRepositoryAnUnchangedTreeRunsNothingAndAChangeRunsItsClass() throws Exception {
        Path repo = repository();
        String baseline = baselineFile(git(repo, "rev-parse", "HEAD")).toString();

        Run unchanged = selectIn(repo, baseline);
        assertThat(unchanged.exit()).isZero();
        assertThat(unchanged.output().strip()).matches("mutation \\(changed classes\\): no target class or target test changed "
                + "since the baseline [0-9a-f]{12}; PIT not run");
        assertThat(unchanged.selection()).containsEntry("mutation.changed.skip", "true");

        Files.writeString(repo.resolve(MAIN + "delivery/RetryAfter.java"), "class RetryAfter { int capped; }\n");
        Files.writeString(repo.resolve(MAIN + "delivery/RetryAfterJitter.java"), "class RetryAfterJitter {}\n"); // untracked
        Run changed = selectIn(repo, baseline);
        assertThat(changed.output()).contains("PIT over 2 target classes").contains("RetryAfter (changed)")
                .contains("RetryAfterJitter (new)");
        assertThat(changed.selection()).containsEntry("mutation.changed.skip", "false")
                .containsEntry("mutation.changed.classes", P + "delivery.RetryAfter," + P + "delivery.RetryAfter$*,"
                        + P + "delivery.RetryAfterJitter," + P + "delivery.RetryAfterJitter$*")
                .containsEntry("mutation.changed.scope", P + "delivery.RetryAfter," + P + "delivery.RetryAfterJitter");
    }

    @Test
    void aShallowCloneWithoutTheBaselineCommitRunsTheWholeSetAndSaysWhy() throws Exception {
        Path repo = repository();
        String base = git(repo, "rev-parse", "HEAD");
        Files.writeString(repo.resolve(MAIN + "delivery/RetryAfter.java"), "class RetryAfter { int capped; }\n");
        git(repo, "commit", "-q", "-am", "next");
        Path shallow = temp.resolve("shallow");
        git(temp, "clone", "-q", "--depth", "1", "file://" + repo, shallow.toString());

        Run run = selectIn(shallow, baselineFile(base).toString());
        assertThat(run.exit()).isZero();
        assertThat(run.output()).contains("the baseline commit " + base.substring(0, 12) + " is not in this clone (a shallow clone")
                .contains("PIT runs over the whole target set");
        assertThat(run.selection()).containsEntry("mutation.changed.skip", "false")
                .containsEntry("mutation.changed.classes", P + "delivery.RetryAfter*")
                .containsEntry("mutation.changed.scope", "all");
    }

    @Test
    void noBaselineOrNoGitRunsTheWholeSetAndSaysWhy() throws Exception {
        Path repo = repository();
        Run noBaseline = selectIn(repo, temp.resolve("absent.properties").toString());
        assertThat(noBaseline.output()).contains("no recorded baseline at").contains("PIT runs over the whole target set");
        assertThat(noBaseline.selection()).containsEntry("mutation.changed.scope", "all");

        Path notGit = temp.resolve("export");
        Files.createDirectories(notGit.resolve("functions"));
        Files.copy(repo.resolve(ChangedMutationTargets.POM), notGit.resolve(ChangedMutationTargets.POM));
        Run noGit = selectIn(notGit, baselineFile(git(repo, "rev-parse", "HEAD")).toString());
        assertThat(noGit.output()).contains("not a git work tree").contains("PIT runs over the whole target set");
    }

    @Test
    void aFilteredOrSkippedTestRunRunsNoPitAndSaysSo() throws Exception {
        Path out = temp.resolve("selection.properties");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int exit = ChangedMutationTargets.run(new String[] {"select", "--repo", repository().toString(), "--out", out.toString(),
                "--skip-when", "skipTests=${skipTests}", "--skip-when", "test=WindowConfigTest"},
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertThat(exit).isZero();
        assertThat(bytes.toString(StandardCharsets.UTF_8).strip()).isEqualTo("mutation (changed classes): not run, "
                + "-Dtest=WindowConfigTest runs only some of the tests (or none) on purpose");
        assertThat(Files.readString(out)).contains("mutation.changed.skip=true");
    }

    @Test
    void badUsageExitsTwoNamingTheProblem() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        assertThat(ChangedMutationTargets.run(new String[] {}, out)).isEqualTo(2);
        assertThat(ChangedMutationTargets.run(new String[] {"select", "--repo"}, out)).isEqualTo(2);
        assertThat(ChangedMutationTargets.run(new String[] {"select", "--repo", "."}, out)).isEqualTo(2);
        assertThat(ChangedMutationTargets.run(new String[] {"remember"}, out)).isEqualTo(2);
        Path bad = temp.resolve("bad.properties");
        Files.writeString(bad, "commit=HEAD\n");
        assertThatThrownBy(() -> ChangedMutationTargets.readBaseline(bad))
                .hasMessageContaining("commit must be a full 40-hex commit id, was 'HEAD'");
        assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("a command is required: select or record")
                .contains("--repo needs a value").contains("select needs --out FILE").contains("unknown command remember");
    }

    /** The project's baseline reads: a full commit id, and coverage for target tests of the pom. */
    @Test
    void theProjectsBaselineReads() throws IOException {
        Baseline baseline = ChangedMutationTargets.readBaseline(projectFile("functions/src/test/resources/mutation/baseline.properties"));
        PitConfig now = ChangedMutationTargets.readPitConfig(Files.readString(projectFile("functions/pom.xml")));
        assertThat(baseline.commit()).matches("[0-9a-f]{40}");
        assertThat(baseline.covers()).isNotEmpty();
        assertThat(baseline.covers().keySet()).allMatch(test -> test.startsWith("com.payments.reconciler."));
        assertThat(baseline.covers().values()).allSatisfy(classes -> assertThat(classes).isNotEmpty()
                .allMatch(c -> c.startsWith("com.payments.reconciler.") && !c.contains("$")));
        assertThat(now.mutators()).contains("DEFAULTS", "REMOVE_CONDITIONALS");
    }

    private static Path projectFile(String path) {
        return Path.of(System.getProperty("reconciler.repositoryRoot", "..")).resolve(path);
    }

    private static Path fixture(String name) {
        try {
            return Path.of(ChangedMutationTargetsTest.class.getResource("/mutation/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
