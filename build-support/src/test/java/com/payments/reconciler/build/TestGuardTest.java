package com.payments.reconciler.build;

import net.jqwik.api.Property;
import org.apiguardian.api.API;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The guard on fixtures compiled here by javac against the real JUnit and jqwik annotations, with report
 * folders written as Surefire writes them. Its {@code @Nested} classes are themselves what the guard's run
 * on this module must find reported as {@code TestGuardTest$...}.
 */
class TestGuardTest {

    @TempDir
    Path dir;
    Path classes;
    Path reports;

    @BeforeEach
    void compileFixtures() throws Exception {
        classes = dir.resolve("test-classes");
        reports = dir.resolve("surefire-reports");
        Files.createDirectories(reports);
        compile(Map.of(
                "fx/LeaseTest.java", """
                        package fx;
                        class LeaseTest { @org.junit.jupiter.api.Test void renews() {} }
                        """,
                "fx/RenamedCheck.java", """
                        package fx;
                        class RenamedCheck { @org.junit.jupiter.api.Test void forgotten() {} }
                        """,
                "fx/FenceProperties.java", """
                        package fx;
                        class FenceProperties { @net.jqwik.api.Property boolean holds() { return true; } }
                        """,
                "fx/OuterTest.java", """
                        package fx;
                        class OuterTest {
                            @org.junit.jupiter.api.Test void outer() {}
                            @org.junit.jupiter.api.Nested class WhenFenced { @org.junit.jupiter.api.Test void inner() {} }
                        }
                        """,
                "fx/ContractBase.java", """
                        package fx;
                        abstract class ContractBase { @org.junit.jupiter.api.Test void contract() {} }
                        """,
                "fx/InheritsContract.java", """
                        package fx;
                        class InheritsContract extends ContractBase {}
                        """,
                "fx/Helper.java", """
                        package fx;
                        class Helper { void notATest() {} }
                        """));
    }

    @Test
    void findsEveryConcreteClassHoldingTestsOwnInheritedOrNested() {
        assertThat(TestGuard.classesHoldingTests(classes)).containsExactly(
                "fx.FenceProperties", "fx.InheritsContract", "fx.LeaseTest", "fx.OuterTest", "fx.OuterTest$WhenFenced",
                "fx.RenamedCheck");
    }

    @Nested
    class OnAKnownBadFixture {

        @Test
        void failsNamingTheTestClassesSurefireDidNotRun() throws IOException {
            report("fx.LeaseTest", "fx.LeaseTest");
            report("fx.OuterTest", "fx.OuterTest");

            Run run = guard();

            assertThat(run.exitCode).isEqualTo(1);
            assertThat(run.output)
                    .contains("test-guard: FAILED")
                    .contains("not run by Surefire: fx.RenamedCheck (rename it to end in Test")
                    .contains("not run by Surefire: fx.FenceProperties (its name matches Surefire's includes")
                    .contains("not run by Surefire: fx.InheritsContract")
                    .contains("not run by Surefire: fx.OuterTest$WhenFenced (a nested class runs only as a JUnit @Nested class")
                    .doesNotContain("fx.LeaseTest (")
                    .doesNotContain("fx.Helper")
                    .doesNotContain("fx.ContractBase");
        }

        @Test
        void aReportFromBeforeThisBuildDoesNotCount() throws IOException {
            allReported();
            Path stale = reports.resolve("TEST-fx.RenamedCheck.xml");
            Files.setLastModifiedTime(stale, FileTime.from(Instant.parse("2026-01-01T00:00:00Z")));

            Run run = guard("--build-start", "2026-06-01T00:00:00Z");

            assertThat(run.exitCode).isEqualTo(1);
            assertThat(run.output).contains("not run by Surefire: fx.RenamedCheck");
        }

        @Test
        void anAllowlistEntryWithoutAReasonIsRefused() throws IOException {
            allReported();
            Path allowlist = Files.writeString(dir.resolve("allowlist.txt"), "fx.RenamedCheck\n");

            Run run = guard("--allowlist", allowlist.toString());

            assertThat(run.exitCode).isEqualTo(1);
            assertThat(run.output).contains("fx.RenamedCheck has no reason");
        }

        @Test
        void anAllowlistedClassThatRanFailsTheBuild() throws IOException {
            allReported();
            Path allowlist = Files.writeString(dir.resolve("allowlist.txt"), "fx.LeaseTest  a benchmark\n");

            Run run = guard("--allowlist", allowlist.toString());

            assertThat(run.exitCode).isEqualTo(1);
            assertThat(run.output).contains("allowlisted but it ran: fx.LeaseTest");
        }
    }

    @Nested
    class OnAGoodFixture {

        @Test
        void passesWhenEveryTestClassWasReported() throws IOException {
            allReported();

            Run run = guard("--build-start", Instant.now().minusSeconds(60).toString());

            assertThat(run.exitCode).isZero();
            assertThat(run.output).contains("test-guard: 6 test classes, 6 executed by Surefire, 0 not run as allowed");
        }

        @Test
        void passesWhenTheOnlyClassNotRunIsAllowlisted() throws IOException {
            report("fx.LeaseTest", "fx.LeaseTest");
            report("fx.FenceProperties", "fx.FenceProperties");
            report("fx.InheritsContract", "fx.InheritsContract");
            report("fx.OuterTest", "fx.OuterTest", "fx.OuterTest$WhenFenced");
            Path allowlist = Files.writeString(dir.resolve("allowlist.txt"), """
                    # comment line
                    fx.RenamedCheck   a benchmark: prints figures; run it with -Dtest=RenamedCheck
                    """);

            Run run = guard("--allowlist", allowlist.toString());

            assertThat(run.exitCode).isZero();
            assertThat(run.output).contains("5 executed by Surefire, 1 not run as allowed (fx.RenamedCheck)");
        }

        @Test
        void skipsAFilteredOrSkippedRunAndSaysWhy() {
            assertThat(guard("--skip-when", "test=LeaseTest").output).contains("skipped, -Dtest=LeaseTest");
            assertThat(guard("--skip-when", "skipTests=true").exitCode).isZero();
            assertThat(guard("--skip-when", "skipTests=${skipTests}", "--skip-when", "test=${test}").exitCode)
                    .as("an undefined property is not a filter, so the known-bad fixture fails").isEqualTo(1);
            assertThat(guard("--skip-when", "skipTests=false", "--skip-when", "test=").exitCode).isEqualTo(1);
        }

        @Test
        void passesAModuleWithoutTestClasses() {
            Run run = new Run(new String[]{"--test-classes", dir.resolve("absent").toString(), "--reports", reports.toString()});
            assertThat(run.exitCode).isZero();
            assertThat(run.output).contains("no test classes");
        }
    }

    private void allReported() throws IOException {
        for (String name : List.of("fx.LeaseTest", "fx.RenamedCheck", "fx.FenceProperties", "fx.InheritsContract")) {
            report(name, name);
        }
        // JUnit @Nested: one report for the outer class, the nested class named in its test cases.
        report("fx.OuterTest", "fx.OuterTest", "fx.OuterTest$WhenFenced");
    }

    private void report(String testSet, String... testcaseClasses) throws IOException {
        String cases = Stream.of(testcaseClasses)
                .map(c -> "  <testcase name=\"m\" classname=\"" + c + "\" time=\"0.001\"/>")
                .collect(Collectors.joining("\n"));
        Files.writeString(reports.resolve("TEST-" + testSet + ".xml"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <testsuite name="%s" tests="%d" failures="0" errors="0" skipped="0">
                %s
                </testsuite>
                """.formatted(testSet, testcaseClasses.length, cases));
    }

    private Run guard(String... extra) {
        List<String> args = new ArrayList<>(List.of("--test-classes", classes.toString(), "--reports", reports.toString()));
        args.addAll(List.of(extra));
        return new Run(args.toArray(String[]::new));
    }

    private static final class Run {
        final int exitCode;
        final String output;

        Run(String[] args) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            exitCode = TestGuard.run(args, new PrintStream(bytes, true, StandardCharsets.UTF_8));
            output = bytes.toString(StandardCharsets.UTF_8);
        }
    }

    private void compile(Map<String, String> sources) throws IOException, URISyntaxException {
        Path src = dir.resolve("src");
        List<String> args = new ArrayList<>(List.of("-d", classes.toString(), "-proc:none", "-classpath",
                jarOf(Test.class) + java.io.File.pathSeparator + jarOf(Property.class) + java.io.File.pathSeparator + jarOf(API.class)));
        for (Map.Entry<String, String> source : sources.entrySet()) {
            Path file = src.resolve(source.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, source.getValue());
            args.add(file.toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int exit = javac.run(null, diagnostics, diagnostics, args.toArray(String[]::new));
        assertThat(exit).as(diagnostics.toString(StandardCharsets.UTF_8)).isZero();
    }

    private static String jarOf(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
