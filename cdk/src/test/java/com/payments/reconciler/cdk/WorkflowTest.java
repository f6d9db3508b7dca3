package com.payments.reconciler.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.WorkflowDefinition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The Standard workflow: definition from the shipped ASL, substitutions to the aliases, logging, tracing, role. */
class WorkflowTest {

    private final SynthesizedStack synth = SynthesizedStack.get();
    private final TemplateJson template = new TemplateJson(synth);

    @Test
    void standardWorkflowNamedWithThePrefixTracingOn() {
        assertThat(template.resources("AWS::StepFunctions::StateMachine")).hasSize(1);
        JsonNode props = stateMachine().path("Properties");
        assertThat(props.path("StateMachineType").asText()).isEqualTo("STANDARD");
        assertThat(props.path("StateMachineName").asText()).isEqualTo("test-hold-release-reconciler");
        assertThat(props.path("TracingConfiguration").path("Enabled").asBoolean()).isTrue();
    }

    /** The template's definition after its substitutions is the repository's file after the same substitutions. */
    @Test
    void definitionIsTheShippedAslAfterSubstitution() throws IOException {
        String file = Files.readString(Path.of(System.getProperty("reconciler.repositoryRoot"), "statemachine", "reconciler.asl.json"),
                StandardCharsets.UTF_8);
        JsonNode props = stateMachine().path("Properties");
        assertThat(props.path("DefinitionString").isTextual()).as("inlined, not an S3 asset").isTrue();
        Map<String, String> substitutions = new TreeMap<>();
        props.path("DefinitionSubstitutions").properties().forEach(e -> substitutions.put(e.getKey(), "ALIAS:" + e.getValue().path("Ref").asText()));

        String deployed = WorkflowDefinition.substitute(props.path("DefinitionString").asText(), substitutions);
        String expected = WorkflowDefinition.substitute(file, substitutions);
        assertThat(deployed).isEqualTo(expected);
        assertThat(deployed).doesNotContain("${");
        assertThat(TemplateJson.parse(deployed).path("States").size()).isEqualTo(TemplateJson.parse(file).path("States").size());
    }

    @Test
    void eachSubstitutionIsTheAliasOfItsFunction() {
        JsonNode subs = stateMachine().path("Properties").path("DefinitionSubstitutions");
        Set<String> names = new HashSet<>();
        for (LambdaFunction function : LambdaFunction.values()) {
            if (function.invokedByWorkflow()) {
                assertThat(subs.path(function.aslSubstitution())).as(function.aslSubstitution())
                        .isEqualTo(template.ref(synth.stack.functions().alias(function)));
                names.add(function.aslSubstitution());
            }
        }
        List<String> present = subs.properties().stream().map(Map.Entry::getKey).toList();
        assertThat(present).containsExactlyInAnyOrderElementsOf(names);
        assertThat(WorkflowDefinition.shipped().substitutionsUsed()).isEqualTo(names);
    }

    /** Level ALL, no execution data: state names and transitions are logged, inputs and outputs (ids, amounts) are not. */
    @Test
    void logsAllEventsWithoutExecutionDataToAnEncryptedRetainedGroup() {
        JsonNode logging = stateMachine().path("Properties").path("LoggingConfiguration");
        assertThat(logging.path("Level").asText()).isEqualTo("ALL");
        assertThat(logging.path("IncludeExecutionData").asBoolean(true)).isFalse();
        JsonNode destination = logging.path("Destinations").path(0).path("CloudWatchLogsLogGroup").path("LogGroupArn");
        assertThat(destination).isEqualTo(template.getAtt(synth.stack.workflow().logGroup(), "Arn"));
        JsonNode group = template.resource(template.logicalId(synth.stack.workflow().logGroup()));
        assertThat(group.path("Properties").path("LogGroupName").asText()).isEqualTo("/aws/vendedlogs/states/test-hold-release-reconciler");
        assertThat(group.path("Properties").path("RetentionInDays").asInt()).isEqualTo(365);
        assertThat(group.path("Properties").path("KmsKeyId")).isEqualTo(template.getAtt(synth.stack.keys().telemetry(), "Arn"));
    }

    /** The role may invoke the four aliases; everything else it holds is log delivery and X-Ray, which take no resource. */
    @Test
    void stateMachineRoleInvokesOnlyItsFunctionAliases() {
        List<JsonNode> statements = template.statementsOf(synth.stack.workflow().stateMachine().getRole());
        Set<String> serviceWide = Set.of("logs:CreateLogDelivery", "logs:GetLogDelivery", "logs:UpdateLogDelivery", "logs:DeleteLogDelivery",
                "logs:ListLogDeliveries", "logs:PutResourcePolicy", "logs:DescribeResourcePolicies", "logs:DescribeLogGroups",
                "xray:PutTraceSegments", "xray:PutTelemetryRecords", "xray:GetSamplingRules", "xray:GetSamplingTargets");
        int invokes = 0;
        for (JsonNode statement : statements) {
            List<String> actions = TemplateJson.strings(statement.path("Action"));
            if (actions.contains("lambda:InvokeFunction")) {
                invokes++;
                assertThat(actions).containsExactly("lambda:InvokeFunction");
                List<JsonNode> expected = Arrays.stream(LambdaFunction.values()).filter(LambdaFunction::invokedByWorkflow)
                        .map(f -> template.ref(synth.stack.functions().alias(f))).toList();
                assertThat(TemplateJson.nodes(statement.path("Resource"))).containsExactlyInAnyOrderElementsOf(expected);
            } else {
                assertThat(serviceWide).as("service-wide action").containsAll(actions);
            }
        }
        assertThat(invokes).isEqualTo(1);
    }

    @Test
    void outputsTheArnAndAConsoleLink() {
        JsonNode outputs = template.root().path("Outputs");
        JsonNode arn = template.ref(synth.stack.workflow().stateMachine());
        assertThat(outputs.path(ReconcilerStack.OUTPUT_STATE_MACHINE_ARN).path("Value")).isEqualTo(arn);
        String link = outputs.path(ReconcilerStack.OUTPUT_CONSOLE_URL).path("Value").toString();
        assertThat(link).contains(".console.aws.amazon.com/states/home?region=").contains("#/statemachines/view/").contains(arn.toString());
        // The deployed window settings the operator's commands read, from the same map as the functions' environment.
        java.util.Map<String, String> window = synth.config.windowEnvironment();
        com.payments.reconciler.workflow.StackOutputs.WINDOW_SETTINGS.forEach((envVar, key) ->
                assertThat(outputs.path(key).path("Value").asText()).as(key).isEqualTo(window.get(envVar)));
        for (com.payments.reconciler.store.TableSchema schema : com.payments.reconciler.store.Tables.ALL) {
            assertThat(outputs.has(com.payments.reconciler.workflow.StackOutputs.tableName(schema))).as(schema.logicalName()).isTrue();
        }
    }

    private JsonNode stateMachine() {
        return template.resource(template.logicalId(synth.stack.workflow().stateMachine()));
    }

}
