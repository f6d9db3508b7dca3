package com.payments.reconciler.harness.ingest;

import com.payments.reconciler.testing.LocalAwsClients;
import com.payments.reconciler.workflow.FixedNames;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/**
 * The ingestion queue, its dead-letter queue and the refused-events queue on the local engine (moto serves SQS beside
 * DynamoDB and Step Functions), with the template's redrive policy: a message received {@code maxReceiveCount} times
 * without being deleted moves to the dead-letter queue on its next receive, as SQS does; IngestEvents sends the events it
 * refuses to the refused-events queue itself. The card platform's side too: it publishes events as message bodies, ten
 * per {@code SendMessageBatch}.
 */
public final class LocalIngestQueue implements AutoCloseable {

    /** SendMessageBatch's limit. */
    private static final int SEND_BATCH = 10;

    private final SqsClient sqs;
    private final String url;
    private final String arn;
    private final String deadLetterUrl;
    private final String refusedUrl;
    private final MappingSpec spec;

    private LocalIngestQueue(SqsClient sqs, String url, String arn, String deadLetterUrl, String refusedUrl, MappingSpec spec) {
        this.sqs = sqs;
        this.url = url;
        this.arn = arn;
        this.deadLetterUrl = deadLetterUrl;
        this.refusedUrl = refusedUrl;
        this.spec = spec;
    }

    /**
     * Creates {@code {prefix}ingest-events}, {@code {prefix}ingest-events-dlq} and {@code {prefix}ingest-events-refused} as
     * the stack names them. IngestEvents sends its refusals to the queue its environment names (the local run's,
     * {@code local-}): with another prefix, this queue's refused-events queue stays empty.
     */
    public static LocalIngestQueue create(URI engine, String prefix, MappingSpec spec) {
        return create(engine, prefix, spec, List.of());
    }

    /** As {@link #create(URI, String, MappingSpec)}, every SQS request (platform and mapping) seen by the interceptors. */
    public static LocalIngestQueue create(URI engine, String prefix, MappingSpec spec, List<ExecutionInterceptor> interceptors) {
        SqsClient sqs = SqsClient.builder().region(LocalAwsClients.REGION).endpointOverride(engine)
                .overrideConfiguration(ClientOverrideConfiguration.builder().executionInterceptors(List.copyOf(interceptors)).build())
                .httpClient(UrlConnectionHttpClient.builder().connectionTimeout(Duration.ofSeconds(2)).socketTimeout(Duration.ofSeconds(90)).build())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"))).build();
        String dlqUrl = sqs.createQueue(b -> b.queueName(prefix + FixedNames.INGEST_DEAD_LETTER_QUEUE_SUFFIX)).queueUrl();
        String refusedUrl = sqs.createQueue(b -> b.queueName(prefix + FixedNames.INGEST_REFUSED_QUEUE_SUFFIX)).queueUrl();
        String dlqArn = attribute(sqs, dlqUrl, QueueAttributeName.QUEUE_ARN);
        String redrive = "{\"deadLetterTargetArn\":\"" + dlqArn + "\",\"maxReceiveCount\":" + spec.maxReceiveCount() + "}";
        String url = sqs.createQueue(b -> b.queueName(prefix + FixedNames.INGEST_QUEUE_SUFFIX).attributes(Map.of(
                QueueAttributeName.VISIBILITY_TIMEOUT, Long.toString(spec.visibilityTimeout().toSeconds()),
                QueueAttributeName.REDRIVE_POLICY, redrive))).queueUrl();
        return new LocalIngestQueue(sqs, url, attribute(sqs, url, QueueAttributeName.QUEUE_ARN), dlqUrl, refusedUrl, spec);
    }

    /** Publishes each body as one message; returns how many were sent. */
    public int publish(List<String> bodies) {
        return publishReturningIds(bodies).size();
    }

    /** Publishes each body as one message; returns their message ids, in the bodies' order. */
    public List<String> publishReturningIds(List<String> bodies) {
        List<String> ids = new ArrayList<>(bodies.size());
        for (int from = 0; from < bodies.size(); from += SEND_BATCH) {
            List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
            for (int i = from; i < Math.min(bodies.size(), from + SEND_BATCH); i++) {
                entries.add(SendMessageBatchRequestEntry.builder().id(Integer.toString(i - from)).messageBody(bodies.get(i)).build());
            }
            SendMessageBatchResponse response = sqs.sendMessageBatch(b -> b.queueUrl(url).entries(entries));
            if (response.hasFailed() && !response.failed().isEmpty()) {
                throw new IllegalStateException("the local queue refused " + response.failed().size() + " messages: "
                        + response.failed().getFirst().message());
            }
            String[] sent = new String[entries.size()];
            response.successful().forEach(ok -> sent[Integer.parseInt(ok.id())] = ok.messageId());
            ids.addAll(List.of(sent));
        }
        return ids;
    }

    /** Messages waiting or in flight (received, neither deleted nor visible again). */
    public long notDone() {
        Map<QueueAttributeName, String> attributes = sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE,
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED)).attributes();
        return attributes.values().stream().mapToLong(Long::parseLong).sum();
    }

    /** Messages SQS's redrive moved to the dead-letter queue (IngestEvents sends nothing there). */
    public long deadLettered() {
        return Long.parseLong(attribute(sqs, deadLetterUrl, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES));
    }

    /** The dead-letter queue's messages, received once with a long visibility timeout (tests: what reached it). */
    public List<Message> receiveDeadLetters() {
        List<Message> all = new ArrayList<>();
        while (true) {
            List<Message> batch = sqs.receiveMessage(b -> b.queueUrl(deadLetterUrl).maxNumberOfMessages(SEND_BATCH)
                    .visibilityTimeout(3600).waitTimeSeconds(0)).messages();
            if (batch.isEmpty()) {
                return all;
            }
            all.addAll(batch);
        }
    }

    /** The refused-events queue's URL. */
    public String refusedUrl() {
        return refusedUrl;
    }

    /** The dead-letter queue's URL. */
    public String deadLetterUrl() {
        return deadLetterUrl;
    }

    /**
     * The source message ids of the messages IngestEvents sent to the refused-events queue (the events it refused), read
     * with the attribute it sets; the messages are made visible again, so they stay for whoever reads them next.
     */
    public java.util.Set<String> refusedBySender() {
        List<Message> all = new ArrayList<>();
        while (true) {
            List<Message> batch = sqs.receiveMessage(b -> b.queueUrl(refusedUrl).maxNumberOfMessages(SEND_BATCH)
                    .visibilityTimeout(3600).waitTimeSeconds(0)
                    .messageAttributeNames(com.payments.reconciler.ingest.SqsRefusedEvents.SOURCE_MESSAGE_ID_ATTRIBUTE)).messages();
            if (batch.isEmpty()) {
                break;
            }
            all.addAll(batch);
        }
        java.util.Set<String> sources = new java.util.HashSet<>();
        for (Message m : all) {
            var source = m.messageAttributes().get(com.payments.reconciler.ingest.SqsRefusedEvents.SOURCE_MESSAGE_ID_ATTRIBUTE);
            if (source != null) {
                sources.add(source.stringValue());
            }
            sqs.changeMessageVisibility(b -> b.queueUrl(refusedUrl).receiptHandle(m.receiptHandle()).visibilityTimeout(0));
        }
        return sources;
    }

    SqsClient sqs() {
        return sqs;
    }

    public String url() {
        return url;
    }

    public String arn() {
        return arn;
    }

    public MappingSpec spec() {
        return spec;
    }

    private static String attribute(SqsClient sqs, String queueUrl, QueueAttributeName name) {
        return sqs.getQueueAttributes(b -> b.queueUrl(queueUrl).attributeNames(name)).attributes().get(name);
    }

    @Override
    public void close() {
        sqs.close();
    }
}
