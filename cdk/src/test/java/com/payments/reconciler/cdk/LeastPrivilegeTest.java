package com.payments.reconciler.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.store.TableSchema;
import com.payments.reconciler.store.Tables;
import com.payments.reconciler.workflow.LambdaFunction;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * IAM as synthesised: each function's data access is exactly what its handler calls (written out here by
 * hand from the handler code, independently of {@link DataAccess}), no wildcard actions, no data action on
 * "*", no AWS managed policy; StartWindow reaches only this state machine; only DeliverCommands reads the secret.
 */
class LeastPrivilegeTest {

    private static final Map<LambdaFunction, Map<String, Set<String>>> EXPECTED_DATA_ACCESS = Map.of(
            LambdaFunction.START_WINDOW, Map.of(),
            LambdaFunction.ACQUIRE_LEASE, Map.of("Leases", Set.of("dynamodb:UpdateItem")),
            LambdaFunction.RECONCILE_PAGE, Map.of(
                    "Leases", Set.of("dynamodb:UpdateItem", "dynamodb:ConditionCheckItem"),
                    "Authorisations/index/pending-by-age", Set.of("dynamodb:Query"),
                    "Authorisations", Set.of("dynamodb:UpdateItem"),
                    "Settlements", Set.of("dynamodb:BatchGetItem", "dynamodb:ConditionCheckItem"),
                    "ReleaseCommands", Set.of("dynamodb:PutItem")),
            LambdaFunction.DELIVER_COMMANDS, Map.of(
                    "Leases", Set.of("dynamodb:UpdateItem", "dynamodb:ConditionCheckItem"),
                    "ReleaseCommands/index/pending-delivery", Set.of("dynamodb:Query"),
                    "ReleaseCommands", Set.of("dynamodb:UpdateItem"),
                    "Idempotency", Set.of("dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem")),
            LambdaFunction.RELEASE_LEASE, Map.of("Leases", Set.of("dynamodb:UpdateItem")));

    /** The only actions anywhere in the stack allowed on Resource "*": they accept no resource ARN. */
    private static final Set<String> RESOURCELESS = Set.of("xray:PutTraceSegments", "xray:PutTelemetryRecords",
            "xray:GetSamplingRules", "xray:GetSamplingTargets", "logs:CreateLogDelivery", "logs:GetLogDelivery",
            "logs:UpdateLogDelivery", "logs:DeleteLogDelivery", "logs:ListLogDeliveries", "logs:PutResourcePolicy",
            "logs:DescribeResourcePolicies", "logs:DescribeLogGroups");

    private final SynthesizedStack synth = SynthesizedStack.get();
    private final TemplateJson template = new TemplateJson(synth);

    @Test
    void eachFunctionHasExactlyTheDataAccessItsHandlerCalls() {
        for (LambdaFunction function : LambdaFunction.values()) {
            Map<String, Set<String>> actual = new TreeMap<>();
            for (JsonNode statement : template.statementsOf(synth.stack.functions().role(function))) {
                List<String> actions = TemplateJson.strings(statement.path("Action"));
                if (actions.stream().anyMatch(a -> a.startsWith("dynamodb:"))) {
                    assertThat(actions).allMatch(a -> a.startsWith("dynamodb:"));
                    for (JsonNode resource : TemplateJson.nodes(statement.path("Resource"))) {
                        actual.computeIfAbsent(tableLabel(resource), k -> new TreeSet<>()).addAll(actions);
                    }
                }
            }
            assertThat(actual).as(function.logicalName()).isEqualTo(new TreeMap<>(EXPECTED_DATA_ACCESS.get(function)));
        }
    }

    @Test
    void dataAccessMatchesTheHandWrittenExpectation() {
        for (LambdaFunction function : LambdaFunction.values()) {
            Map<String, Set<String>> declared = new HashMap<>();
            for (DataAccess grant : DataAccess.of(function)) {
                String label = grant.schema().logicalName() + grant.index().map(i -> "/index/" + i).orElse("");
                declared.computeIfAbsent(label, k -> new TreeSet<>()).addAll(grant.actions());
            }
            assertThat(declared).as(function.logicalName()).isEqualTo(EXPECTED_DATA_ACCESS.get(function));
        }
    }

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
            assertThat(k.path("DeletionPolicy").asText()).isEqualTo("Retain");
        });
    }

    private String tableLabel(JsonNode resource) {
        for (TableSchema schema : Tables.ALL) {
            JsonNode arn = template.getAtt(synth.stack.tables().table(schema), "Arn");
            if (resource.equals(arn)) {
                return schema.logicalName();
            }
            JsonNode join = resource.path("Fn::Join");
            if (join.isArray() && join.path(1).path(0).equals(arn)) {
                return schema.logicalName() + join.path(1).path(1).asText();
            }
        }
        throw new AssertionError("a DynamoDB action on something that is not one of the stack's tables: " + resource);
    }

}
