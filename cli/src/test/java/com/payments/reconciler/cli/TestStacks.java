package com.payments.reconciler.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.local.moto.MotoServer;
import com.payments.reconciler.store.Tables;
import com.payments.reconciler.window.WindowConfig;
import com.payments.reconciler.workflow.FixedNames;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.StackOutputs;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.cloudformation.CloudFormationClient;

/**
 * Reconciler stacks for the operator commands' tests: the outputs a deployed stack has (the keys of {@link StackOutputs}),
 * served by moto (which describes only stacks it created, so {@link #create} makes one from a one-resource template
 * whose Outputs carry the keys) or by {@link FakeStepFunctions#stack}.
 */
final class TestStacks {

    static final String NAME = "reconciler-test-" + FixedNames.STACK_SUFFIX;

    private TestStacks() {
    }

    /** The outputs of a stack deployed with the default window settings, naming {@code stateMachineArn}. */
    static Map<String, String> outputs(String stateMachineArn) {
        return outputs(stateMachineArn, WindowConfig.defaults());
    }

    static Map<String, String> outputs(String stateMachineArn, WindowConfig window) {
        Map<String, String> outputs = new LinkedHashMap<>();
        outputs.put(StackOutputs.STATE_MACHINE_ARN, stateMachineArn);
        Tables.ALL.forEach(schema -> outputs.put(StackOutputs.tableName(schema), "reconciler-test-" + schema.logicalName()));
        Map<String, String> env = window.toEnvironment();
        StackOutputs.WINDOW_SETTINGS.forEach((envVar, key) -> outputs.put(key, env.get(envVar)));
        return outputs;
    }

    /** Creates stack {@code name} in moto with these outputs. */
    static void create(MotoServer moto, String name, Map<String, String> outputs) {
        ObjectNode template = Json.mapper().createObjectNode();
        // CloudFormation needs one resource; moto records this one without creating anything.
        template.putObject("Resources").putObject("Placeholder").put("Type", "AWS::CloudFormation::WaitConditionHandle");
        ObjectNode out = template.putObject("Outputs");
        outputs.forEach((k, v) -> out.putObject(k).put("Value", v));
        try (CloudFormationClient cf = CloudFormationClient.builder().endpointOverride(moto.endpoint()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.builder().socketTimeout(Duration.ofSeconds(30)).build()).build()) {
            cf.createStack(b -> b.stackName(name).templateBody(template.toString()));
        }
    }
}
