package com.payments.reconciler.cli.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which stack a command means without --stack-name: RECONCILER_STACK, else cdk.json's namePrefix. */
class StackNameTest {

    @TempDir
    Path dir;

    @Test
    void theFlagWinsThenTheEnvironmentThenCdkJsonsPrefix() throws IOException {
        Files.writeString(dir.resolve("cdk.json"), "{\"app\":\"x\",\"context\":{\"namePrefix\":\"reconciler-staging-\"}}");
        assertThat(StackName.resolve("flagged-stack", Map.of(StackName.ENV, "env-stack"), dir)).isEqualTo("flagged-stack");
        assertThat(StackName.resolve(null, Map.of(StackName.ENV, "env-stack"), dir)).isEqualTo("env-stack");
        assertThat(StackName.resolve(null, Map.of(), dir)).isEqualTo("reconciler-staging-HoldReleaseReconciler");
    }

    @Test
    void noStackToFindOrAnInvalidNameIsOneLineNamingStackName() throws IOException {
        // Known bad: nothing names a stack; then a name CloudFormation would refuse.
        assertThatThrownBy(() -> StackName.resolve(null, Map.of(), dir))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--stack-name: required");
        assertThatThrownBy(() -> StackName.resolve("my_stack;rm", Map.of(), dir))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--stack-name: must be a CloudFormation stack name");
        Files.writeString(dir.resolve("cdk.json"), "{\"context\":{}}");
        assertThatThrownBy(() -> StackName.resolve(null, Map.of(), dir))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no context namePrefix");
    }
}
