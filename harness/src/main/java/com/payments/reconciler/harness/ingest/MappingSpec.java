package com.payments.reconciler.harness.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.harness.aws.SynthesizedTemplate;
import com.payments.reconciler.workflow.LambdaFunction;
import java.time.Duration;
import java.util.Map;

/**
 * The ingestion queue and its event source mapping as the synthesised stack defines them, so the local queue and the
 * harness's mapping behave as the deployed ones: the queue's {@code maxReceiveCount} and visibility timeout, the
 * mapping's batch size, {@code ReportBatchItemFailures} and {@code MaximumConcurrency}.
 *
 * @param visibilityTimeout the template's; a local run shortens it ({@link #withVisibilityTimeout}) so a reported
 *                          message is received again in seconds, not minutes (docs/emulator-differences.md)
 */
public record MappingSpec(int batchSize, boolean reportBatchItemFailures, int maximumConcurrency, int maxReceiveCount,
                          Duration visibilityTimeout) {

    static final String QUEUE_TYPE = "AWS::SQS::Queue";
    static final String MAPPING_TYPE = "AWS::Lambda::EventSourceMapping";

    public MappingSpec {
        if (batchSize < 1 || batchSize > 10) {
            throw new IllegalArgumentException("batchSize must be 1 to 10 (SQS's ReceiveMessage maximum), was " + batchSize);
        }
        if (maximumConcurrency < 1 || maxReceiveCount < 1) {
            throw new IllegalArgumentException("maximumConcurrency and maxReceiveCount must be >= 1, were "
                    + maximumConcurrency + " and " + maxReceiveCount);
        }
        // SQS counts visibility timeouts in whole seconds (0 to 12 hours).
        if (visibilityTimeout.isNegative() || visibilityTimeout.toMillis() % 1000 != 0 || visibilityTimeout.toHours() > 12) {
            throw new IllegalArgumentException("visibilityTimeout must be whole seconds from 0 to 12 hours, was " + visibilityTimeout);
        }
    }

    /** The one mapping of the stack that invokes IngestEvents, and the queue it reads. */
    public static MappingSpec fromTemplate(SynthesizedTemplate template) {
        String function = template.function(LambdaFunction.INGEST_EVENTS).logicalId();
        Map<String, JsonNode> mappings = template.resources(MAPPING_TYPE);
        JsonNode mapping = mappings.values().stream()
                .map(m -> m.path("Properties"))
                .filter(p -> invokes(template, p.path("FunctionName"), function))
                .reduce((a, b) -> {
                    throw new IllegalStateException("more than one event source mapping invokes " + function);
                })
                .orElseThrow(() -> new IllegalStateException("no event source mapping invokes " + function + " in " + template.name()));
        String queueId = mapping.path("EventSourceArn").path("Fn::GetAtt").path(0).asText();
        JsonNode queue = template.resource(queueId).path("Properties");
        boolean reports = false;
        for (JsonNode type : mapping.path("FunctionResponseTypes")) {
            reports |= "ReportBatchItemFailures".equals(type.asText());
        }
        return new MappingSpec(mapping.path("BatchSize").asInt(10), reports,
                mapping.path("ScalingConfig").path("MaximumConcurrency").asInt(1000),
                queue.path("RedrivePolicy").path("maxReceiveCount").asInt(),
                Duration.ofSeconds(queue.path("VisibilityTimeout").asLong(30)));
    }

    /** Whether a mapping's FunctionName refers to the function, directly or through one of its aliases. */
    private static boolean invokes(SynthesizedTemplate template, JsonNode functionName, String function) {
        for (JsonNode ref : functionName.findValues("Ref")) {
            String id = ref.asText();
            if (id.equals(function)) {
                return true;
            }
            JsonNode resource = template.json().path("Resources").path(id);
            if ("AWS::Lambda::Alias".equals(resource.path("Type").asText())
                    && function.equals(resource.path("Properties").path("FunctionName").path("Ref").asText())) {
                return true;
            }
        }
        return false;
    }

    public MappingSpec withVisibilityTimeout(Duration value) {
        return new MappingSpec(batchSize, reportBatchItemFailures, maximumConcurrency, maxReceiveCount, value);
    }
}
