package com.payments.reconciler.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code cfn-lint} (AWS CloudFormation's linter, part of the machine image and of CI's) on the synthesised
 * template: no E-level finding. Warnings are printed, not failed: CDK itself writes a redundant
 * {@code DependsOn} next to a {@code GetAtt} (W3005) for every function's role. A known-bad template proves the
 * check can fail. A missing {@code cfn-lint} fails the test with how to install it: a skipped lint would
 * look like a passing one.
 */
class CfnLintTest {

    private static final long TIMEOUT_SECONDS = 300;
    /** {@code --format parseable}: {@code file:line:column:endLine:endColumn:RULE:message}. */
    private static final Pattern FINDING = Pattern.compile("^.*?:\\d+:\\d+:\\d+:\\d+:([EWI]\\d{4}):(.*)$");
    static final String KNOWN_BAD = "/cfn-lint/succeed-with-output-path.template.json";

    private final SynthesizedStack synth = SynthesizedStack.get();

    @Test
    void synthesisedTemplateHasNoErrorLevelFinding() throws Exception {
        Path file = target().resolve("cfn-lint").resolve("synthesised.template.json");
        Files.createDirectories(file.getParent());
        new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(file.toFile(), synth.template.toJSON());
        Lint lint = lint(file);
        System.out.println("cfn-lint on the synthesised template: " + lint.findings().size() + " finding(s)");
        lint.findings().forEach(f -> System.out.println("  " + f));
        assertThat(lint.errors()).as("cfn-lint E-level findings; full output:\n" + lint.output()).isEmpty();
        // cfn-lint's exit code is a bit mask: 2 = an error was found (4 warning, 8 informational).
        assertThat(lint.exitCode() & 2).as("cfn-lint exit code " + lint.exitCode()).isZero();
    }

    /** The check fails where it should: the Succeed-with-OutputPath shape the ASL had, as a known-bad template. */
    @Test
    void aKnownBadTemplateFails() throws Exception {
        Path file = target().resolve("cfn-lint").resolve("known-bad.template.json");
        Files.createDirectories(file.getParent());
        try (InputStream in = CfnLintTest.class.getResourceAsStream(KNOWN_BAD)) {
            assertThat(in).as(KNOWN_BAD + " on the test classpath").isNotNull();
            Files.write(file, in.readAllBytes());
        }
        Lint lint = lint(file);
        assertThat(lint.errors()).as(lint.output()).anyMatch(e -> e.startsWith("E3601") && e.contains("'OutputPath' was unexpected"));
        assertThat(lint.exitCode() & 2).isEqualTo(2);
    }

    private record Lint(int exitCode, String output, List<String> findings) {
        List<String> errors() {
            return findings.stream().filter(f -> f.startsWith("E")).toList();
        }
    }

    private static Lint lint(Path template) throws IOException, InterruptedException {
        Path log = Files.createTempFile(target(), "cfn-lint", ".log");
        Process process;
        try {
            process = new ProcessBuilder(List.of("cfn-lint", "--format", "parseable", template.toString()))
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            throw new AssertionError("cfn-lint is not on PATH (" + e.getMessage() + "). It is part of the machine image and of CI's; "
                    + "install it with `pip install cfn-lint==1.51.0` (the version this check was written against).", e);
        }
        boolean finished = process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            process.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(finished).as("cfn-lint finished within " + TIMEOUT_SECONDS + " s; output:\n" + output).isTrue();
        // Exit codes above 15 are cfn-lint failing to run (bad arguments, a crash), not findings.
        assertThat(process.exitValue()).as("cfn-lint ran; output:\n" + output).isBetween(0, 15);
        List<String> findings = output.lines().map(FINDING::matcher).filter(Matcher::matches)
                .map(m -> m.group(1) + " " + m.group(2)).toList();
        return new Lint(process.exitValue(), output, findings);
    }

    private static Path target() {
        return Path.of(System.getProperty("reconciler.target", "target")).toAbsolutePath();
    }
}
