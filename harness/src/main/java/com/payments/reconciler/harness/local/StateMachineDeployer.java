package com.payments.reconciler.harness.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.WorkflowDefinition;
import java.io.IOException;
import java.io.UncheckedIOException;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.StateMachineType;

/**
 * Creates the state machine from the same ASL file the CDK stack deploys ({@link WorkflowDefinition}), through the real
 * {@link SfnClient}, with the {@code ${...}FunctionArn} substitutions pointing at the local Invoke
 * endpoint's functions — exactly what CDK's {@code definitionSubstitutions} does with the aliases.
 */
public final class StateMachineDeployer {

    public static final String STATE_MACHINE_NAME = "hold-release-reconciler";
    static final String LOCAL_ACCOUNT = "123456789012";
    static final String LOCAL_REGION = "eu-west-1";
    private static final ObjectMapper JSON = Json.mapper();

    private final SfnClient sfn;

    public StateMachineDeployer(SfnClient sfn) {
        this.sfn = sfn;
    }

    public static String localFunctionArn(LambdaFunction function) {
        return "arn:aws:lambda:" + LOCAL_REGION + ":" + LOCAL_ACCOUNT + ":function:" + function.logicalName();
    }

    /**
     * The definition with every function ARN substituted.
     *
     * @param fastRetries tests only: every Retry waits 1 s at most, so retried paths run in seconds;
     *                    the retriers' error lists and attempt counts stay as written
     */
    public static String definition(boolean fastRetries) {
        String definition = WorkflowDefinition.shipped().substituted(StateMachineDeployer::localFunctionArn);
        if (!fastRetries) {
            return definition;
        }
        try {
            JsonNode root = WorkflowDefinition.parse(definition);
            shortenRetries(root);
            return JSON.writeValueAsString(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void shortenRetries(JsonNode node) {
        if (node.isObject()) {
            JsonNode retry = node.get("Retry");
            if (retry != null && retry.isArray()) {
                for (JsonNode retrier : retry) {
                    ObjectNode r = (ObjectNode) retrier;
                    if (r.has("IntervalSeconds")) {
                        r.put("IntervalSeconds", 1);
                    }
                    if (r.has("MaxDelaySeconds")) {
                        r.put("MaxDelaySeconds", 1);
                    }
                }
            }
            node.forEach(StateMachineDeployer::shortenRetries);
        } else if (node.isArray()) {
            node.forEach(StateMachineDeployer::shortenRetries);
        }
    }

    /**
     * Creates (or, after a reset, recreates) the state machine under {@code name} (the synthesised template's, whose
     * policies name its executions, when the functions run from it); returns its ARN.
     */
    public String deploy(boolean fastRetries, String name) {
        String definition = definition(fastRetries);
        return sfn.createStateMachine(b -> b
                .name(name)
                .type(StateMachineType.STANDARD)
                .roleArn("arn:aws:iam::" + LOCAL_ACCOUNT + ":role/" + STATE_MACHINE_NAME + "-local")
                .definition(definition)).stateMachineArn();
    }
}
