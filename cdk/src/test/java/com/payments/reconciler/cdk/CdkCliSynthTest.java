package com.payments.reconciler.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code npx cdk synth} as a user runs it from the repository root: the pinned CLI, cdk.json's app (which
 * builds the Lambda jar and this module through Maven, then runs the app with cdk-nag), offline, on the
 * context defaults. A template must come out, and cdk-nag must not have failed it.
 */
class CdkCliSynthTest {

    private static final long TIMEOUT_SECONDS = 600;

    @Test
    void npxCdkSynthProducesTheTemplateOffline() throws IOException, InterruptedException {
        Path root = Path.of(System.getProperty("reconciler.repositoryRoot")).toAbsolutePath().normalize();
        Path target = Path.of(System.getProperty("reconciler.target")).toAbsolutePath();
        Path out = target.resolve("cdk-cli-out");
        Path log = target.resolve("cdk-cli-synth.log");
        deleteTree(out);
        ProcessBuilder synth = new ProcessBuilder(List.of("npx", "--no-install", "cdk", "synth", "--no-notices", "--quiet",
                "--output", out.toString()))
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
        System.out.println("npx cdk synth (Maven build of functions + cdk, app, cdk-nag): " + millis + " ms");

        Path template = out.resolve(StackConfig.DEFAULT_NAME_PREFIX + ReconcilerApp.STACK_SUFFIX + ".template.json");
        assertThat(template).as("template in " + out + "; output:\n" + output).exists();
        JsonNode resources = new ObjectMapper().readTree(template.toFile()).path("Resources");
        int stateMachines = 0;
        for (JsonNode resource : resources) {
            stateMachines += resource.path("Type").asText().equals("AWS::StepFunctions::StateMachine") ? 1 : 0;
        }
        assertThat(stateMachines).isEqualTo(1);
        assertThat(resources.toString()).contains("\"ScheduleExpression\":\"cron(0 2 * * ? *)\"")
                .contains("\"ScheduleExpressionTimezone\":\"UTC\"")
                .doesNotContain("AWS::SNS::Topic");
        assertThat(out.resolve("AwsSolutions-" + StackConfig.DEFAULT_NAME_PREFIX + ReconcilerApp.STACK_SUFFIX + "-NagReport.csv")).exists();
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
