package com.payments.reconciler.harness.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.harness.aws.SynthesizedTemplate;
import com.payments.reconciler.workflow.LambdaFunction;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The ingestion queue and its event source mapping as the synthesised stack defines them, so the local queue and the
 * harness's mapping behave as the deployed ones: the queue's {@code maxReceiveCount} and visibility timeout, the
 * mapping's batch size, batching window, {@code ReportBatchItemFailures} and {@code MaximumConcurrency}, and the
 * function's reserved concurrency.
 *
 * @param visibilityTimeout the template's: a message is invisible to the other pollers while its batch is processed
 * @param batchingWindow the mapping's {@code MaximumBatchingWindowInSeconds} (0 when the template sets none, SQS's default)
 * @param reservedConcurrency IngestEvents' {@code ReservedConcurrentExecutions}, if the template sets it
 */
public record MappingSpec(int batchSize, boolean reportBatchItemFailures, int maximumConcurrency, int maxReceiveCount,
                          Duration visibilityTimeout, Duration batchingWindow, OptionalInt reservedConcurrency) {

    /**
     * The concurrent batches Lambda starts an SQS mapping with (AWS Lambda Developer Guide, "Configuring scaling
     * behavior for SQS event source mappings": five batches at a time with five concurrent invocations, scaling up by
     * up to 300 a minute while messages remain, to the mapping's maximum concurrency).
     */
    static final int LAMBDA_STARTING_POLLERS = 5;

    static final String QUEUE_TYPE = "AWS::SQS::Queue";
    static final String MAPPING_TYPE = "AWS::Lambda::EventSourceMapping";

    public MappingSpec {
        if (batchSize < 1 || batchSize > 10) {
            throw new IllegalArgumentException("batchSize must be 1 to 10 (SQS's ReceiveMessage maximum), was " + batchSize);
        }
        if (batchingWindow.isNegative() || batchingWindow.toSeconds() > 300) {
            throw new IllegalArgumentException("batchingWindow must be 0 to 300 seconds, was " + batchingWindow);
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
                mapping.path("ScalingConfig").path("MaximumConcurrency").asInt(UNSET_MAXIMUM_CONCURRENCY),
                queue.path("RedrivePolicy").path("maxReceiveCount").asInt(),
                Duration.ofSeconds(queue.path("VisibilityTimeout").asLong(30)),
                Duration.ofSeconds(mapping.path("MaximumBatchingWindowInSeconds").asLong(0)),
                template.function(LambdaFunction.INGEST_EVENTS).reservedConcurrency());
    }

    /**
     * How many batches the harness's mapping invokes at once: what Lambda would run for a queue that stays full for
     * the seconds a local ingestion lasts — its mapping's {@code MaximumConcurrency}, no more than the function's
     * reserved concurrency (beyond it Lambda throttles the invocations and the batches go back to the queue); with
     * neither set, the five batches Lambda starts with.
     */
    public int pollers() {
        boolean capped = maximumConcurrency < UNSET_MAXIMUM_CONCURRENCY || reservedConcurrency.isPresent();
        int limit = Math.min(maximumConcurrency, reservedConcurrency.orElse(Integer.MAX_VALUE));
        return capped ? limit : LAMBDA_STARTING_POLLERS;
    }

    /** The mapping's {@code MaximumConcurrency} when the template sets none: Lambda's limit per SQS mapping. */
    static final int UNSET_MAXIMUM_CONCURRENCY = 1000;

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
        return new MappingSpec(batchSize, reportBatchItemFailures, maximumConcurrency, maxReceiveCount, value, batchingWindow,
                reservedConcurrency);
    }
}
