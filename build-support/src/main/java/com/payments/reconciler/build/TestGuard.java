package com.payments.reconciler.build;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.attribute.RuntimeVisibleAnnotationsAttribute;
import java.lang.reflect.AccessFlag;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Fails a module's build when a compiled test class that holds tests was not executed by Surefire.
 * A class whose name matches none of Surefire's include patterns is skipped without a word, and once a test
 * is silently not run nobody notices that it stopped guarding anything.
 *
 * <p>(a) Every concrete class under the test-classes folder that declares, or inherits from a superclass or
 * interface in that folder, a method annotated with one of {@link #TEST_ANNOTATIONS} (directly: a composed
 * annotation of our own would not be seen, and none exists) is compared with (b) the classes named by the
 * Surefire reports of this build: each {@code TEST-*.xml} file's name and every {@code testcase classname}
 * in it, which is how JUnit's {@code @Nested} classes appear ({@code Outer$Inner}). Reports older than the
 * build's start are left out, so a stale report from an earlier run cannot stand in for a class this run
 * skipped. A class in (a) and not in (b) fails the build unless the allowlist names it with a reason; an
 * allowlisted class that did run fails it too, since its entry no longer says anything true.
 *
 * <p>It only judges a complete run: when the tests were skipped ({@code -DskipTests}, {@code
 * -Dmaven.test.skip}) or filtered ({@code -Dtest}, {@code -Dgroups}, ...), most classes did not run on
 * purpose, so it says so and passes.
 *
 * <p>Run from each module's {@code verify} phase as a source-file program ({@code java TestGuard.java ...}):
 * it has no dependencies beyond the JDK (the class-file API), so it needs no build step of its own and works
 * in a run scoped with {@code -pl}.
 */
public final class TestGuard {

    static final Set<String> TEST_ANNOTATIONS = Set.of(
            "org.junit.jupiter.api.Test",
            "org.junit.jupiter.api.TestFactory",
            "org.junit.jupiter.api.TestTemplate",
            "org.junit.jupiter.api.RepeatedTest",
            "org.junit.jupiter.params.ParameterizedTest",
            "net.jqwik.api.Property",
            "net.jqwik.api.Example");

    // The root pom's Surefire includes, for the advice only: what ran is read from the reports.
    private static final Pattern SUREFIRE_INCLUDES = Pattern.compile("Test.*|.*(Test|Tests|TestCase|Properties)");
    private static final Pattern TESTCASE_CLASSNAME = Pattern.compile("<testcase\\b[^>]*\\bclassname=\"([^\"]+)\"");

    private TestGuard() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /**
     * Arguments: {@code --test-classes DIR --reports DIR [--allowlist FILE] [--build-start ISO-INSTANT]
     * [--skip-when NAME=VALUE]...}. Each {@code --skip-when} carries a Maven property as the pom interpolated
     * it; Maven leaves an undefined property's placeholder as is, so {@code ${NAME}}, a blank value and
     * {@code false} all mean "not set". Returns the exit code: 0 passed or skipped, 1 failed, 2 bad usage.
     */
    static int run(String[] args, PrintStream out) {
        Path testClasses = null;
        Path reports = null;
        Path allowlistFile = null;
        Instant buildStart = Instant.EPOCH;
        List<String> skipReasons = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (i + 1 == args.length) {
                out.println("test-guard: " + args[i] + " needs a value");
                return 2;
            }
            String value = args[i + 1];
            switch (args[i]) {
                case "--test-classes" -> testClasses = Path.of(value);
                case "--reports" -> reports = Path.of(value);
                case "--allowlist" -> allowlistFile = Path.of(value);
                case "--build-start" -> {
                    try {
                        buildStart = Instant.parse(value);
                    } catch (DateTimeParseException e) {
                        out.println("test-guard: --build-start: not an ISO instant: " + value);
                        return 2;
                    }
                }
                case "--skip-when" -> {
                    String[] nameValue = value.split("=", 2);
                    if (isSet(nameValue[0], nameValue.length > 1 ? nameValue[1] : "")) {
                        skipReasons.add("-D" + value);
                    }
                }
                default -> {
                    out.println("test-guard: unknown argument " + args[i]);
                    return 2;
                }
            }
            i++;
        }
        if (testClasses == null || reports == null) {
            out.println("test-guard: usage: --test-classes DIR --reports DIR [--allowlist FILE] [--build-start INSTANT] [--skip-when NAME=VALUE]...");
            return 2;
        }
        if (!skipReasons.isEmpty()) {
            out.println("test-guard: skipped, " + String.join(" ", skipReasons)
                    + " runs only some of the tests (or none) on purpose; the full `mvn verify` checks that every test class ran");
            return 0;
        }
        if (!Files.isDirectory(testClasses)) {
            out.println("test-guard: no test classes in this module, nothing to check");
            return 0;
        }

        Map<String, String> allowlist;
        try {
            allowlist = allowlistFile == null ? Map.of() : readAllowlist(allowlistFile);
        } catch (IllegalArgumentException e) {
            out.println("test-guard: FAILED: " + e.getMessage());
            return 1;
        }
        Set<String> holdingTests = classesHoldingTests(testClasses);
        Set<String> executed = executedClasses(reports, buildStart);

        Set<String> notRun = new TreeSet<>();
        Set<String> allowedNotRun = new TreeSet<>();
        for (String name : holdingTests) {
            if (executed.contains(name)) {
                continue;
            }
            (allowlist.containsKey(name) ? allowedNotRun : notRun).add(name);
        }
        Set<String> allowedButRun = new TreeSet<>(allowlist.keySet());
        allowedButRun.retainAll(executed);

        out.printf("test-guard: %d test classes, %d executed by Surefire, %d not run as allowed%s%n",
                holdingTests.size(), holdingTests.size() - notRun.size() - allowedNotRun.size(), allowedNotRun.size(),
                allowedNotRun.isEmpty() ? "" : " (" + String.join(", ", allowedNotRun) + ")");
        if (notRun.isEmpty() && allowedButRun.isEmpty()) {
            return 0;
        }
        out.println("test-guard: FAILED");
        for (String name : notRun) {
            out.println("  not run by Surefire: " + name + " (" + fixFor(name) + ")");
        }
        for (String name : allowedButRun) {
            out.println("  allowlisted but it ran: " + name + " (remove it from " + allowlistFile + ")");
        }
        if (!notRun.isEmpty()) {
            out.println("  A class that must not run as a test goes on " + (allowlistFile == null ? "the allowlist" : allowlistFile)
                    + " with the reason and how it is run instead.");
        }
        return 1;
    }

    private static String fixFor(String className) {
        if (className.contains("$")) {
            return "a nested class runs only as a JUnit @Nested class of a test class that runs, or make it a top-level *Test class";
        }
        String simpleName = className.substring(className.lastIndexOf('.') + 1);
        if (SUREFIRE_INCLUDES.matcher(simpleName).matches()) {
            return "its name matches Surefire's includes, yet no report of this build names it: an exclude, or a class file whose source is gone (mvn clean)";
        }
        return "rename it to end in Test (jqwik: Properties), which Surefire's includes in the root pom.xml match";
    }

    static boolean isSet(String name, String value) {
        String v = value.strip();
        return !v.isEmpty() && !v.equals("${" + name + "}") && !v.equalsIgnoreCase("false");
    }

    /** One entry a line, {@code fully.qualified.Name  reason}; {@code #} starts a comment. An entry needs its reason. */
    static Map<String, String> readAllowlist(Path file) {
        Map<String, String> entries = new LinkedHashMap<>();
        for (String line : readLines(file)) {
            String entry = line.replaceFirst("#.*", "").strip();
            if (entry.isEmpty()) {
                continue;
            }
            String[] nameReason = entry.split("\\s+", 2);
            if (nameReason.length < 2) {
                throw new IllegalArgumentException(file + ": " + nameReason[0] + " has no reason; say why it is not run as a test and how it is run instead");
            }
            entries.put(nameReason[0], nameReason[1]);
        }
        return entries;
    }

    /** Binary names ({@code a.b.Outer$Inner}) of the concrete classes that hold tests, their own or inherited. */
    static Set<String> classesHoldingTests(Path testClasses) {
        Map<String, ClassModel> classes = new HashMap<>();
        try (Stream<Path> files = Files.walk(testClasses)) {
            files.filter(f -> f.toString().endsWith(".class") && !f.getFileName().toString().equals("module-info.class"))
                    .forEach(f -> {
                        ClassModel model = ClassFile.of().parse(readBytes(f));
                        classes.put(model.thisClass().asInternalName(), model);
                    });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Boolean> memo = new HashMap<>();
        Set<String> result = new TreeSet<>();
        for (ClassModel model : classes.values()) {
            boolean concrete = !model.flags().has(AccessFlag.ABSTRACT) && !model.flags().has(AccessFlag.INTERFACE);
            if (concrete && holdsTests(model.thisClass().asInternalName(), classes, memo)) {
                result.add(model.thisClass().asInternalName().replace('/', '.'));
            }
        }
        return result;
    }

    // Supertypes outside the folder (the JDK, libraries) declare no tests of ours.
    private static boolean holdsTests(String internalName, Map<String, ClassModel> classes, Map<String, Boolean> memo) {
        Boolean known = memo.get(internalName);
        if (known != null) {
            return known;
        }
        ClassModel model = classes.get(internalName);
        boolean holds = model != null && (model.methods().stream().anyMatch(TestGuard::isTestMethod)
                || model.superclass().map(s -> holdsTests(s.asInternalName(), classes, memo)).orElse(false)
                || model.interfaces().stream().anyMatch(i -> holdsTests(i.asInternalName(), classes, memo)));
        memo.put(internalName, holds);
        return holds;
    }

    private static boolean isTestMethod(MethodModel method) {
        return method.findAttribute(Attributes.runtimeVisibleAnnotations()).stream()
                .map(RuntimeVisibleAnnotationsAttribute::annotations)
                .flatMap(List::stream)
                .map(a -> a.classSymbol().descriptorString())
                .map(d -> d.substring(1, d.length() - 1).replace('/', '.'))
                .anyMatch(TEST_ANNOTATIONS::contains);
    }

    /** Classes this build's Surefire run reported: report file names and each test case's class. */
    static Set<String> executedClasses(Path reports, Instant buildStart) {
        Set<String> executed = new TreeSet<>();
        if (!Files.isDirectory(reports)) {
            return executed;
        }
        try (Stream<Path> files = Files.list(reports)) {
            for (Path report : files.toList()) {
                String file = report.getFileName().toString();
                if (!file.startsWith("TEST-") || !file.endsWith(".xml")
                        || Files.getLastModifiedTime(report).toInstant().isBefore(buildStart)) {
                    continue;
                }
                executed.add(file.substring("TEST-".length(), file.length() - ".xml".length()));
                Matcher m = TESTCASE_CLASSNAME.matcher(Files.readString(report));
                while (m.find()) {
                    executed.add(m.group(1));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return executed;
    }

    private static byte[] readBytes(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> readLines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
