package com.payments.reconciler.harness.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Run from the shaded harness jar, sandboxes get the runtime's own jars (copied beside it), never that jar itself. */
class FunctionCodeTest {

    @Test
    void theRuntimeJarsBesideTheShadedCliJarAreTheSandboxesRuntime(@TempDir Path dir) throws IOException {
        Path cli = Files.createFile(dir.resolve("reconciler-harness.jar"));
        Path runtime = Files.createDirectories(dir.resolve(FunctionCode.RUNTIME_DIR));
        Files.createFile(runtime.resolve("aws-lambda-java-runtime-interface-client-2.10.1.jar"));
        Files.createFile(runtime.resolve("aws-lambda-java-serialization-1.4.1.jar"));
        Files.createFile(runtime.resolve("notes.txt"));

        assertThat(FunctionCode.runtimeJarsBeside(cli)).extracting(p -> p.getFileName().toString())
                .containsExactly("aws-lambda-java-runtime-interface-client-2.10.1.jar", "aws-lambda-java-serialization-1.4.1.jar")
                .doesNotContain("reconciler-harness.jar");
    }

    @Test
    void withoutThemTheSandboxRefusesToStartRatherThanFallBackToTheCliJar(@TempDir Path dir) throws IOException {
        Path cli = Files.createFile(dir.resolve("reconciler-harness.jar"));

        assertThatThrownBy(() -> FunctionCode.runtimeJarsBeside(cli)).hasMessageContaining("no Lambda runtime jars in")
                .hasMessageContaining(FunctionCode.RUNTIME_DIR);
    }

    @Test
    void fromTheBuildsClassPathTheRuntimeIsItsOwnJars() {
        assertThat(FunctionCode.runtimeClientJars()).extracting(p -> p.getFileName().toString())
                .anyMatch(n -> n.startsWith("aws-lambda-java-runtime-interface-client"))
                .noneMatch(n -> n.startsWith("reconciler"));
    }
}
