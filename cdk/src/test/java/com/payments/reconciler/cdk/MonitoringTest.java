package com.payments.reconciler.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.Metrics;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Alarms, the superseded-run metric filter, the dashboard and the (context-enabled) alarm topic. */
class MonitoringTest {

    private final SynthesizedStack synth = SynthesizedStack.get();
    private final TemplateJson template = new TemplateJson(synth);

    @Test
    void alarmsOnFailedTimedOutAbortedSupersededRejectedAndDeadLetters() {
        Map<String, JsonNode> alarms = new HashMap<>();
        template.resources("AWS::CloudWatch::Alarm").values().forEach(a -> alarms.put(a.path("Properties").path("AlarmName").asText(), a.path("Properties")));
        assertThat(alarms.keySet()).containsExactlyInAnyOrder("test-ExecutionsFailed", "test-ExecutionsTimedOut", "test-ExecutionsAborted",
                "test-SupersededRuns", "test-DeliveryRejections", "test-ScheduleDeadLetters");
        JsonNode stateMachine = template.ref(synth.stack.workflow().stateMachine());
        assertMetric(alarms.get("test-ExecutionsFailed"), "AWS/States", "ExecutionsFailed", "StateMachineArn", stateMachine);
        assertMetric(alarms.get("test-ExecutionsTimedOut"), "AWS/States", "ExecutionsTimedOut", "StateMachineArn", stateMachine);
        assertMetric(alarms.get("test-ExecutionsAborted"), "AWS/States", "ExecutionsAborted", "StateMachineArn", stateMachine);
        assertMetric(alarms.get("test-SupersededRuns"), Metrics.NAMESPACE, Metrics.SUPERSEDED_RUNS, null, null);
        assertMetric(alarms.get("test-DeliveryRejections"), Metrics.NAMESPACE, Metrics.DELIVERY_REJECTED, "Function",
                TemplateJson.parse("\"" + LambdaFunction.DELIVER_COMMANDS.logicalName() + "\""));
        assertMetric(alarms.get("test-ScheduleDeadLetters"), "AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName",
                template.getAtt(synth.stack.schedule().deadLetterQueue(), "QueueName"));
        alarms.values().forEach(a -> {
            assertThat(a.path("Threshold").asDouble()).isEqualTo(1.0);
            assertThat(a.path("ComparisonOperator").asText()).isEqualTo("GreaterThanOrEqualToThreshold");
            assertThat(a.path("EvaluationPeriods").asInt()).isEqualTo(1);
            assertThat(a.path("TreatMissingData").asText()).isEqualTo("notBreaching");
            assertThat(a.path("AlarmActions").path(0)).as("the e-mail topic from context").isEqualTo(template.ref(synth.stack.monitoring().topic().orElseThrow()));
        });
    }

    /** The Superseded Fail state is reached by Catch, after which no handler runs: the log names the state. */
    @Test
    void supersededRunsAreCountedFromTheWorkflowsLogGroup() {
        JsonNode filter = template.resources("AWS::Logs::MetricFilter").values().iterator().next().path("Properties");
        assertThat(filter.path("LogGroupName")).isEqualTo(template.ref(synth.stack.workflow().logGroup()));
        assertThat(filter.path("FilterPattern").asText()).isEqualTo("{ ($.type = \"FailStateEntered\") && ($.details.name = \"Superseded\") }");
        JsonNode transform = filter.path("MetricTransformations").path(0);
        assertThat(transform.path("MetricNamespace").asText()).isEqualTo(Metrics.NAMESPACE);
        assertThat(transform.path("MetricName").asText()).isEqualTo(Metrics.SUPERSEDED_RUNS);
        assertThat(transform.path("MetricValue").asText()).isEqualTo("1");
        JsonNode asl = TemplateJson.parse(AslDefinition.text());
        assertThat(asl.path("States").path(Monitoring.SUPERSEDED_STATE).path("Type").asText()).isEqualTo("Fail");
    }

    @Test
    void dashboardShowsTheAlarmsExecutionsDurationAndTheJobsCounts() {
        JsonNode dashboard = template.resources("AWS::CloudWatch::Dashboard").values().iterator().next().path("Properties");
        assertThat(dashboard.path("DashboardName").asText()).isEqualTo("test-hold-release-reconciler");
        String body = dashboard.path("DashboardBody").toString();
        assertThat(body).contains("ExecutionTime", "ExecutionsFailed", "ExecutionsTimedOut", "ExecutionsAborted",
                Metrics.SUPERSEDED_RUNS, Metrics.DELIVERY_REJECTED, Metrics.DELIVERIES, Metrics.RELEASES_REQUESTED,
                Metrics.FENCED_REFUSALS, Metrics.DUPLICATE_STARTS_SUPPRESSED, "ApproximateNumberOfMessagesVisible", "alarm");
    }

    @Test
    void alarmEmailFromContextGetsAnEncryptedTopic() {
        JsonNode topic = template.resource(template.logicalId(synth.stack.monitoring().topic().orElseThrow())).path("Properties");
        assertThat(topic.path("KmsMasterKeyId")).isEqualTo(template.getAtt(synth.stack.keys().telemetry(), "Arn"));
        JsonNode subscription = template.resources("AWS::SNS::Subscription").values().iterator().next().path("Properties");
        assertThat(subscription.path("Protocol").asText()).isEqualTo("email");
        assertThat(subscription.path("Endpoint").asText()).isEqualTo("payments-oncall@example.com");
        String topicPolicy = template.resources("AWS::SNS::TopicPolicy").values().iterator().next().toString();
        assertThat(topicPolicy).contains("aws:SecureTransport");
    }

    private static void assertMetric(JsonNode alarm, String namespace, String metric, String dimension, JsonNode value) {
        assertThat(alarm.path("Namespace").asText()).isEqualTo(namespace);
        assertThat(alarm.path("MetricName").asText()).isEqualTo(metric);
        if (dimension == null) {
            assertThat(alarm.path("Dimensions").isMissingNode() || alarm.path("Dimensions").isEmpty()).isTrue();
        } else {
            assertThat(alarm.path("Dimensions").path(0).path("Name").asText()).isEqualTo(dimension);
            assertThat(alarm.path("Dimensions").path(0).path("Value")).isEqualTo(value);
        }
    }
}
