package com.payments.reconciler.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.Metrics;
import com.payments.reconciler.workflow.Timing;
import com.payments.reconciler.workflow.WorkflowDefinition;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Alarms, the superseded-run metric filter, the dashboard and the alarm topic with its policies. */
class MonitoringTest {

    private final SynthesizedStack synth = SynthesizedStack.get();
    private final TemplateJson template = new TemplateJson(synth);

    @Test
    void alarmsOnFailedTimedOutAbortedSupersededRejectedAndDeadLetters() {
        Map<String, JsonNode> alarms = alarms();
        assertThat(alarms.keySet()).containsExactlyInAnyOrder("test-ExecutionsFailed", "test-ExecutionsTimedOut", "test-ExecutionsAborted",
                "test-SupersededRuns", "test-DeliveryRejections", "test-DeliveryQuarantined", "test-DeliveryEscalated", "test-ScheduleDeadLetters",
                "test-StartWindowErrors", "test-StartWindowFailures", "test-NightNotStarted", "test-BacklogLeft",
                "test-StartWindowThrottles", "test-AcquireLeaseThrottles", "test-ReconcilePageThrottles", "test-DeliverCommandsThrottles",
                "test-ReleaseLeaseThrottles", "test-IngestEventsThrottles", "test-IngestDeadLetters", "test-IngestRefused", "test-IngestQueueAge",
                "test-FeedNotComplete", "test-ReleaseSurge", "test-CapturedAfterRelease", "test-HeldForFeed");
        assertMetric(alarms.get("test-ReleaseSurge"), Metrics.NAMESPACE, Metrics.RELEASE_SURGE_HELD, "Function",
                TemplateJson.parse("\"" + LambdaFunction.RECONCILE_PAGE.logicalName() + "\""));
        assertMetric(alarms.get("test-CapturedAfterRelease"), Metrics.NAMESPACE, Metrics.CAPTURED_AFTER_RELEASE, "Function",
                TemplateJson.parse("\"" + LambdaFunction.INGEST_EVENTS.logicalName() + "\""));
        assertThat(alarms.remove("test-CapturedAfterRelease").path("Period").asInt()).as("a day's captures").isEqualTo(86_400);
        JsonNode stateMachine = template.ref(synth.stack.workflow().stateMachine());
        assertMetric(alarms.get("test-ExecutionsFailed"), "AWS/States", "ExecutionsFailed", "StateMachineArn", stateMachine);
        assertMetric(alarms.get("test-ExecutionsTimedOut"), "AWS/States", "ExecutionsTimedOut", "StateMachineArn", stateMachine);
        assertMetric(alarms.get("test-ExecutionsAborted"), "AWS/States", "ExecutionsAborted", "StateMachineArn", stateMachine);
        assertMetric(alarms.get("test-SupersededRuns"), Metrics.NAMESPACE, Metrics.SUPERSEDED_RUNS, null, null);
        assertMetric(alarms.get("test-DeliveryRejections"), Metrics.NAMESPACE, Metrics.DELIVERY_REJECTED, "Function",
                TemplateJson.parse("\"" + LambdaFunction.DELIVER_COMMANDS.logicalName() + "\""));
        assertMetric(alarms.get("test-DeliveryQuarantined"), Metrics.NAMESPACE, Metrics.DELIVERY_QUARANTINED, "Function",
                TemplateJson.parse("\"" + LambdaFunction.DELIVER_COMMANDS.logicalName() + "\""));
        assertMetric(alarms.get("test-DeliveryEscalated"), Metrics.NAMESPACE, Metrics.DELIVERY_ESCALATED, "Function",
                TemplateJson.parse("\"" + LambdaFunction.DELIVER_COMMANDS.logicalName() + "\""));
        assertMetric(alarms.get("test-ScheduleDeadLetters"), "AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName",
                template.getAtt(synth.stack.schedule().deadLetterQueue(), "QueueName"));
        assertMetric(alarms.get("test-StartWindowErrors"), "AWS/Lambda", "Errors", "FunctionName",
                template.ref(synth.stack.functions().function(LambdaFunction.START_WINDOW)));
        assertThat(alarms.get("test-StartWindowErrors").path("Statistic").asText()).isEqualTo("Sum");
        assertMetric(alarms.get("test-StartWindowFailures"), "AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName",
                template.getAtt(synth.stack.startWindowInvocation().failures(), "QueueName"));
        for (LambdaFunction function : LambdaFunction.values()) {
            JsonNode throttles = alarms.get("test-" + function.logicalName() + "Throttles");
            assertMetric(throttles, "AWS/Lambda", "Throttles", "FunctionName", template.ref(synth.stack.functions().function(function)));
            assertThat(throttles.path("Statistic").asText()).isEqualTo("Sum");
        }
        alarms.remove("test-NightNotStarted");
        alarms.remove("test-BacklogLeft");
        alarms.remove("test-IngestQueueAge"); // IngestionTest: a threshold in seconds
        // The sum of what both gated functions emit: a metric math alarm, its period on each metric.
        JsonNode held = alarms.remove("test-HeldForFeed");
        assertThat(held.path("Threshold").asDouble()).isEqualTo(1.0);
        assertThat(held.path("TreatMissingData").asText()).isEqualTo("notBreaching");
        assertThat(held.toString()).contains("\"MetricName\":\"" + Metrics.HELD_FOR_FEED + "\"")
                .contains(LambdaFunction.RECONCILE_PAGE.logicalName()).contains(LambdaFunction.DELIVER_COMMANDS.logicalName());
        JsonNode feed = alarms.remove("test-FeedNotComplete");
        assertThat(feed.path("Threshold").asDouble()).isEqualTo(1.0);
        assertThat(feed.path("TreatMissingData").asText()).isEqualTo("notBreaching");
        assertThat(feed.toString()).contains(Metrics.FEED_NOT_COMPLETE).contains(LambdaFunction.RECONCILE_PAGE.logicalName())
                .contains(LambdaFunction.DELIVER_COMMANDS.logicalName());
        alarms.values().forEach(a -> {
            assertThat(a.path("Threshold").asDouble()).isEqualTo(1.0);
            assertThat(a.path("ComparisonOperator").asText()).isEqualTo("GreaterThanOrEqualToThreshold");
            assertThat(a.path("EvaluationPeriods").asInt()).isEqualTo(1);
            assertThat(a.path("TreatMissingData").asText()).isEqualTo("notBreaching");
            // A metric math alarm (IngestDeadLetters) has its period on each metric instead.
            if (a.has("Metrics")) {
                a.path("Metrics").forEach(m -> {
                    if (m.has("MetricStat")) {
                        assertThat(m.path("MetricStat").path("Period").asInt()).isEqualTo(300);
                    }
                });
            } else {
                assertThat(a.path("Period").asInt()).isEqualTo(300);
            }
        });
    }

    /**
     * Every alarm but SupersededRuns notifies the one topic, which exists whatever the context says, when it fires and
     * when a state alarm is over; SupersededRuns does not page (ExecutionsFailed pages for the same run: FirstDeployTest).
     */
    @Test
    void everyAlarmButSupersededRunsAndReleaseSurgeNotifiesTheAlarmTopic() {
        JsonNode topic = template.ref(synth.stack.alarmTopic().topic());
        Map<String, JsonNode> alarms = alarms();
        assertThat(alarms).hasSize(25);
        JsonNode superseded = alarms.remove("test-SupersededRuns");
        assertThat(superseded.has("AlarmActions")).isFalse();
        assertThat(alarms.remove("test-ReleaseSurge").has("AlarmActions")).as("ReleaseSurge pages through ExecutionsFailed").isFalse();
        assertThat(alarms).allSatisfy((name, a) -> {
            assertThat(a.path("AlarmActions")).as(name).hasSize(1);
            assertThat(a.path("AlarmActions").path(0)).as(name).isEqualTo(topic);
        });
        assertThat(FirstDeployTest.alarmsWithWrongRecovery(template.root())).as("OK actions on state alarms only").isEmpty();
    }

    /**
     * A night that ended SUCCEEDED with commands left PENDING: DeliverCommands' BacklogLeft, summed over a
     * period as long as an execution may run (10 hours, so one night's data points fall into one window and the
     * alarm is OK again before the next night), missing data not breaching; the description says what to do.
     */
    @Test
    void backlogLeftFiresOnceANightLeavesWorkPendingAndSaysWhatToDo() {
        JsonNode alarm = alarms().get("test-BacklogLeft");
        assertMetric(alarm, Metrics.NAMESPACE, Metrics.BACKLOG_LEFT, "Function",
                TemplateJson.parse("\"" + LambdaFunction.DELIVER_COMMANDS.logicalName() + "\""));
        assertThat(alarm.path("Dimensions")).hasSize(1);
        assertThat(alarm.path("Statistic").asText()).isEqualTo("Sum");
        assertThat(alarm.path("Threshold").asDouble()).isEqualTo(1.0);
        assertThat(alarm.path("ComparisonOperator").asText()).isEqualTo("GreaterThanOrEqualToThreshold");
        assertThat(alarm.path("EvaluationPeriods").asInt()).isEqualTo(1);
        assertThat(alarm.path("TreatMissingData").asText()).isEqualTo("notBreaching");
        assertThat(alarm.path("Period").asLong()).isEqualTo(Timing.EXECUTION_TIMEOUT.toSeconds()).isEqualTo(36_000L);
        assertThat(alarm.path("AlarmDescription").asText()).contains("SUCCEEDED", "PENDING", "next run", "raise the quota",
                "lengthen the budget", "run an extra window");
    }

    /**
     * No execution started in 25 hourly periods, missing data breaching: ExecutionsStarted of this state
     * machine is simply absent on a night that did not start. 3600 s × 25 = 90,000 s, inside CloudWatch's
     * 7-day range for periods of an hour or more (under an hour the range is capped at one day).
     */
    @Test
    void nightNotStartedFiresOnMissingStartsOfThisStateMachine() {
        JsonNode alarm = alarms().get("test-NightNotStarted");
        assertMetric(alarm, "AWS/States", "ExecutionsStarted", "StateMachineArn", template.ref(synth.stack.workflow().stateMachine()));
        assertThat(alarm.path("Statistic").asText()).isEqualTo("Sum");
        assertThat(alarm.path("Period").asInt()).isEqualTo(3600);
        assertThat(alarm.path("EvaluationPeriods").asInt()).isEqualTo(25);
        assertThat(alarm.path("DatapointsToAlarm").asInt()).isEqualTo(25);
        assertThat(alarm.path("ComparisonOperator").asText()).isEqualTo("LessThanThreshold");
        assertThat(alarm.path("Threshold").asDouble()).isEqualTo(1.0);
        assertThat(alarm.path("TreatMissingData").asText()).isEqualTo("breaching");
        assertThat(alarm.path("Period").asLong() * alarm.path("EvaluationPeriods").asLong())
                .as("CloudWatch: period x evaluation periods <= 7 days for periods >= 1 h")
                .isLessThanOrEqualTo(7 * 24 * 3600L).isGreaterThan(24 * 3600L);
    }

    /** CloudWatch (the service principal) may publish, for this account's alarms of this stack only; publishing without TLS is denied. */
    @Test
    void topicPolicyLetsThisAccountsAlarmsPublishOverTlsOnly() {
        JsonNode topic = template.ref(synth.stack.alarmTopic().topic());
        Map<String, JsonNode> policies = template.resources("AWS::SNS::TopicPolicy");
        assertThat(policies).hasSize(1);
        JsonNode policy = policies.values().iterator().next().path("Properties");
        assertThat(policy.path("Topics").path(0)).isEqualTo(topic);
        JsonNode allow = statement(policy.path("PolicyDocument"), AlarmTopic.ALARM_PUBLISH_SID);
        assertThat(allow.path("Effect").asText()).isEqualTo("Allow");
        assertThat(allow.path("Principal")).isEqualTo(TemplateJson.parse("{\"Service\":\"cloudwatch.amazonaws.com\"}"));
        assertThat(TemplateJson.strings(allow.path("Action"))).containsExactly("sns:Publish");
        assertThat(allow.path("Resource")).isEqualTo(topic);
        assertThat(allow.path("Condition").path("StringEquals").path("aws:SourceAccount")).isEqualTo(TemplateJson.parse("{\"Ref\":\"AWS::AccountId\"}"));
        assertThat(allow.path("Condition").path("ArnLike").path("aws:SourceArn")).isEqualTo(TemplateJson.parse(
                "{\"Fn::Join\":[\"\",[\"arn:\",{\"Ref\":\"AWS::Partition\"},\":cloudwatch:\",{\"Ref\":\"AWS::Region\"},\":\","
                        + "{\"Ref\":\"AWS::AccountId\"},\":alarm:test-*\"]]}"));
        JsonNode deny = null;
        for (JsonNode s : policy.path("PolicyDocument").path("Statement")) {
            if (s.path("Effect").asText().equals("Deny")) {
                deny = s;
            }
        }
        assertThat(deny).as("the deny of publishing without TLS").isNotNull();
        assertThat(deny.path("Condition").path("Bool").path("aws:SecureTransport").asText()).isEqualTo("false");
        assertThat(TemplateJson.strings(deny.path("Action"))).containsExactly("sns:Publish");
    }

    /** The topic is encrypted with the telemetry key, so CloudWatch needs the key too (the SNS/CloudWatch documented statement). */
    @Test
    void telemetryKeyLetsCloudWatchPublishToTheEncryptedTopic() {
        JsonNode keyPolicy = template.resource(template.logicalId(synth.stack.keys().telemetry())).path("Properties").path("KeyPolicy");
        JsonNode statement = statement(keyPolicy, EncryptionKeys.ALARM_PUBLISH_KEY_SID);
        assertThat(statement.path("Effect").asText()).isEqualTo("Allow");
        assertThat(statement.path("Principal")).isEqualTo(TemplateJson.parse("{\"Service\":\"cloudwatch.amazonaws.com\"}"));
        assertThat(TemplateJson.strings(statement.path("Action"))).containsExactlyInAnyOrder("kms:Decrypt", "kms:GenerateDataKey*");
        assertThat(statement.path("Resource").asText()).isEqualTo("*");
        // No condition, as the SNS guide's statement: one the KMS request does not carry would silence every alarm.
        assertThat(statement.has("Condition")).as("the key statement has no condition").isFalse();
        JsonNode topic = template.resource(template.logicalId(synth.stack.alarmTopic().topic())).path("Properties");
        assertThat(topic.path("KmsMasterKeyId")).isEqualTo(template.getAtt(synth.stack.keys().telemetry(), "Arn"));
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
        JsonNode asl = WorkflowDefinition.shipped().tree();
        assertThat(asl.path("States").path(Monitoring.SUPERSEDED_STATE).path("Type").asText()).isEqualTo("Fail");
    }

    @Test
    void dashboardShowsTheAlarmsExecutionsDurationAndTheJobsCounts() {
        JsonNode dashboard = template.resources("AWS::CloudWatch::Dashboard").values().iterator().next().path("Properties");
        assertThat(dashboard.path("DashboardName").asText()).isEqualTo("test-hold-release-reconciler");
        String body = dashboard.path("DashboardBody").toString();
        assertThat(body).contains("ExecutionTime", "ExecutionsFailed", "ExecutionsTimedOut", "ExecutionsAborted",
                Metrics.SUPERSEDED_RUNS, Metrics.DELIVERY_REJECTED, Metrics.DELIVERIES, Metrics.RELEASES_REQUESTED,
                Metrics.DELIVERY_CANCELLED_SETTLED, Metrics.DELIVERY_CANCELLED_ENDED, Metrics.DELIVERY_QUARANTINED, Metrics.DELIVERY_ESCALATED,
                Metrics.FENCED_REFUSALS, Metrics.DUPLICATE_STARTS_SUPPRESSED, Metrics.BACKLOG_LEFT, Metrics.PROVIDER_THROTTLED,
                "ApproximateNumberOfMessagesVisible", "alarm");
    }

    /** Shown failing before the widget line was added (the dashboard had no HeldForFeed metric). */
    @Test
    void dashboardShowsTheCandidatesHeldForFeed() {
        JsonNode dashboard = template.resources("AWS::CloudWatch::Dashboard").values().iterator().next().path("Properties");
        assertThat(dashboard.path("DashboardBody").toString()).contains(Metrics.HELD_FOR_FEED);
    }

    @Test
    void alarmEmailFromContextIsSubscribedToTheEncryptedTopic() {
        JsonNode topic = template.resource(template.logicalId(synth.stack.alarmTopic().topic())).path("Properties");
        assertThat(topic.path("KmsMasterKeyId")).isEqualTo(template.getAtt(synth.stack.keys().telemetry(), "Arn"));
        JsonNode subscription = template.resources("AWS::SNS::Subscription").values().iterator().next().path("Properties");
        assertThat(subscription.path("Protocol").asText()).isEqualTo("email");
        assertThat(subscription.path("Endpoint").asText()).isEqualTo("payments-oncall@example.com");
        String topicPolicy = template.resources("AWS::SNS::TopicPolicy").values().iterator().next().toString();
        assertThat(topicPolicy).contains("aws:SecureTransport");
    }

    private Map<String, JsonNode> alarms() {
        Map<String, JsonNode> alarms = new HashMap<>();
        template.resources("AWS::CloudWatch::Alarm").values().forEach(a -> alarms.put(a.path("Properties").path("AlarmName").asText(), a.path("Properties")));
        return alarms;
    }

    private static JsonNode statement(JsonNode policyDocument, String sid) {
        for (JsonNode s : policyDocument.path("Statement")) {
            if (s.path("Sid").asText().equals(sid)) {
                return s;
            }
        }
        throw new AssertionError("no statement " + sid + " in " + policyDocument);
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
