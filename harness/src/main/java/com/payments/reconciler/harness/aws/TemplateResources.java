package com.payments.reconciler.harness.aws;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.store.TableSchema;
import com.payments.reconciler.store.Tables;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A local resource map for the template's resources that function roles and environments name, as the
 * in-process pipeline creates them: its tables (by schema), its state machine, its secret in moto, and for
 * roles, log groups, queues and keys (which the local night does not create) ARNs of the local account. Until the
 * integrator creates resources from the template itself, this is what the template is resolved against.
 */
public final class TemplateResources {

    private TemplateResources() {
    }

    public static LocalResources of(SynthesizedTemplate template, TableNames tables, String stateMachineArn, String secretArn,
                             String region, String account) {
        Map<String, LocalResources.Resource> map = new LinkedHashMap<>();
        String arnPrefix = ":" + region + ":" + account + ":";
        template.resources("AWS::DynamoDB::Table").forEach((id, table) -> {
            String name = tables.nameOf(schemaOf(table));
            map.put(id, LocalResources.Resource.of(name, "arn:aws:dynamodb" + arnPrefix + "table/" + name));
        });
        template.resources("AWS::StepFunctions::StateMachine").forEach((id, sm) ->
                map.put(id, new LocalResources.Resource(stateMachineArn, Map.of("Arn", stateMachineArn,
                        "Name", stateMachineArn.substring(stateMachineArn.lastIndexOf(':') + 1)))));
        template.resources("AWS::SecretsManager::Secret").forEach((id, s) -> map.put(id, LocalResources.Resource.of(secretArn, secretArn)));
        template.resources("AWS::IAM::Role").forEach((id, r) -> map.put(id, LocalResources.Resource.of(id, "arn:aws:iam::" + account + ":role/" + id)));
        template.resources("AWS::Logs::LogGroup").forEach((id, g) -> {
            String name = g.path("Properties").path("LogGroupName").asText(id);
            map.put(id, LocalResources.Resource.of(name, "arn:aws:logs" + arnPrefix + "log-group:" + name + ":*"));
        });
        template.resources("AWS::SQS::Queue").forEach((id, q) -> {
            String templateName = q.path("Properties").path("QueueName").asText(id);
            // The ingestion dead-letter and refused-events queues are the local run's (LocalPipeline creates them; the functions'
            // environments name them), so a grant on either is judged on the queue the functions call: ReconcilePage's and
            // DeliverCommands' depth reads, IngestEvents' sends of its refusals.
            String name = templateName;
            for (String local : java.util.List.of(com.payments.reconciler.workflow.FixedNames.INGEST_DEAD_LETTER_QUEUE_SUFFIX,
                    com.payments.reconciler.workflow.FixedNames.INGEST_REFUSED_QUEUE_SUFFIX)) {
                if (templateName.endsWith(local)) {
                    name = LocalResources.LOCAL_QUEUE_PREFIX + local;
                }
            }
            String localName = name;
            map.put(id, new LocalResources.Resource("https://sqs." + region + ".amazonaws.com/" + account + "/" + localName,
                    Map.of("Arn", "arn:aws:sqs" + arnPrefix + localName, "QueueName", localName)));
        });
        template.resources("AWS::KMS::Key").forEach((id, k) -> map.put(id, LocalResources.Resource.of(id, "arn:aws:kms" + arnPrefix + "key/" + id)));
        return LocalResources.of(map, region, account);
    }

    /** The template's table names are the stack's prefix plus the schema's logical name. */
    private static TableSchema schemaOf(JsonNode table) {
        String name = table.path("Properties").path("TableName").asText();
        return Tables.ALL.stream().filter(s -> name.endsWith(s.logicalName())).findFirst()
                .orElseThrow(() -> new IllegalStateException("the template's table " + name + " is none of Tables.ALL"));
    }
}
