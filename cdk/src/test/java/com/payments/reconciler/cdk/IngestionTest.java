package com.payments.reconciler.cdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.store.Tables;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.ReservedConcurrency;
import com.payments.reconciler.workflow.Timing;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.App;
import software.amazon.awscdk.AppProps;
import software.amazon.awscdk.assertions.Template;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The ingestion path as synthesised: the queue, its dead-letter queue and the refused-events queue, IngestEvents' event source
 * mapping, its least-privilege role, the alarms; and "bring your own tables", with which the template creates
 * neither business table and grants on the platform's.
 */
class IngestionTest {

    static final String AUTHORISATIONS_ARN = "arn:aws:dynamodb:eu-west-1:123456789012:table/payments-authorisations";
    static final String SETTLEMENTS_ARN = "arn:aws:dynamodb:eu-west-1:123456789012:table/payments-settlements";
    static final String KEY_ARN = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";

    /** What ingestion's role must never hold: reads, deletes, the leader's ConditionCheck, batch writes, other services. */
    // GetItem only on ReleaseCommands (capturedAfterRelease), checked by its Sid below.
    static final List<String> NEVER_FOR_INGESTION = List.of("dynamodb:BatchGetItem", "dynamodb:Scan", "dynamodb:Query", "dynamodb:DeleteItem",
            "dynamodb:ConditionCheckItem", "dynamodb:BatchWriteItem", "states:", "secretsmanager:", "sqs:SendMessageBatch",
            "sqs:PurgeQueue", "sqs:DeleteQueue");

    private final SynthesizedStack synth = SynthesizedStack.get();
    private final TemplateJson template = new TemplateJson(synth);

    @Test
    void theQueueIsEncryptedTlsOnlyWithARedrivePolicyToItsDeadLetterQueue() {
        JsonNode queue = template.resource(template.logicalId(synth.stack.ingestion().queue())).path("Properties");
        JsonNode dlq = template.resource(template.logicalId(synth.stack.ingestion().deadLetterQueue())).path("Properties");
        JsonNode dataKey = template.getAtt(synth.stack.keys().data(), "Arn");
        assertThat(queue.path("QueueName").asText()).isEqualTo("test-ingest-events");
        assertThat(dlq.path("QueueName").asText()).isEqualTo("test-ingest-events-dlq");
        assertThat(queue.path("KmsMasterKeyId")).isEqualTo(dataKey);
        assertThat(dlq.path("KmsMasterKeyId")).isEqualTo(dataKey);
        assertThat(queue.path("RedrivePolicy").path("deadLetterTargetArn")).isEqualTo(template.getAtt(synth.stack.ingestion().deadLetterQueue(), "Arn"));
        assertThat(queue.path("RedrivePolicy").path("maxReceiveCount").asInt()).isEqualTo(Ingestion.MAX_RECEIVE_COUNT).isEqualTo(5);
        assertThat(queue.path("VisibilityTimeout").asLong()).isEqualTo(6 * Timing.INGEST_EVENTS_TIMEOUT.toSeconds());
        assertThat(dlq.path("MessageRetentionPeriod").asLong()).isEqualTo(14 * 86_400);
        // The refused-events queue: as the dead-letter queue (data key, 14 days, TLS only), named for what it holds, and no
        // queue's redrive target (only IngestEvents' own send puts anything there).
        JsonNode refused = template.resource(template.logicalId(synth.stack.ingestion().refusedQueue())).path("Properties");
        assertThat(refused.path("QueueName").asText()).isEqualTo("test-ingest-events-refused");
        assertThat(refused.path("KmsMasterKeyId")).isEqualTo(dataKey);
        assertThat(refused.path("MessageRetentionPeriod").asLong()).isEqualTo(14 * 86_400);
        assertThat(refused.has("RedrivePolicy")).isFalse();
        assertThat(template.root().path("Resources").toString()).doesNotContain("\"deadLetterTargetArn\":" + template.getAtt(synth.stack.ingestion().refusedQueue(), "Arn"));
        JsonNode outputs = template.root().path("Outputs");
        assertThat(outputs.path(Ingestion.OUTPUT_QUEUE_URL).path("Value")).isEqualTo(template.ref(synth.stack.ingestion().queue()));
        assertThat(outputs.path(Ingestion.OUTPUT_QUEUE_ARN).path("Value")).isEqualTo(template.getAtt(synth.stack.ingestion().queue(), "Arn"));
        // TLS only: each queue's policy denies any request without aws:SecureTransport.
        List<String> policies = new ArrayList<>();
        template.resources("AWS::SQS::QueuePolicy").values().forEach(p -> policies.add(p.toString()));
        assertThat(outputs.path(Ingestion.OUTPUT_REFUSED_QUEUE_URL).path("Value")).isEqualTo(template.ref(synth.stack.ingestion().refusedQueue()));
        for (var q : List.of(synth.stack.ingestion().queue(), synth.stack.ingestion().deadLetterQueue(), synth.stack.ingestion().refusedQueue())) {
            String ref = template.ref(q).toString();
            assertThat(policies).as(q.getNode().getPath()).anySatisfy(p -> assertThat(p).contains(ref).contains("aws:SecureTransport").contains("Deny"));
        }
    }

    @Test
    void ingestEventsConsumesTheQueueThroughItsAliasWithPartialBatchResponses() {
        Map<String, JsonNode> mappings = template.resources("AWS::Lambda::EventSourceMapping");
        assertThat(mappings).hasSize(1);
        JsonNode mapping = mappings.values().iterator().next().path("Properties");
        assertThat(mapping.path("EventSourceArn")).isEqualTo(template.getAtt(synth.stack.ingestion().queue(), "Arn"));
        // The alias (its SnapStart version), as CDK names it: the function's name from the alias ARN, qualified ":live".
        assertThat(mapping.path("FunctionName").toString()).contains(template.ref(synth.stack.functions().alias(LambdaFunction.INGEST_EVENTS)).toString())
                .contains(":" + ReconcilerFunctions.ALIAS);
        assertThat(TemplateJson.strings(mapping.path("FunctionResponseTypes"))).containsExactly("ReportBatchItemFailures");
        assertThat(mapping.path("BatchSize").asInt()).isEqualTo(Timing.INGEST_BATCH_SIZE);
        // The mapping never invokes beyond what the function reserves: a throttled batch would count as a receive.
        assertThat(mapping.path("ScalingConfig").path("MaximumConcurrency").asInt())
                .isEqualTo(ReservedConcurrency.of(LambdaFunction.INGEST_EVENTS)).isEqualTo(5);
    }

    @Test
    void itsRoleWritesOnlyTheTwoBusinessTablesAndConsumesOnlyItsQueue() {
        List<JsonNode> statements = template.statementsOf(synth.stack.functions().role(LambdaFunction.INGEST_EVENTS));
        Map<String, List<String>> actionsBySid = new HashMap<>();
        Map<String, JsonNode> resourceBySid = new HashMap<>();
        for (JsonNode s : statements) {
            actionsBySid.put(s.path("Sid").asText(), TemplateJson.strings(s.path("Action")));
            resourceBySid.put(s.path("Sid").asText(), s.path("Resource"));
        }
        assertThat(actionsBySid.get("IngestAuthorisationsTable")).containsExactlyInAnyOrder("dynamodb:PutItem", "dynamodb:UpdateItem");
        assertThat(actionsBySid.get("IngestSettlementsTable")).containsExactly("dynamodb:PutItem");
        assertThat(resourceBySid.get("IngestAuthorisationsTable")).isEqualTo(template.getAtt(synth.stack.tables().table(Tables.Authorisations.SCHEMA), "Arn"));
        assertThat(resourceBySid.get("IngestSettlementsTable")).isEqualTo(template.getAtt(synth.stack.tables().table(Tables.Settlements.SCHEMA), "Arn"));
        assertThat(actionsBySid.get("ConsumeIngestQueue")).containsExactlyInAnyOrder("sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes");
        assertThat(resourceBySid.get("ConsumeIngestQueue")).isEqualTo(template.getAtt(synth.stack.ingestion().queue(), "Arn"));
        assertThat(actionsBySid.get("IngestQueueKey")).containsExactly("kms:Decrypt");
        // Refused events go to the refused-events queue, and only there (FirstDeployTest checks the environment too).
        assertThat(actionsBySid.get(Ingestion.REFUSED_EVENTS_SID)).containsExactly("sqs:SendMessage");
        assertThat(resourceBySid.get(Ingestion.REFUSED_EVENTS_SID)).isEqualTo(template.getAtt(synth.stack.ingestion().refusedQueue(), "Arn"));
        assertThat(actionsBySid.get(Ingestion.REFUSED_QUEUE_KEY_SID)).containsExactly("kms:GenerateDataKey");
        String all = statements.toString();
        for (String never : NEVER_FOR_INGESTION) {
            assertThat(all).as(never).doesNotContain(never);
        }
        assertThat(actionsBySid.get("IngestReleaseCommandsTable")).as("capturedAfterRelease: the command's status, read only")
                .containsExactly("dynamodb:GetItem");
        assertThat(resourceBySid.get("IngestReleaseCommandsTable")).isEqualTo(template.getAtt(synth.stack.tables().table(Tables.ReleaseCommands.SCHEMA), "Arn"));
        assertThat(statements.stream().filter(st -> st.toString().contains("dynamodb:GetItem")).count()).isEqualTo(1);
        for (var other : List.of(Tables.Leases.SCHEMA, Tables.Idempotency.SCHEMA)) {
            assertThat(all).as(other.logicalName()).doesNotContain(template.logicalId(synth.stack.tables().table(other)));
        }
        // Besides these, only the X-Ray statement active tracing adds (no Sid; its actions take no resource).
        assertThat(actionsBySid.keySet()).containsExactlyInAnyOrder("OwnLogGroup", "IngestAuthorisationsTable", "IngestSettlementsTable",
                "IngestReleaseCommandsTable", "TableKeyThroughDynamoDb", "ConsumeIngestQueue", "IngestQueueKey", Ingestion.REFUSED_EVENTS_SID, Ingestion.REFUSED_QUEUE_KEY_SID, "");
        assertThat(actionsBySid.get("")).allMatch(a -> a.startsWith("xray:"));
    }

    /**
     * What a role may send messages to: the resources of every allowing statement whose actions cover {@code sqs:SendMessage}
     * (the action itself, {@code sqs:*}, {@code sqs:Send*} or {@code *}).
     */
    static List<JsonNode> sendTargets(List<JsonNode> statements) {
        List<JsonNode> targets = new ArrayList<>();
        for (JsonNode s : statements) {
            boolean sends = TemplateJson.strings(s.path("Action")).stream().anyMatch(a -> a.equals("*") || a.equals("sqs:*")
                    || a.equals("sqs:SendMessage") || a.equals("sqs:Send*"));
            if ("Allow".equals(s.path("Effect").asText()) && sends) {
                targets.addAll(TemplateJson.nodes(s.path("Resource")));
            }
        }
        return targets;
    }

    /**
     * Held for feed: the dead-letter queue's depth holds every night, so only SQS's redrive may put messages there.
     * IngestEvents may send to the refused-events queue and nowhere else; no function's role may send to the dead-letter
     * queue at all.
     */
    @Test
    void ingestEventsSendsToTheRefusedQueueOnlyAndNoRoleSendsToTheDeadLetterQueue() {
        JsonNode refusedArn = template.getAtt(synth.stack.ingestion().refusedQueue(), "Arn");
        JsonNode dlqArn = template.getAtt(synth.stack.ingestion().deadLetterQueue(), "Arn");
        assertThat(sendTargets(template.statementsOf(synth.stack.functions().role(LambdaFunction.INGEST_EVENTS)))).containsExactly(refusedArn);
        for (LambdaFunction function : LambdaFunction.values()) {
            assertThat(sendTargets(template.statementsOf(synth.stack.functions().role(function)))).as(function.logicalName())
                    .doesNotContain(dlqArn, TemplateJson.parse("\"*\""));
        }
        // Known bad: IngestEvents' role as it was, sending its refusals to the dead-letter queue; and one with sqs:* on "*".
        List<JsonNode> old = new ArrayList<>(template.statementsOf(synth.stack.functions().role(LambdaFunction.INGEST_EVENTS)));
        old.removeIf(st -> Ingestion.REFUSED_EVENTS_SID.equals(st.path("Sid").asText()));
        old.add(TemplateJson.parse("{\"Sid\":\"RefusedEventsToDeadLetters\",\"Effect\":\"Allow\",\"Action\":\"sqs:SendMessage\",\"Resource\":"
                + dlqArn + "}"));
        assertThat(sendTargets(old)).containsExactly(dlqArn);
        assertThat(sendTargets(List.of(TemplateJson.parse("{\"Effect\":\"Allow\",\"Action\":\"sqs:*\",\"Resource\":\"*\"}"))))
                .containsExactly(TemplateJson.parse("\"*\""));
    }

    /**
     * Held for feed: ReconcilePage and DeliverCommands count the dead-letter queue's messages before releasing, so each
     * gets its URL and sqs:GetQueueAttributes on that queue only; no other sqs action, on no other queue, and no other
     * function may read it (the harness's LeastPrivilegeNightTest shows the night calls it).
     */
    @Test
    void onlyReconcilePageAndDeliverCommandsMayCountTheDeadLetterQueue() {
        JsonNode dlqArn = template.getAtt(synth.stack.ingestion().deadLetterQueue(), "Arn");
        for (LambdaFunction function : LambdaFunction.values()) {
            List<JsonNode> statements = template.statementsOf(synth.stack.functions().role(function));
            List<JsonNode> depth = statements.stream().filter(st -> Ingestion.DEAD_LETTER_DEPTH_SID.equals(st.path("Sid").asText())).toList();
            if (function == LambdaFunction.RECONCILE_PAGE || function == LambdaFunction.DELIVER_COMMANDS) {
                assertThat(depth).as(function.logicalName()).hasSize(1);
                assertThat(TemplateJson.strings(depth.getFirst().path("Action"))).containsExactly("sqs:GetQueueAttributes");
                assertThat(depth.getFirst().path("Resource")).isEqualTo(dlqArn);
                assertThat(statements.stream().flatMap(st -> TemplateJson.strings(st.path("Action")).stream()).filter(a -> a.startsWith("sqs:")))
                        .as(function.logicalName() + ": no other sqs action").containsExactly("sqs:GetQueueAttributes");
            } else {
                assertThat(depth).as(function.logicalName()).isEmpty();
            }
        }
    }

    /**
     * The KMS actions the statements allow on {@code key} through SQS: a producer sending to an SSE-KMS queue needs
     * kms:GenerateDataKey and kms:Decrypt on the queue's key (SQS developer guide, "Key management").
     */
    static java.util.Set<String> kmsThroughSqs(List<JsonNode> statements, JsonNode key) {
        java.util.Set<String> actions = new java.util.TreeSet<>();
        for (JsonNode s : statements) {
            boolean onKey = TemplateJson.nodes(s.path("Resource")).contains(key);
            boolean viaSqs = s.path("Condition").path("StringEquals").path("kms:ViaService").toString().contains("sqs.");
            if ("Allow".equals(s.path("Effect").asText()) && onKey && viaSqs) {
                TemplateJson.strings(s.path("Action")).stream().filter(a -> a.startsWith("kms:")).forEach(actions::add);
            }
        }
        return actions;
    }

    @Test
    void sendingARefusedEventHasBothKeyActionsOnTheRefusedQueuesKey() {
        // The send path's Decrypt comes from the ingest queue's key statement (IngestQueueKey), which holds only while
        // both queues share the data key: this pins the combination, not one statement.
        List<JsonNode> statements = template.statementsOf(synth.stack.functions().role(LambdaFunction.INGEST_EVENTS));
        JsonNode refusedKey = template.resource(template.logicalId(synth.stack.ingestion().refusedQueue())).path("Properties").path("KmsMasterKeyId");
        assertThat(refusedKey.isMissingNode()).as("the refused-events queue is SSE-KMS").isFalse();
        assertThat(kmsThroughSqs(statements, refusedKey)).containsExactly("kms:Decrypt", "kms:GenerateDataKey");
        // Known bad: the same role with the ingest queue's key statement gone (as if the ingest queue had its own key).
        List<JsonNode> withoutIngestKey = statements.stream().filter(s -> !"IngestQueueKey".equals(s.path("Sid").asText())).toList();
        assertThat(kmsThroughSqs(withoutIngestKey, refusedKey)).containsExactly("kms:GenerateDataKey");
    }

    @Test
    void theNeverListFindsWhatTheLeadersRolesHold() {
        // The known-bad input for the check above: the same list applied to ReconcilePage's and DeliverCommands' roles.
        String reconcile = template.statementsOf(synth.stack.functions().role(LambdaFunction.RECONCILE_PAGE)).toString();
        String deliver = template.statementsOf(synth.stack.functions().role(LambdaFunction.DELIVER_COMMANDS)).toString();
        assertThat(NEVER_FOR_INGESTION).filteredOn(reconcile::contains).contains("dynamodb:Query", "dynamodb:ConditionCheckItem");
        assertThat(NEVER_FOR_INGESTION).filteredOn(deliver::contains).contains("dynamodb:BatchGetItem", "dynamodb:DeleteItem", "secretsmanager:");
    }

    @Test
    void knownBadAnAlarmOnVisibleMessagesOnlyMissesTheInFlightAndDelayedCounts() {
        // The refused-events queue's alarm is on Visible only: the check above names what it leaves out.
        Map<String, JsonNode> alarms = new HashMap<>();
        template.resources("AWS::CloudWatch::Alarm").values().forEach(a -> alarms.put(a.path("Properties").path("AlarmName").asText(), a.path("Properties")));
        JsonNode refusedName = template.getAtt(synth.stack.ingestion().refusedQueue(), "QueueName");
        assertThat(missingDepthCounts(alarms.get("test-" + Monitoring.INGEST_REFUSED), refusedName)).isNotEmpty();
        // And a math alarm over the three metrics that forgets one of them in its expression.
        JsonNode dead = alarms.get("test-" + Monitoring.INGEST_DEAD_LETTERS).deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) dead.path("Metrics").path(0)).put("Expression", "FILL(visible, 0)");
        assertThat(missingDepthCounts(dead, template.getAtt(synth.stack.ingestion().deadLetterQueue(), "QueueName"))).isNotEmpty();
    }

    /**
     * What an alarm leaves out of the dead-letter depth as DeadLetterDepth reads it: each of the three SQS counts of
     * {@code queueName} must be a metric of the alarm's math, and the one returned expression must add all three.
     */
    static List<String> missingDepthCounts(JsonNode alarm, JsonNode queueName) {
        List<String> missing = new ArrayList<>();
        Map<String, String> idByMetric = new HashMap<>();
        String expression = null;
        for (JsonNode m : alarm.path("Metrics")) {
            if (m.has("Expression") && m.path("ReturnData").asBoolean(true)) {
                expression = m.path("Expression").asText();
            }
            JsonNode stat = m.path("MetricStat").path("Metric");
            if (stat.path("Namespace").asText().equals("AWS/SQS") && stat.path("Dimensions").path(0).path("Value").equals(queueName)) {
                idByMetric.put(stat.path("MetricName").asText(), m.path("Id").asText());
            }
        }
        for (String count : List.of("ApproximateNumberOfMessagesVisible", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed")) {
            String id = idByMetric.get(count);
            if (id == null) {
                missing.add(count + " is not a metric of the alarm");
            } else if (expression == null || !expression.contains("FILL(" + id + ", 0)")) {
                missing.add(count + " (" + id + ") is not added in the alarm's expression " + expression);
            }
        }
        return missing;
    }

    @Test
    void alarmsOnDeadLettersAndTheAgeOfTheOldestEventNotifyTheTopic() {
        Map<String, JsonNode> alarms = new HashMap<>();
        template.resources("AWS::CloudWatch::Alarm").values().forEach(a -> alarms.put(a.path("Properties").path("AlarmName").asText(), a.path("Properties")));
        JsonNode topic = template.ref(synth.stack.alarmTopic().topic());
        JsonNode dead = alarms.get("test-" + Monitoring.INGEST_DEAD_LETTERS);
        JsonNode deadLetterQueueName = template.getAtt(synth.stack.ingestion().deadLetterQueue(), "QueueName");
        assertThat(missingDepthCounts(dead, deadLetterQueueName)).as("the alarm counts what the nights count").isEmpty();
        assertThat(dead.path("Threshold").asDouble()).isEqualTo(1.0);
        JsonNode refused = alarms.get("test-" + Monitoring.INGEST_REFUSED);
        assertThat(refused.path("MetricName").asText()).isEqualTo("ApproximateNumberOfMessagesVisible");
        assertThat(refused.path("Dimensions").path(0).path("Value")).isEqualTo(template.getAtt(synth.stack.ingestion().refusedQueue(), "QueueName"));
        assertThat(refused.path("Threshold").asDouble()).isEqualTo(1.0);
        assertThat(refused.path("OKActions")).as("a state: it says when the queue was emptied").containsExactly(topic);
        JsonNode age = alarms.get("test-" + Monitoring.INGEST_QUEUE_AGE);
        assertThat(age.path("Namespace").asText()).isEqualTo("AWS/SQS");
        assertThat(age.path("MetricName").asText()).isEqualTo("ApproximateAgeOfOldestMessage");
        assertThat(age.path("Dimensions").path(0).path("Value")).isEqualTo(template.getAtt(synth.stack.ingestion().queue(), "QueueName"));
        assertThat(age.path("Threshold").asDouble()).isEqualTo(900.0);
        assertThat(age.path("ComparisonOperator").asText()).isEqualTo("GreaterThanThreshold");
        for (JsonNode alarm : List.of(dead, refused, age)) {
            assertThat(alarm.path("AlarmActions")).containsExactly(topic);
        }
    }

    @Test
    void theDashboardShowsTheNightsDivergenceCounts() {
        String dashboard = template.resources("AWS::CloudWatch::Dashboard").values().iterator().next().toString();
        for (String metric : List.of(com.payments.reconciler.workflow.Metrics.NIGHT_CANDIDATES, com.payments.reconciler.workflow.Metrics.NIGHT_WOULD_RELEASE,
                com.payments.reconciler.workflow.Metrics.NIGHT_RELEASED, com.payments.reconciler.workflow.Metrics.NIGHT_SETTLED_AFTER_DECISION,
                com.payments.reconciler.workflow.Metrics.INGEST_ACCEPTED, com.payments.reconciler.workflow.Metrics.INGEST_REFUSED)) {
            assertThat(dashboard).as(metric).contains(metric);
        }
    }

    @Test
    void withExistingTablesTheTemplateCreatesNeitherBusinessTableAndGrantsOnThePlatformsOwn() {
        Map<String, Object> context = new HashMap<>(SynthesizedStack.CONTEXT);
        context.put(StackConfig.AUTHORISATIONS_TABLE_ARN, AUTHORISATIONS_ARN);
        context.put(StackConfig.SETTLEMENTS_TABLE_ARN, SETTLEMENTS_ARN);
        context.put(StackConfig.BUSINESS_TABLES_KEY_ARN, KEY_ARN);
        Path outdir = synth.outdir.resolveSibling("cdk-test-out-byo-tables");
        App app = new App(AppProps.builder().context(context).outdir(outdir.toString()).build());
        ReconcilerStack stack = ReconcilerApp.build(app, synth.jar);
        JsonNode root = new ObjectMapper().valueToTree(Template.fromStack(stack).toJSON());

        List<String> created = new ArrayList<>();
        root.path("Resources").forEach(r -> {
            if (r.path("Type").asText().equals("AWS::DynamoDB::Table")) {
                created.add(r.path("Properties").path("TableName").asText());
            }
        });
        assertThat(created).containsExactlyInAnyOrder("test-Leases", "test-ReleaseCommands", "test-Idempotency");
        String text = root.toString();
        assertThat(text).contains(AUTHORISATIONS_ARN, AUTHORISATIONS_ARN + "/index/" + Tables.Authorisations.PENDING_BY_AGE, SETTLEMENTS_ARN, KEY_ARN);
        // Every function reads the platform's table names.
        assertThat(stack.tables().names()).isEqualTo(new TableNames("test-Leases", "payments-authorisations", "payments-settlements",
                "test-ReleaseCommands", "test-Idempotency"));
        assertThat(stack.tables().created(Tables.Authorisations.SCHEMA)).isFalse();
        assertThat(stack.tables().created(Tables.Leases.SCHEMA)).isTrue();
    }

    @Test
    void theDefaultTemplateCreatesBothBusinessTables() {
        // The known-bad input for the check above: without the context, the same count finds them.
        assertThat(synth.stack.tables().created(Tables.Authorisations.SCHEMA)).isTrue();
        assertThat(synth.stack.tables().created(Tables.Settlements.SCHEMA)).isTrue();
        assertThat(template.resources("AWS::DynamoDB::Table")).hasSize(Tables.ALL.size());
    }

    @Test
    void existingTablesAreBothOrNeitherWithClearErrors() {
        Map<String, Object> onlyOne = new HashMap<>(SynthesizedStack.CONTEXT);
        onlyOne.put(StackConfig.AUTHORISATIONS_TABLE_ARN, AUTHORISATIONS_ARN);
        assertThatThrownBy(() -> StackConfig.fromContext(onlyOne::get)).isInstanceOf(InvalidContext.class)
                .hasMessageContaining(StackConfig.SETTLEMENTS_TABLE_ARN).hasMessageContaining("both business tables");
        Map<String, Object> badArn = new HashMap<>(SynthesizedStack.CONTEXT);
        badArn.put(StackConfig.AUTHORISATIONS_TABLE_ARN, "payments-authorisations");
        badArn.put(StackConfig.SETTLEMENTS_TABLE_ARN, SETTLEMENTS_ARN);
        assertThatThrownBy(() -> StackConfig.fromContext(badArn::get)).isInstanceOf(InvalidContext.class)
                .hasMessageContaining(StackConfig.AUTHORISATIONS_TABLE_ARN).hasMessageContaining("a DynamoDB table ARN such as");
        Map<String, Object> keyAlone = new HashMap<>(SynthesizedStack.CONTEXT);
        keyAlone.put(StackConfig.BUSINESS_TABLES_KEY_ARN, KEY_ARN);
        assertThatThrownBy(() -> StackConfig.fromContext(keyAlone::get)).isInstanceOf(InvalidContext.class)
                .hasMessageContaining(StackConfig.BUSINESS_TABLES_KEY_ARN);
    }
}
