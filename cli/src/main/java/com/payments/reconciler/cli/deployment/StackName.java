package com.payments.reconciler.cli.deployment;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.FixedNames;
import com.payments.reconciler.workflow.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Which stack an operator's command means when {@code --stack-name} is not given: {@code RECONCILER_STACK}, else the stack
 * {@code cdk deploy} creates from {@code cdk.json}'s {@code namePrefix} context in the working directory (bin/reconciler runs
 * in the repository root).
 */
public final class StackName {

    public static final String ENV = "RECONCILER_STACK";
    public static final String CDK_JSON = "cdk.json";
    /** CloudFormation's rule for a stack name. */
    private static final Pattern VALID = Pattern.compile("[A-Za-z][A-Za-z0-9-]{0,127}");

    private StackName() {
    }

    public static String resolve(String flag, Map<String, String> env, Path workingDirectory) {
        String name = flag != null ? flag : env.get(ENV) != null && !env.get(ENV).isBlank() ? env.get(ENV) : fromCdkJson(workingDirectory);
        if (!VALID.matcher(name).matches()) {
            throw new IllegalArgumentException("--stack-name: must be a CloudFormation stack name (a letter, then up to 127 letters, digits or '-'), was '" + name + "'");
        }
        return name;
    }

    private static String fromCdkJson(Path dir) {
        Path file = dir.resolve(CDK_JSON);
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("--stack-name: required (no " + ENV + " and no " + CDK_JSON + " here to take namePrefix from), e.g. --stack-name reconciler-prod-" + FixedNames.STACK_SUFFIX);
        }
        try {
            JsonNode prefix = Json.mapper().readTree(file.toFile()).path("context").path("namePrefix");
            if (!prefix.isTextual()) {
                throw new IllegalArgumentException("--stack-name: required (" + CDK_JSON + " has no context namePrefix), e.g. --stack-name reconciler-prod-" + FixedNames.STACK_SUFFIX);
            }
            return FixedNames.stackName(prefix.asText());
        } catch (IOException e) {
            throw new IllegalArgumentException("--stack-name: required (" + CDK_JSON + " is not readable JSON: " + e.getMessage() + ")", e);
        }
    }
}
