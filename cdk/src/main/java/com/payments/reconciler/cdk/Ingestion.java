package com.payments.reconciler.cdk;

import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.FixedNames;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.ReservedConcurrency;
import com.payments.reconciler.workflow.Timing;
import java.util.List;
import java.util.Map;
import io.github.cdklabs.cdknag.NagPackSuppression;
import io.github.cdklabs.cdknag.NagSuppressions;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.lambda.EventSourceMapping;
import software.amazon.awscdk.services.lambda.EventSourceMappingOptions;
import software.amazon.awscdk.ArnComponents;
import software.amazon.awscdk.services.sqs.DeadLetterQueue;
import software.amazon.awscdk.services.sqs.IQueue;
import software.amazon.awscdk.services.sqs.RedriveAllowPolicy;
import software.amazon.awscdk.services.sqs.Queue;
import software.amazon.awscdk.services.sqs.QueueEncryption;
import software.constructs.Construct;

/**
 * The way a card platform's events come in (docs/integration.md): an SQS queue under the data key, TLS only, with
 * its dead-letter queue and redrive policy, and a refused-events queue beside it, consumed by IngestEvents' alias through an event source mapping with
 * {@code ReportBatchItemFailures} and a {@code MaximumConcurrency} equal to the function's reservation
 * ({@link ReservedConcurrency#INGESTION_MAX_CONCURRENCY}). The mapping polls with the function's role, which is
 * granted exactly what the mapping calls on this queue and the key's use through SQS — not CDK's
 * {@code grantConsumeMessages}, which adds GetQueueUrl and ChangeMessageVisibility that nothing here calls.
 */
public final class Ingestion extends Construct {

    /**
     * Receives before SQS moves a message to the dead-letter queue: AWS's guidance for a queue feeding Lambda is at least
     * five, so a transient failure (throttling, a SnapStart error, a store blip) gets five tries a visibility timeout
     * apart. A refused event does not use them: IngestEvents sends it to the refused-events queue itself and reports it
     * done; only if that send fails does the redrive policy move it to the dead-letter queue after these receives
     * (docs/decisions.md).
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
    private final Queue refusedQueue;
    private final EventSourceMapping mapping;

    public Ingestion(Construct scope, String id, StackConfig config, EncryptionKeys keys, ReconcilerFunctions functions) {
        super(scope, id);
        // Only the ingestion queue may name it as its dead-letter queue: any other queue's messages there would hold every
        // night. The ingestion queue is named by an ARN built from its fixed name, since its own RedrivePolicy already
        // references this queue (a reference back would be a CloudFormation cycle).
        String ingestQueueName = config.physicalName(FixedNames.INGEST_QUEUE_SUFFIX);
        IQueue ingestQueueByName = Queue.fromQueueArn(this, "IngestQueueByName", Stack.of(this).formatArn(ArnComponents.builder()
                .service("sqs").resource(ingestQueueName).build()));
        this.deadLetterQueue = DeadLetterQueues.create(this, "DeadLetters", config.physicalName(FixedNames.INGEST_DEAD_LETTER_QUEUE_SUFFIX), keys.data(),
                DEAD_LETTER_RETENTION, "the ingestion queue (events IngestEvents could not apply in "
                        + MAX_RECEIVE_COUNT + " receives: SQS's redrive only)",
                RedriveAllowPolicy.builder().sourceQueues(List.of(ingestQueueByName)).build());
        this.refusedQueue = refusedQueue(this, config, keys);
        this.queue = Queue.Builder.create(this, "Queue")
                .queueName(ingestQueueName)
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
        // Refused events: IngestEvents sends them to this one queue, never to the dead-letter queue, whose depth holds a whole
        // night and so must count only what SQS's redrive moved there (a message no code has seen); a refusal is covered
        // exactly by the hold item written before the send (docs/design.md, "Held for feed"). SendMessage encrypts with the
        // sender's permissions: GenerateDataKey here, Decrypt through SQS is granted above on the same key, not repeated;
        // IngestionTest asserts the two together on the refused queue's key, so giving either queue its own key fails there.
        functions.function(LambdaFunction.INGEST_EVENTS).addEnvironment(EnvVars.INGEST_REFUSED_QUEUE_URL, refusedQueue.getQueueUrl());
        role.addToPolicy(PolicyStatement.Builder.create()
                .sid(REFUSED_EVENTS_SID)
                .actions(List.of("sqs:SendMessage"))
                .resources(List.of(refusedQueue.getQueueArn()))
                .build());
        role.addToPolicy(PolicyStatement.Builder.create()
                .sid(REFUSED_QUEUE_KEY_SID)
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

    /** IngestEvents' statement that sends its refusals to the refused-events queue (and to no other queue). */
    public static final String REFUSED_EVENTS_SID = "RefusedEventsToTheirQueue";
    /** The data key's GenerateDataKey through SQS, for that send. */
    public static final String REFUSED_QUEUE_KEY_SID = "RefusedQueueKey";
    public static final String OUTPUT_REFUSED_QUEUE_URL = "IngestRefusedQueueUrl";

    /**
     * The refused-events queue: the events IngestEvents refused, each with its {@code refusal} and {@code sourceMessageId}
     * attributes, for a person (docs/operating.md, "Runbook: held for feed"). Under the data key (they are business events,
     * and may hold what looked like card data), TLS only, SQS's longest retention as the dead-letter queues. Nothing
     * receives from it but an operator, so it has no dead-letter queue of its own (cdk-nag SQS3 answered with why); its
     * depth is alarmed ({@code Monitoring.INGEST_REFUSED}).
     */
    private static Queue refusedQueue(Construct scope, StackConfig config, EncryptionKeys keys) {
        Queue queue = Queue.Builder.create(scope, "RefusedEvents")
                .queueName(config.physicalName(FixedNames.INGEST_REFUSED_QUEUE_SUFFIX))
                .encryption(QueueEncryption.KMS)
                .encryptionMasterKey(keys.data())
                .enforceSsl(true)
                .retentionPeriod(DEAD_LETTER_RETENTION)
                // No queue may make it its dead-letter queue: messages SQS moved here would be named by no hold and
                // counted by no night (the nights count the dead-letter queue's depth, not this one's).
                .redriveAllowPolicy(DeadLetterQueues.noSourceQueue())
                .build();
        NagSuppressions.addResourceSuppressions(queue, List.of(NagPackSuppression.builder()
                .id("AwsSolutions-SQS3")
                .reason("This queue holds the events IngestEvents refused, for a person to read; no function receives from it, "
                        + "so no receive can fail and a dead-letter queue of its own would stay empty. Its depth is alarmed.")
                .build()));
        return queue;
    }

    /** The statement that lets ReconcilePage and DeliverCommands count the dead-letter queue's messages. */
    public static final String DEAD_LETTER_DEPTH_SID = "ReadDeadLetterDepth";

    public Queue queue() {
        return queue;
    }

    public Queue deadLetterQueue() {
        return deadLetterQueue;
    }

    public Queue refusedQueue() {
        return refusedQueue;
    }

    public EventSourceMapping mapping() {
        return mapping;
    }
}
