package com.payments.reconciler.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.window.ScheduledEvent;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.Timing;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** EventBridge Scheduler → StartWindow: cron in the zone, the strict input, flexible window, retries, encrypted DLQ. */
class ScheduleTest {

    private final SynthesizedStack synth = SynthesizedStack.get();
    private final TemplateJson template = new TemplateJson(synth);

    @Test
    void dailyAtTheContextsLocalTimeInItsZone() {
        JsonNode props = schedule().path("Properties");
        assertThat(props.path("ScheduleExpression").asText()).isEqualTo("cron(30 2 * * ? *)");
        assertThat(props.path("ScheduleExpressionTimezone").asText()).isEqualTo("Europe/London");
        assertThat(props.path("State").asText()).isEqualTo("ENABLED");
        assertThat(props.path("FlexibleTimeWindow").path("Mode").asText()).isEqualTo("FLEXIBLE");
        assertThat(props.path("FlexibleTimeWindow").path("MaximumWindowInMinutes").asInt()).isEqualTo(15)
                .as("the window TimingBudgetTest budgets with").isEqualTo(Timing.SCHEDULE_FLEXIBLE_WINDOW.toMinutes());
    }

    @Test
    void invokesTheStartWindowAliasWithTheScheduledTimeOnly() throws Exception {
        JsonNode target = schedule().path("Properties").path("Target");
        assertThat(target.path("Arn")).isEqualTo(template.ref(synth.stack.functions().alias(LambdaFunction.START_WINDOW)));
        String input = target.path("Input").asText();
        assertThat(TemplateJson.parse(input)).isEqualTo(TemplateJson.parse("{\"scheduledTime\":\"<aws.scheduler.scheduled-time>\"}"));
        // StartWindow's strict reader accepts exactly this shape (an unknown field would fail every night).
        String delivered = input.replace("<aws.scheduler.scheduled-time>", "2026-12-01T02:30:00Z");
        ScheduledEvent event = Json.mapper().readValue(delivered, ScheduledEvent.class);
        assertThat(WindowId.fromScheduledTime(event.scheduledTime(), ZoneId.of("Europe/London")).date()).isEqualTo(LocalDate.of(2026, 12, 1));
    }

    @Test
    void explicitRetryPolicyAndAnEncryptedDeadLetterQueue() {
        JsonNode target = schedule().path("Properties").path("Target");
        assertThat(target.path("RetryPolicy").path("MaximumRetryAttempts").asInt()).isEqualTo(NightlySchedule.RETRY_ATTEMPTS);
        assertThat(target.path("RetryPolicy").path("MaximumEventAgeInSeconds").asLong()).isEqualTo(6 * 3600);
        assertThat(target.path("DeadLetterConfig").path("Arn")).isEqualTo(template.getAtt(synth.stack.schedule().deadLetterQueue(), "Arn"));
        JsonNode queue = template.resource(template.logicalId(synth.stack.schedule().deadLetterQueue())).path("Properties");
        assertThat(queue.path("KmsMasterKeyId")).isEqualTo(template.getAtt(synth.stack.keys().telemetry(), "Arn"));
        assertThat(queue.path("MessageRetentionPeriod").asInt()).isEqualTo(14 * 24 * 3600);
        JsonNode policy = template.resources("AWS::SQS::QueuePolicy").values().iterator().next().path("Properties").path("PolicyDocument");
        assertThat(policy.toString()).contains("\"aws:SecureTransport\":\"false\"").contains("\"Effect\":\"Deny\"");
    }

    /** Scheduler's role: invoke StartWindow's alias, dead-letter into the queue (and its key), nothing else. */
    @Test
    void schedulerRoleIsLimitedToTheAliasAndTheQueue() {
        List<JsonNode> statements = template.statementsOf(synth.stack.schedule().role());
        assertThat(statements).hasSize(3);
        for (JsonNode statement : statements) {
            List<String> actions = TemplateJson.strings(statement.path("Action"));
            JsonNode resource = statement.path("Resource");
            if (actions.contains("lambda:InvokeFunction")) {
                assertThat(actions).containsExactly("lambda:InvokeFunction");
                assertThat(resource).isEqualTo(template.ref(synth.stack.functions().alias(LambdaFunction.START_WINDOW)));
            } else if (actions.contains("sqs:SendMessage")) {
                assertThat(actions).containsExactly("sqs:SendMessage");
                assertThat(resource).isEqualTo(template.getAtt(synth.stack.schedule().deadLetterQueue(), "Arn"));
            } else {
                assertThat(Set.copyOf(actions)).isEqualTo(Set.of("kms:GenerateDataKey", "kms:Decrypt"));
                assertThat(resource).isEqualTo(template.getAtt(synth.stack.keys().telemetry(), "Arn"));
                assertThat(statement.path("Condition").path("StringEquals").has("kms:ViaService")).isTrue();
            }
        }
        JsonNode trust = template.resource(template.logicalId(synth.stack.schedule().role())).path("Properties").path("AssumeRolePolicyDocument");
        assertThat(trust.toString()).contains("scheduler.amazonaws.com").contains("aws:SourceAccount");
    }

    private JsonNode schedule() {
        assertThat(template.resources("AWS::Scheduler::Schedule")).hasSize(1);
        return template.resources("AWS::Scheduler::Schedule").values().iterator().next();
    }

}
