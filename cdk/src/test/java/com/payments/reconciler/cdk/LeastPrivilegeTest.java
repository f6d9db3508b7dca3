package com.payments.reconciler.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.LambdaFunction;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * IAM as synthesised, checks on the template alone: no wildcard actions, no data action on "*", no AWS managed
 * policy; each function's logs go to its own group; StartWindow reaches only this state machine; only
 * DeliverCommands reads the secret. That each role allows what its handler calls, and only that, is proven by
 * behaviour in the harness module's LeastPrivilegeNightTest: a local night's recorded calls evaluated against
 * these roles in the synthesised template, every call allowed and every granted action exercised or explained.
 */
class LeastPrivilegeTest {

    /** The only actions anywhere in the stack allowed on Resource "*": they accept no resource ARN. */
    private static final Set<String> RESOURCELESS = Set.of("xray:PutTraceSegments", "xray:PutTelemetryRecords",
            "xray:GetSamplingRules", "xray:GetSamplingTargets", "logs:CreateLogDelivery", "logs:GetLogDelivery",
            "logs:UpdateLogDelivery", "logs:DeleteLogDelivery", "logs:ListLogDeliveries", "logs:PutResourcePolicy",
            "logs:DescribeResourcePolicies", "logs:DescribeLogGroups");

    private final SynthesizedStack synth = SynthesizedStack.get();
    private final TemplateJson template = new TemplateJson(synth);

    @Test
    void noWildcardActionsNoDataActionOnEverythingNoManagedPolicies() {
        for (Map.Entry<String, JsonNode> policy : template.resources("AWS::IAM::Policy").entrySet()) {
            for (JsonNode statement : policy.getValue().path("Properties").path("PolicyDocument").path("Statement")) {
                List<String> actions = TemplateJson.strings(statement.path("Action"));
                assertThat(actions).as(policy.getKey()).noneMatch(a -> a.contains("*"));
                assertThat(statement.path("Effect").asText()).isEqualTo("Allow");
                if (TemplateJson.nodes(statement.path("Resource")).stream().anyMatch(r -> r.isTextual() && r.asText().equals("*"))) {
                    assertThat(RESOURCELESS).as(policy.getKey() + " actions on Resource *").containsAll(actions);
                }
            }
        }
        for (Map.Entry<String, JsonNode> role : template.resources("AWS::IAM::Role").entrySet()) {
            assertThat(role.getValue().path("Properties").has("ManagedPolicyArns")).as(role.getKey()).isFalse();
        }
    }

    @Test
    void eachFunctionWritesOnlyToItsOwnLogGroup() {
        for (LambdaFunction function : LambdaFunction.values()) {
            List<JsonNode> logs = template.statementsOf(synth.stack.functions().role(function)).stream()
                    .filter(s -> TemplateJson.strings(s.path("Action")).stream().anyMatch(a -> a.startsWith("logs:"))).toList();
            assertThat(logs).hasSize(1);
            assertThat(TemplateJson.strings(logs.get(0).path("Action"))).containsExactlyInAnyOrder("logs:CreateLogStream", "logs:PutLogEvents");
            assertThat(logs.get(0).path("Resource")).isEqualTo(template.getAtt(synth.stack.functions().logGroup(function), "Arn"));
        }
    }

    @Test
    void startWindowMayOnlyStartAndDescribeExecutionsOfThisStateMachine() {
        JsonNode stateMachine = template.ref(synth.stack.workflow().stateMachine());
        Map<String, String> states = new TreeMap<>();
        for (JsonNode statement : template.statementsOf(synth.stack.functions().role(LambdaFunction.START_WINDOW))) {
            for (String action : TemplateJson.strings(statement.path("Action"))) {
                if (action.startsWith("states:")) {
                    states.put(action, statement.path("Resource").toString());
                }
            }
        }
        assertThat(states.keySet()).containsExactly("states:DescribeExecution", "states:StartExecution");
        assertThat(states.get("states:StartExecution")).isEqualTo(stateMachine.toString());
        assertThat(states.get("states:DescribeExecution"))
                .contains(":states:").contains(":execution:test-hold-release-reconciler:*");
        for (LambdaFunction other : LambdaFunction.values()) {
            if (other != LambdaFunction.START_WINDOW) {
                assertThat(template.statementsOf(synth.stack.functions().role(other)).toString()).doesNotContain("states:");
            }
        }
    }

    @Test
    void onlyTheDeliveryFunctionReadsTheProviderSecret() {
        JsonNode secret = template.ref(synth.stack.providerSecret());
        int readers = 0;
        for (Map.Entry<String, JsonNode> policy : template.resources("AWS::IAM::Policy").entrySet()) {
            String text = policy.getValue().toString();
            if (text.contains("secretsmanager:")) {
                readers++;
                assertThat(policy.getValue().path("Properties").path("Roles").path(0))
                        .isEqualTo(template.ref(synth.stack.functions().role(LambdaFunction.DELIVER_COMMANDS)));
            }
        }
        assertThat(readers).isEqualTo(1);
        List<JsonNode> statements = template.statementsOf(synth.stack.functions().role(LambdaFunction.DELIVER_COMMANDS));
        JsonNode read = statements.stream().filter(s -> TemplateJson.strings(s.path("Action")).contains("secretsmanager:GetSecretValue")).findFirst().orElseThrow();
        assertThat(TemplateJson.strings(read.path("Action"))).containsExactly("secretsmanager:GetSecretValue");
        assertThat(read.path("Resource")).isEqualTo(secret);
        JsonNode secretProps = template.resource(template.logicalId(synth.stack.providerSecret())).path("Properties");
        assertThat(secretProps.path("Name").asText()).isEqualTo("test/provider-api-key");
        assertThat(secretProps.path("KmsKeyId")).isEqualTo(template.getAtt(synth.stack.keys().data(), "Arn"));
        assertThat(secretProps.has("SecretString")).as("no key material in the template").isFalse();
        JsonNode policy = template.resources("AWS::SecretsManager::ResourcePolicy").values().iterator().next().path("Properties");
        assertThat(policy.path("SecretId")).isEqualTo(secret);
        JsonNode deny = policy.path("ResourcePolicy").path("Statement").path(0);
        assertThat(deny.path("Effect").asText()).isEqualTo("Deny");
        assertThat(deny.path("Principal").path("AWS").asText()).isEqualTo("*");
        assertThat(TemplateJson.strings(deny.path("Action"))).containsExactly("secretsmanager:GetSecretValue");
        assertThat(deny.path("Condition").path("StringNotEquals").path("aws:PrincipalArn"))
                .isEqualTo(template.getAtt(synth.stack.functions().role(LambdaFunction.DELIVER_COMMANDS), "Arn"));
    }

    @Test
    void keysRotateAndAreRetained() {
        Map<String, JsonNode> keys = template.resources("AWS::KMS::Key");
        assertThat(keys).hasSize(2);
        keys.values().forEach(k -> {
            assertThat(k.path("Properties").path("EnableKeyRotation").asBoolean()).isTrue();
            assertThat(k.path("DeletionPolicy").asText()).isEqualTo("RetainExceptOnCreate");
        });
    }
}
