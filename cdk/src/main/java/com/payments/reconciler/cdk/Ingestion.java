package com.payments.reconciler.cdk;

import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.FixedNames;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.ReservedConcurrency;
import com.payments.reconciler.workflow.Timing;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.lambda.EventSourceMapping;
import software.amazon.awscdk.services.lambda.EventSourceMappingOptions;
import software.amazon.awscdk.services.sqs.DeadLetterQueue;
import software.amazon.awscdk.services.sqs.Queue;
import software.amazon.awscdk.services.sqs.QueueEncryption;
import software.constructs.Construct;

/**
 * The way a card platform's events come in (docs/integration.md): an SQS queue under the data key, TLS only, with
 * its dead-letter queue and redrive policy, consumed by IngestEvents' alias through an event source mapping with
 * {@code ReportBatchItemFailures} and a {@code MaximumConcurrency} equal to the function's reservation
 * ({@link ReservedConcurrency#INGESTION_MAX_CONCURRENCY}). The mapping polls with the function's role, which is
 * granted exactly what the mapping calls on this queue and the key's use through SQS — not CDK's
 * {@code grantConsumeMessages}, which adds GetQueueUrl and ChangeMessageVisibility that nothing here calls.
 */
public final class Ingestion extends Construct {

    /**
     * Receives before SQS moves a message to the dead-letter queue: AWS's guidance for a queue feeding Lambda is at least
     * five, so a transient failure (throttling, a SnapStart error, a store blip) gets five tries a visibility timeout
     * apart. A refused event does not use them: IngestEvents sends it to the dead-letter queue itself and reports it done;
     * only if that send fails does the redrive policy move it after these receives (docs/decisions.md).
     */
    public static final int MAX_RECEIVE_COUNT = 5;
    /** As the stack's other dead-letter queues keep theirs: SQS's longest retention, time for a person. */
    static final Duration DEAD_LETTER_RETENTION = Duration.days(14);
    /** A platform's events wait at most this long for a stalled ingestion before SQS drops them: more than a weekend. */
    static final Duration RETENTION = Duration.days(4);
    /** What the mapping calls on the queue with the function's role (AWSLambdaSQSQueueExecutionRole's three actions). */
    static final List<String> CONSUME_ACTIONS = List.of("sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes");
    public static final String OUTPUT_QUEUE_URL = "IngestQueueUrl";
    public static final String OUTPUT_QUEUE_ARN = "IngestQueueArn";

    private final Queue queue;
    private final Queue deadLetterQueue;
    private final EventSourceMapping mapping;

    public Ingestion(Construct scope, String id, StackConfig config, EncryptionKeys keys, ReconcilerFunctions functions) {
        super(scope, id);
        this.deadLetterQueue = DeadLetterQueues.create(this, "DeadLetters", config.physicalName(FixedNames.INGEST_DEAD_LETTER_QUEUE_SUFFIX), keys.data(),
                DEAD_LETTER_RETENTION, "the ingestion queue (events IngestEvents refused, or could not apply in "
                        + MAX_RECEIVE_COUNT + " receives)");
        this.queue = Queue.Builder.create(this, "Queue")
                .queueName(config.physicalName(FixedNames.INGEST_QUEUE_SUFFIX))
                .encryption(QueueEncryption.KMS)
                .encryptionMasterKey(keys.data())
                .enforceSsl(true)
                .visibilityTimeout(Duration.seconds(Timing.INGEST_VISIBILITY_TIMEOUT.toSeconds()))
                .retentionPeriod(RETENTION)
                .deadLetterQueue(DeadLetterQueue.builder().queue(deadLetterQueue).maxReceiveCount(MAX_RECEIVE_COUNT).build())
                .build();
        var alias = functions.alias(LambdaFunction.INGEST_EVENTS);
        this.mapping = alias.addEventSourceMapping("IngestQueueMapping", EventSourceMappingOptions.builder()
                .eventSourceArn(queue.getQueueArn())
                .batchSize(Timing.INGEST_BATCH_SIZE)
                .reportBatchItemFailures(true)
                .maxConcurrency(ReservedConcurrency.INGESTION_MAX_CONCURRENCY)
                .build());
        var role = functions.role(LambdaFunction.INGEST_EVENTS);
        role.addToPolicy(PolicyStatement.Builder.create()
                .sid("ConsumeIngestQueue")
                .actions(CONSUME_ACTIONS)
                .resources(List.of(queue.getQueueArn()))
                .build());
        role.addToPolicy(PolicyStatement.Builder.create()
                .sid("IngestQueueKey")
                .actions(List.of("kms:Decrypt"))
                .resources(List.of(keys.data().getKeyArn()))
                .conditions(Map.of("StringEquals", Map.of("kms:ViaService", "sqs." + Stack.of(this).getRegion() + ".amazonaws.com")))
                .build());
        // Refused events: IngestEvents sends them to this one queue (SendMessage encrypts with the sender's permissions:
        // GenerateDataKey here, Decrypt through SQS is granted above on the same key, not repeated; IngestionTest
        // asserts the two together on the dead-letter queue's key, so giving either queue its own key fails there).
        functions.function(LambdaFunction.INGEST_EVENTS).addEnvironment(EnvVars.INGEST_DEAD_LETTER_QUEUE_URL, deadLetterQueue.getQueueUrl());
        role.addToPolicy(PolicyStatement.Builder.create()
                .sid("RefusedEventsToDeadLetters")
                .actions(List.of("sqs:SendMessage"))
                .resources(List.of(deadLetterQueue.getQueueArn()))
                .build());
        role.addToPolicy(PolicyStatement.Builder.create()
                .sid("DeadLetterQueueKey")
                .actions(List.of("kms:GenerateDataKey"))
                .resources(List.of(keys.data().getKeyArn()))
                .conditions(Map.of("StringEquals", Map.of("kms:ViaService", "sqs." + Stack.of(this).getRegion() + ".amazonaws.com")))
                .build());
        // Held for feed: ReconcilePage and DeliverCommands count what the dead-letter queue holds before releasing (a message
        // SQS moved there after maxReceiveCount never reached IngestEvents as a refusal). That one action, on this queue only:
        // GetQueueAttributes returns counts, never a message, and needs no key.
        for (LambdaFunction reader : List.of(LambdaFunction.RECONCILE_PAGE, LambdaFunction.DELIVER_COMMANDS)) {
            functions.function(reader).addEnvironment(EnvVars.INGEST_DEAD_LETTER_QUEUE_URL, deadLetterQueue.getQueueUrl());
            functions.role(reader).addToPolicy(PolicyStatement.Builder.create()
                    .sid(DEAD_LETTER_DEPTH_SID)
                    .actions(List.of("sqs:GetQueueAttributes"))
                    .resources(List.of(deadLetterQueue.getQueueArn()))
                    .build());
        }
        // The policy must exist before the mapping polls with the role, or its first ReceiveMessage is denied.
        mapping.getNode().addDependency(role);
    }

    /** The statement that lets ReconcilePage and DeliverCommands count the dead-letter queue's messages. */
    public static final String DEAD_LETTER_DEPTH_SID = "ReadDeadLetterDepth";

    public Queue queue() {
        return queue;
    }

    public Queue deadLetterQueue() {
        return deadLetterQueue;
    }

    public EventSourceMapping mapping() {
        return mapping;
    }
}
