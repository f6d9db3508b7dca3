package com.payments.reconciler.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.LambdaFunction;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * StartWindow's asynchronous invocation (Scheduler invokes Lambda targets asynchronously): the settings sit on
 * the alias the schedule invokes, failed events go to an encrypted queue StartWindow's role may write to.
 */
class StartWindowInvocationTest {

    private final SynthesizedStack synth = SynthesizedStack.get();
    private final TemplateJson template = new TemplateJson(synth);

    @Test
    void eventInvokeConfigOnTheLiveAliasRetriesTwiceForAnHourThenTheFailureQueue() {
        var configs = template.resources("AWS::Lambda::EventInvokeConfig");
        assertThat(configs).hasSize(1);
        JsonNode resource = configs.values().iterator().next();
        JsonNode props = resource.path("Properties");
        assertThat(props.path("FunctionName")).isEqualTo(template.ref(synth.stack.functions().function(LambdaFunction.START_WINDOW)));
        assertThat(props.path("Qualifier").asText()).isEqualTo("live");
        assertThat(props.path("MaximumRetryAttempts").asInt()).isEqualTo(2);
        assertThat(props.path("MaximumEventAgeInSeconds").asInt()).isEqualTo(3600);
        assertThat(props.path("DestinationConfig").path("OnFailure").path("Destination"))
                .isEqualTo(template.getAtt(synth.stack.startWindowInvocation().failures(), "Arn"));
        assertThat(props.path("DestinationConfig").has("OnSuccess")).isFalse();
        // Created after the alias it qualifies and after the role policy Lambda checks for the destination.
        List<String> dependsOn = TemplateJson.strings(resource.path("DependsOn"));
        assertThat(dependsOn).contains(template.logicalId(synth.stack.functions().alias(LambdaFunction.START_WINDOW)),
                template.logicalId(synth.stack.functions().role(LambdaFunction.START_WINDOW)));
        assertThat(dependsOn).anyMatch(id -> id.startsWith("FunctionsStartWindowRoleDefaultPolicy"));
    }

    /** The alias carrying the EventInvokeConfig is the one the schedule invokes: settings on another qualifier would not apply. */
    @Test
    void theScheduleTargetsTheAliasThatCarriesTheSettings() {
        JsonNode schedule = template.resources("AWS::Scheduler::Schedule").values().iterator().next();
        JsonNode alias = template.ref(synth.stack.functions().alias(LambdaFunction.START_WINDOW));
        assertThat(schedule.path("Properties").path("Target").path("Arn")).isEqualTo(alias);
        JsonNode aliasProps = template.resource(template.logicalId(synth.stack.functions().alias(LambdaFunction.START_WINDOW))).path("Properties");
        JsonNode config = template.resources("AWS::Lambda::EventInvokeConfig").values().iterator().next().path("Properties");
        assertThat(aliasProps.path("Name").asText()).isEqualTo(config.path("Qualifier").asText());
        assertThat(aliasProps.path("FunctionName")).isEqualTo(config.path("FunctionName"));
    }

    @Test
    void failureQueueIsEncryptedTlsOnlyAndKeepsRecordsTwoWeeks() {
        JsonNode queue = template.resource(template.logicalId(synth.stack.startWindowInvocation().failures())).path("Properties");
        assertThat(queue.path("QueueName").asText()).isEqualTo("test-start-window-failures");
        assertThat(queue.path("KmsMasterKeyId")).isEqualTo(template.getAtt(synth.stack.keys().telemetry(), "Arn"));
        assertThat(queue.path("MessageRetentionPeriod").asInt()).isEqualTo(14 * 24 * 3600);
        JsonNode queueRef = template.ref(synth.stack.startWindowInvocation().failures());
        JsonNode policy = template.resources("AWS::SQS::QueuePolicy").values().stream()
                .filter(p -> p.path("Properties").path("Queues").path(0).equals(queueRef)).findFirst().orElseThrow().path("Properties");
        JsonNode deny = policy.path("PolicyDocument").path("Statement").path(0);
        assertThat(deny.path("Effect").asText()).isEqualTo("Deny");
        assertThat(deny.path("Condition").path("Bool").path("aws:SecureTransport").asText()).isEqualTo("false");
    }

    private List<JsonNode> statements(LambdaFunction function) {
        return template.statementsOf(synth.stack.functions().role(function));
    }

    /** Lambda delivers the invocation record with the function's own role: SendMessage on this queue and its key through SQS, nothing more. */
    @Test
    void startWindowsRoleMaySendToTheFailureQueueOnly() {
        List<JsonNode> statements = template.statementsOf(synth.stack.functions().role(LambdaFunction.START_WINDOW));
        List<JsonNode> sqs = statements.stream().filter(s -> TemplateJson.strings(s.path("Action")).stream().anyMatch(a -> a.startsWith("sqs:"))).toList();
        assertThat(sqs).hasSize(1);
        assertThat(TemplateJson.strings(sqs.get(0).path("Action"))).containsExactly("sqs:SendMessage");
        assertThat(sqs.get(0).path("Resource")).isEqualTo(template.getAtt(synth.stack.startWindowInvocation().failures(), "Arn"));
        List<JsonNode> kms = statements.stream().filter(s -> TemplateJson.strings(s.path("Action")).stream().anyMatch(a -> a.startsWith("kms:"))).toList();
        assertThat(kms).hasSize(1);
        assertThat(TemplateJson.strings(kms.get(0).path("Action"))).containsExactlyInAnyOrder("kms:GenerateDataKey", "kms:Decrypt");
        assertThat(kms.get(0).path("Resource")).isEqualTo(template.getAtt(synth.stack.keys().telemetry(), "Arn"));
        assertThat(kms.get(0).path("Condition").path("StringEquals").path("kms:ViaService").toString()).contains("sqs.");
        for (LambdaFunction other : LambdaFunction.values()) {
            String policy = template.statementsOf(synth.stack.functions().role(other)).toString();
            if (other == LambdaFunction.INGEST_EVENTS) {
                // Its queue's mapping polls with its role (IngestionTest); it sends only refused events, to the
                // refused-events queue, never to StartWindow's failure queue.
                assertThat(policy).as(other.logicalName()).doesNotContain(template.logicalId(synth.stack.startWindowInvocation().failures()));
            } else if (other == LambdaFunction.RECONCILE_PAGE || other == LambdaFunction.DELIVER_COMMANDS) {
                // They count the ingestion dead-letter queue's messages before releasing (IngestionTest): that one read.
                assertThat(policy).as(other.logicalName()).doesNotContain(template.logicalId(synth.stack.startWindowInvocation().failures()));
                assertThat(statements(other).stream().flatMap(st -> TemplateJson.strings(st.path("Action")).stream())
                        .filter(a -> a.startsWith("sqs:"))).as(other.logicalName()).containsOnly("sqs:GetQueueAttributes");
            } else if (other != LambdaFunction.START_WINDOW) {
                assertThat(policy).as(other.logicalName()).doesNotContain("sqs:");
            }
        }
    }
}
