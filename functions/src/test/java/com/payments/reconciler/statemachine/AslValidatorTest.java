package com.payments.reconciler.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The shipped ASL passes {@code asl-validator} (pinned in package.json; the build runs {@code npm ci}). */
class AslValidatorTest {

    @Test
    void shippedDefinitionIsValid() throws Exception {
        Path root = Path.of(System.getProperty("reconciler.target")).toAbsolutePath().getParent().getParent();
        Path validator = root.resolve("node_modules/.bin/asl-validator");
        assertThat(validator).as("asl-validator is installed by `npm ci` (the build's first step runs it)").exists();
        Path log = Path.of(System.getProperty("reconciler.target"), "asl-validator.log");
        Process process = new ProcessBuilder(validator.toString(), "--json-path", "statemachine/reconciler.asl.json")
                .directory(root.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("asl-validator finished").isTrue();
        String output = Files.readString(log);
        assertThat(process.exitValue()).as(output).isZero();
        assertThat(output).contains("is valid");
    }
}
