package com.payments.reconciler.cdk;

import io.github.cdklabs.cdknag.NagPackSuppression;
import io.github.cdklabs.cdknag.NagSuppressions;
import java.util.List;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.services.kms.IKey;
import software.amazon.awscdk.services.sqs.Queue;
import software.amazon.awscdk.services.sqs.QueueEncryption;
import software.amazon.awscdk.services.sqs.RedriveAllowPolicy;
import software.amazon.awscdk.services.sqs.RedrivePermission;
import software.constructs.Construct;

/**
 * The stack's queues of last resort (the schedule's DLQ, StartWindow's on-failure destination): encrypted with
 * the telemetry key, TLS only, their depth alarmed. cdk-nag's SQS3 (a queue should have a DLQ) is answered once:
 * a dead-letter queue of a dead-letter queue would only move the same failed records one hop further.
 */
final class DeadLetterQueues {

    private DeadLetterQueues() {
    }

    /** {@code whatFails}: whose failures land here, for the suppression's reason. */
    static Queue create(Construct scope, String id, String queueName, EncryptionKeys keys, Duration retention, String whatFails) {
        return create(scope, id, queueName, keys.telemetry(), retention, whatFails);
    }

    /**
     * With the key of the records it will hold. Its records are sent to it by a service (Scheduler, Lambda), never moved
     * by a source queue's redrive policy, so no queue may name it as its dead-letter queue: without a
     * {@code RedriveAllowPolicy}, SQS lets any queue of the account and Region do it, and another queue's failures would
     * count in its alarm.
     */
    static Queue create(Construct scope, String id, String queueName, IKey key, Duration retention, String whatFails) {
        return create(scope, id, queueName, key, retention, whatFails, noSourceQueue());
    }

    /** No queue may name it as its dead-letter queue (without a policy SQS lets any queue of the account and Region). */
    static RedriveAllowPolicy noSourceQueue() {
        return RedriveAllowPolicy.builder().redrivePermission(RedrivePermission.DENY_ALL).build();
    }

    /**
     * With the key of the records it will hold (the ingestion queue's dead letters are business events: the data key) and
     * {@code redriveAllowPolicy}, which source queues may name it as their dead-letter queue.
     */
    static Queue create(Construct scope, String id, String queueName, IKey key, Duration retention, String whatFails,
                        RedriveAllowPolicy redriveAllowPolicy) {
        Queue queue = Queue.Builder.create(scope, id)
                .queueName(queueName)
                .encryption(QueueEncryption.KMS)
                .encryptionMasterKey(key)
                .enforceSsl(true)
                .retentionPeriod(retention)
                .redriveAllowPolicy(redriveAllowPolicy)
                .build();
        NagSuppressions.addResourceSuppressions(queue, List.of(NagPackSuppression.builder()
                .id("AwsSolutions-SQS3")
                .reason("This queue is the dead-letter queue of " + whatFails + "; a dead-letter queue of its own would only "
                        + "move the same failed records one hop further. Its depth is alarmed instead.")
                .build()));
        return queue;
    }
}
