package com.payments.reconciler.cdk;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No role this stack creates may send to the ingestion dead-letter queue: every Allow statement of every IAM policy in the
 * template (AWS::IAM::Policy, AWS::IAM::ManagedPolicy, and each Role's inline Policies: the functions', the Adyen webhook
 * receiver's, the scheduler's, CDK's own), matching actions and resources as IAM globs ({@code *}, {@code ?}, any case of
 * action), so a wildcard ARN such as {@code arn:aws:sqs:*:*:*} counts as the queue. What it does not prove: principals
 * outside this stack (an administrator, a CI role) may send to it if their own policies allow; see docs/design.md.
 * Known-bad twins: a statement for each way a send can be granted.
 */
class DeadLetterQueueSendersTest {

    private final SynthesizedStack synth = SynthesizedStack.get();
    private final TemplateJson template = new TemplateJson(synth);

    @Test
    void noPolicyInTheTemplateAllowsSendingToTheDeadLetterQueue() {
        List<JsonNode> statements = allStatements(template);
        assertThat(statements).as("the check sees the webhook's and the scheduler's statements too").hasSizeGreaterThan(50);
        assertThat(sendersTo(statements, deadLetterQueue())).isEmpty();
    }

    @Test
    void knownBadEveryWayOfGrantingTheSendIsFound() {
        JsonNode dlq = deadLetterQueue();
        List<String> bad = List.of(
                "{\"Effect\":\"Allow\",\"Action\":\"sqs:SendMessage\",\"Resource\":" + dlq + "}",
                "{\"Effect\":\"Allow\",\"Action\":\"SQS:sendmessage\",\"Resource\":[" + dlq + "]}",
                "{\"Effect\":\"Allow\",\"Action\":\"sqs:Send*\",\"Resource\":\"*\"}",
                "{\"Effect\":\"Allow\",\"Action\":\"sqs:*\",\"Resource\":\"arn:aws:sqs:*:*:*\"}",
                "{\"Effect\":\"Allow\",\"Action\":\"*\",\"Resource\":\"arn:aws:sqs:eu-west-1:123456789012:test-ingest-*\"}",
                "{\"Effect\":\"Allow\",\"Action\":\"sqs:?endMessage\",\"Resource\":{\"Fn::Join\":[\"\",[\"arn:\",{\"Ref\":\"AWS::Partition\"},"
                        + "\":sqs:\",{\"Ref\":\"AWS::Region\"},\":\",{\"Ref\":\"AWS::AccountId\"},\":test-ingest-events-dlq\"]]}}",
                "{\"Effect\":\"Allow\",\"NotAction\":\"sqs:ReceiveMessage\",\"Resource\":" + dlq + "}",
                "{\"Effect\":\"Allow\",\"Action\":\"sqs:SendMessage\",\"NotResource\":\"arn:aws:sqs:*:*:other\"}");
        for (String statement : bad) {
            assertThat(sendersTo(List.of(TemplateJson.parse(statement)), dlq)).as(statement).hasSize(1);
        }
        // And what must pass: another queue, another action, a Deny.
        List<String> fine = List.of(
                "{\"Effect\":\"Allow\",\"Action\":\"sqs:SendMessage\",\"Resource\":\"arn:aws:sqs:*:*:test-ingest-events-refused\"}",
                "{\"Effect\":\"Allow\",\"Action\":\"sqs:GetQueueAttributes\",\"Resource\":" + dlq + "}",
                "{\"Effect\":\"Deny\",\"Action\":\"sqs:*\",\"Resource\":\"*\"}");
        for (String statement : fine) {
            assertThat(sendersTo(List.of(TemplateJson.parse(statement)), dlq)).as(statement).isEmpty();
        }
    }

    private JsonNode deadLetterQueue() {
        return template.getAtt(synth.stack.ingestion().deadLetterQueue(), "Arn");
    }

    /** Every statement of every identity policy the template creates. */
    static List<JsonNode> allStatements(TemplateJson template) {
        List<JsonNode> statements = new ArrayList<>();
        for (String type : List.of("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy")) {
            template.resources(type).values().forEach(p -> p.path("Properties").path("PolicyDocument").path("Statement").forEach(statements::add));
        }
        for (JsonNode role : template.resources("AWS::IAM::Role").values()) {
            for (JsonNode inline : role.path("Properties").path("Policies")) {
                inline.path("PolicyDocument").path("Statement").forEach(statements::add);
            }
        }
        return statements;
    }

    /** The Allow statements that let their principal send to {@code dlq} (its GetAtt, or an ARN glob matching its name). */
    static List<JsonNode> sendersTo(List<JsonNode> statements, JsonNode dlq) {
        List<JsonNode> senders = new ArrayList<>();
        for (JsonNode s : statements) {
            if (!"Allow".equals(s.path("Effect").asText())) {
                continue;
            }
            boolean sends = s.has("NotAction")
                    ? TemplateJson.strings(s.path("NotAction")).stream().noneMatch(a -> actionGlob(a, "sqs:SendMessage"))
                    : TemplateJson.strings(s.path("Action")).stream().anyMatch(a -> actionGlob(a, "sqs:SendMessage"));
            boolean onQueue = s.has("NotResource")
                    ? TemplateJson.nodes(s.path("NotResource")).stream().noneMatch(r -> names(r, dlq))
                    : TemplateJson.nodes(s.path("Resource")).stream().anyMatch(r -> names(r, dlq));
            if (sends && onQueue) {
                senders.add(s);
            }
        }
        return senders;
    }

    private static boolean actionGlob(String pattern, String action) {
        return glob(pattern.toLowerCase(java.util.Locale.ROOT)).matcher(action.toLowerCase(java.util.Locale.ROOT)).matches();
    }

    /** Whether a Resource entry covers the dead-letter queue: its own GetAtt, or an ARN (glob) ending in its name. */
    private static boolean names(JsonNode resource, JsonNode dlq) {
        if (resource.equals(dlq)) {
            return true;
        }
        String arn = RedriveAllowPolicyTest.resolve(resource);
        if (arn.equals("*")) {
            return true;
        }
        // Pseudo-parameters stand for this partition, Region and account: any value there.
        String pattern = arn.replace("${AWS::Partition}", "*").replace("${AWS::Region}", "*").replace("${AWS::AccountId}", "*");
        if (pattern.contains("${") || pattern.contains("{")) {
            return false; // a reference to another resource (its GetAtt or Ref), never the dead-letter queue's own
        }
        String[] parts = pattern.split(":", 6);
        if (parts.length < 6) {
            return glob(pattern).matcher("arn:aws:sqs:eu-west-1:123456789012:test-ingest-events-dlq").matches();
        }
        return glob(parts[0]).matcher("arn").matches() && glob(parts[2]).matcher("sqs").matches()
                && glob(parts[5]).matcher("test-ingest-events-dlq").matches();
    }

    private static Pattern glob(String glob) {
        StringBuilder regex = new StringBuilder();
        for (char c : glob.toCharArray()) {
            regex.append(switch (c) {
                case '*' -> ".*";
                case '?' -> ".";
                default -> Pattern.quote(String.valueOf(c));
            });
        }
        return Pattern.compile(regex.toString());
    }
}
