package com.payments.reconciler.cdk;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which queues may name the ingestion queues as their dead-letter queue (the SQS {@code RedriveAllowPolicy}; without one,
 * SQS lets any queue of the account and Region do it). The dead-letter queue: the ingestion queue only, else another
 * queue's failures would hold every night. The refused-events queue: no queue, else messages SQS moved there would be
 * named by no hold and counted by no night. The schedule's dead-letter queue and StartWindow's failures queue: no queue
 * either (services send to them). Known-bad twins: the queues without a policy, with {@code allowAll}, and
 * the dead-letter queue allowing another queue.
 */
class RedriveAllowPolicyTest {

    private final SynthesizedStack synth = SynthesizedStack.get();
    private final TemplateJson template = new TemplateJson(synth);

    @Test
    void onlyTheIngestionQueueMayDeadLetterIntoTheDeadLetterQueue() {
        JsonNode dlq = properties(synth.stack.ingestion().deadLetterQueue());
        assertThat(onlyFrom(dlq, "test-ingest-events")).isEmpty();
        // Built from the fixed name, so it is the queue the template creates: the name of the queue whose redrive targets it.
        JsonNode queue = properties(synth.stack.ingestion().queue());
        assertThat(queue.path("QueueName").asText()).isEqualTo("test-ingest-events");
        assertThat(queue.path("RedrivePolicy").path("deadLetterTargetArn")).isEqualTo(template.getAtt(synth.stack.ingestion().deadLetterQueue(), "Arn"));
    }

    @Test
    void noQueueMayDeadLetterIntoTheRefusedEventsQueue() {
        assertThat(denied(properties(synth.stack.ingestion().refusedQueue()))).isEmpty();
    }

    /** Scheduler and Lambda send to these; a source queue naming either would put its failures in that queue's alarm. */
    @Test
    void noQueueMayDeadLetterIntoTheScheduleOrStartWindowFailureQueues() {
        assertThat(denied(properties(synth.stack.schedule().deadLetterQueue()))).isEmpty();
        assertThat(denied(properties(synth.stack.startWindowInvocation().failures()))).isEmpty();
    }

    @Test
    void knownBadQueuesWithoutTheRightPolicyAreReported() {
        JsonNode none = TemplateJson.parse("{\"QueueName\":\"q\"}");
        JsonNode allowAll = TemplateJson.parse("{\"RedriveAllowPolicy\":{\"redrivePermission\":\"allowAll\"}}");
        JsonNode another = TemplateJson.parse("{\"RedriveAllowPolicy\":{\"redrivePermission\":\"byQueue\",\"sourceQueueArns\":["
                + "{\"Fn::Join\":[\"\",[\"arn:\",{\"Ref\":\"AWS::Partition\"},\":sqs:\",{\"Ref\":\"AWS::Region\"},\":\",{\"Ref\":\"AWS::AccountId\"},"
                + "\":test-other-queue\"]]}]}}");
        JsonNode twoQueues = TemplateJson.parse("{\"RedriveAllowPolicy\":{\"redrivePermission\":\"byQueue\",\"sourceQueueArns\":["
                + "\"arn:aws:sqs:eu-west-1:123456789012:test-ingest-events\",\"arn:aws:sqs:eu-west-1:123456789012:test-other-queue\"]}}");

        for (JsonNode bad : List.of(none, allowAll, another, twoQueues)) {
            assertThat(onlyFrom(bad, "test-ingest-events")).as(bad.toString()).isNotEmpty();
        }
        for (JsonNode bad : List.of(none, allowAll, another)) {
            assertThat(denied(bad)).as(bad.toString()).isNotEmpty();
        }
        // The right ones pass the checks (the checks are not simply always failing).
        assertThat(onlyFrom(TemplateJson.parse("{\"RedriveAllowPolicy\":{\"redrivePermission\":\"byQueue\",\"sourceQueueArns\":["
                + "\"arn:aws:sqs:eu-west-1:123456789012:test-ingest-events\"]}}"), "test-ingest-events")).isEmpty();
        assertThat(denied(TemplateJson.parse("{\"RedriveAllowPolicy\":{\"redrivePermission\":\"denyAll\"}}"))).isEmpty();
    }

    /** What is wrong with {@code queue}'s policy for "only the queue named {@code source} of this account and Region". */
    static List<String> onlyFrom(JsonNode queue, String source) {
        List<String> problems = new ArrayList<>();
        JsonNode policy = queue.path("RedriveAllowPolicy");
        if (!policy.path("redrivePermission").asText().equals("byQueue")) {
            problems.add("redrivePermission is " + policy.path("redrivePermission") + ", not byQueue");
        }
        List<JsonNode> sources = TemplateJson.nodes(policy.path("sourceQueueArns"));
        if (sources.size() != 1) {
            problems.add("sourceQueueArns has " + sources.size() + " queues, not 1");
        }
        for (JsonNode arn : sources) {
            String resolved = resolve(arn);
            // This stack's partition, Region and account, as pseudo-parameters (their names hold colons of their own).
            String concrete = resolved.replace("${AWS::Partition}", "aws").replace("${AWS::Region}", "region").replace("${AWS::AccountId}", "account");
            if (!concrete.matches("arn:[^:]+:sqs:[^:]+:[^:]+:" + java.util.regex.Pattern.quote(source))) {
                problems.add("source queue " + resolved + " is not " + source);
            }
        }
        return problems;
    }

    /** What is wrong with {@code queue}'s policy for "no queue". */
    static List<String> denied(JsonNode queue) {
        JsonNode policy = queue.path("RedriveAllowPolicy");
        return policy.path("redrivePermission").asText().equals("denyAll") && !policy.has("sourceQueueArns") ? List.of()
                : List.of("RedriveAllowPolicy is " + policy + ", not denyAll");
    }

    /** An ARN as text, its references as {@code ${Name}} (a Fn::Join of strings and Refs, as formatArn writes it). */
    static String resolve(JsonNode node) {
        if (node.isTextual()) {
            return node.asText();
        }
        if (node.has("Ref")) {
            return "${" + node.path("Ref").asText() + "}";
        }
        if (node.has("Fn::Join")) {
            StringBuilder out = new StringBuilder();
            for (JsonNode part : node.path("Fn::Join").path(1)) {
                if (!out.isEmpty() && !node.path("Fn::Join").path(0).asText().isEmpty()) {
                    out.append(node.path("Fn::Join").path(0).asText());
                }
                out.append(resolve(part));
            }
            return out.toString();
        }
        return node.toString();
    }

    private JsonNode properties(software.amazon.awscdk.services.sqs.Queue queue) {
        return template.resource(template.logicalId(queue)).path("Properties");
    }
}
