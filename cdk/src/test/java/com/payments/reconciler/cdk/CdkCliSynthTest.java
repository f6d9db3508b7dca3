package com.payments.reconciler.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code npx cdk synth} exactly as docs/operating.md says: from the repository root, no {@code --output}, so the
 * CLI hands the app its default, relative {@code cdk.out}; with {@code JAVA_HOME} unset and, when the machine
 * has one, an older {@code java} (17) first on PATH, as on a fresh workstation. cdk.json's app must then find
 * a JDK 25 itself (bin/find-jdk), build the Lambda jar and this module through Maven, run the app with cdk-nag,
 * and leave the assembly where the CLI reads it: {@code cdk.out/} at the root, not {@code cdk/cdk.out/}.
 */
class CdkCliSynthTest {

    private static final long TIMEOUT_SECONDS = 600;
    private static final int REQUIRED_JAVA = 25;

    @Test
    void npxCdkSynthFromTheRootAsTheReadmeSays() throws IOException, InterruptedException {
        Path root = Path.of(System.getProperty("reconciler.repositoryRoot")).toAbsolutePath().normalize();
        Path target = Path.of(System.getProperty("reconciler.target")).toAbsolutePath();
        Path out = root.resolve("cdk.out");
        Path misplaced = root.resolve("cdk").resolve("cdk.out");
        Path log = target.resolve("cdk-cli-synth.log");
        deleteTree(out);
        deleteTree(misplaced);
        ProcessBuilder synth = new ProcessBuilder(List.of("npx", "cdk", "synth"))
                .directory(root.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        Map<String, String> env = synth.environment();
        env.put("CDK_DISABLE_VERSION_CHECK", "true");
        env.put("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20");
        env.put("JSII_DEPRECATED", "quiet");
        // No account or region: synthesis must not need AWS credentials or the network.
        env.remove("AWS_PROFILE");
        env.remove("AWS_REGION");
        env.remove("AWS_DEFAULT_REGION");
        // As a user's shell: no JAVA_HOME, and the machine's older java (if any) is the one PATH finds first.
        env.remove("JAVA_HOME");
        Optional<Path> older = olderJavaBin(env.getOrDefault("PATH", ""));
        older.ifPresent(bin -> env.put("PATH", bin + File.pathSeparator + env.getOrDefault("PATH", "")));
        System.out.println("npx cdk synth with JAVA_HOME unset, first java on PATH: "
                + older.map(b -> b.resolve("java") + " (older than " + REQUIRED_JAVA + ")").orElse("the real PATH's (no older java found)"));
        long start = System.nanoTime();
        Process process = synth.start();
        boolean finished = process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        long millis = (System.nanoTime() - start) / 1_000_000;
        if (!finished) {
            process.destroyForcibly();
        }
        String output = Files.readString(log);
        assertThat(finished).as("npx cdk synth finished within " + TIMEOUT_SECONDS + " s; output:\n" + output).isTrue();
        assertThat(process.exitValue()).as("npx cdk synth exit code; output:\n" + output).isZero();
        System.out.println("npx cdk synth (find-jdk, Maven build of functions + cdk, app, cdk-nag): " + millis + " ms");

        Path template = out.resolve(StackConfig.DEFAULT_NAME_PREFIX + ReconcilerApp.STACK_SUFFIX + ".template.json");
        try (Stream<Path> templates = Files.list(out)) {
            assertThat(templates.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".template.json")))
                    .as("cdk.out/*.template.json at the repository root; output:\n" + output).containsExactly(template.getFileName().toString());
        }
        assertThat(out.resolve("manifest.json")).exists();
        assertThat(misplaced).as("nothing synthesised into the Maven module's directory").doesNotExist();
        JsonNode resources = new ObjectMapper().readTree(template.toFile()).path("Resources");
        int stateMachines = 0;
        for (JsonNode resource : resources) {
            stateMachines += resource.path("Type").asText().equals("AWS::StepFunctions::StateMachine") ? 1 : 0;
        }
        assertThat(stateMachines).isEqualTo(1);
        // The committed defaults: 02:00 UTC, and an alarm topic without a subscription (alarmEmail is empty).
        assertThat(resources.toString()).contains("\"ScheduleExpression\":\"cron(0 2 * * ? *)\"")
                .contains("\"ScheduleExpressionTimezone\":\"UTC\"")
                .contains("AWS::SNS::Topic")
                .doesNotContain("AWS::SNS::Subscription");
        assertThat(out.resolve("AwsSolutions-" + StackConfig.DEFAULT_NAME_PREFIX + ReconcilerApp.STACK_SUFFIX + "-NagReport.csv")).exists();
    }

    /**
     * The bin directory of the first {@code java} on PATH (or the system's {@code /usr/bin/java}, resolved
     * through its links) whose version is older than {@link #REQUIRED_JAVA}; empty if every java found is new
     * enough, in which case the test runs with the real PATH.
     */
    private static Optional<Path> olderJavaBin(String path) {
        Stream<Path> onPath = Arrays.stream(path.split(File.pathSeparator)).filter(d -> !d.isBlank()).map(d -> Path.of(d, "java"));
        return Stream.concat(onPath, Stream.of(Path.of("/usr/bin/java")))
                .filter(Files::isExecutable)
                .map(CdkCliSynthTest::realPath)
                .filter(java -> majorVersion(java) < REQUIRED_JAVA)
                .map(Path::getParent)
                .findFirst();
    }

    private static Path realPath(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p;
        }
    }

    private static int majorVersion(Path java) {
        try {
            Process p = new ProcessBuilder(java.toString(), "-XshowSettings:properties", "-version").redirectErrorStream(true).start();
            String text = new String(p.getInputStream().readAllBytes());
            p.waitFor(60, TimeUnit.SECONDS);
            Matcher m = Pattern.compile("java\\.specification\\.version = (\\d+)").matcher(text);
            return m.find() ? Integer.parseInt(m.group(1)) : Integer.MAX_VALUE;
        } catch (IOException | InterruptedException | NumberFormatException e) {
            return Integer.MAX_VALUE;
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
