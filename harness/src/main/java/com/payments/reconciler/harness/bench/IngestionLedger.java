package com.payments.reconciler.harness.bench;

import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.DeleteMessageRequest;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageRequest;
import software.amazon.awssdk.services.sqs.model.SqsRequest;

/**
 * The requests ingestion exchanges, counted as they are sent (every attempt: each is billed): on the handler's
 * DynamoDB client, writes and reads apart (a read-before-write would show here, the design has none) and the
 * conditional writes refused (billed all the same); on the queue's SQS client, the requests a deployment pays for
 * (send, receive, delete) apart from the harness's own queue-depth polls. Write request units follow
 * {@link RequestLedger}'s rule (1 WRU per started KB of a put item; 1 for an update).
 */
public final class IngestionLedger implements ExecutionInterceptor {

    private final AtomicLong dynamoWrites = new AtomicLong();
    private final AtomicLong dynamoReads = new AtomicLong();
    private final AtomicLong conditionalFailures = new AtomicLong();
    private final AtomicLong writeUnits = new AtomicLong();
    private final AtomicLong largestItemBytes = new AtomicLong();
    private final AtomicLong sends = new AtomicLong();
    private final AtomicLong receives = new AtomicLong();
    private final AtomicLong deletes = new AtomicLong();
    private final AtomicLong sqsOther = new AtomicLong();

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        SdkRequest request = context.request();
        switch (request) {
            case PutItemRequest put -> {
                long bytes = RequestLedger.itemBytes(put.item());
                largestItemBytes.accumulateAndGet(bytes, Math::max);
                dynamoWrites.incrementAndGet();
                writeUnits.addAndGet(Math.max(1, (bytes + 1023) / 1024));
            }
            case UpdateItemRequest ignored -> write();
            case DeleteItemRequest ignored -> write();
            case TransactWriteItemsRequest tx -> {
                dynamoWrites.incrementAndGet();
                writeUnits.addAndGet(2L * tx.transactItems().size());
            }
            case BatchWriteItemRequest batch -> {
                dynamoWrites.incrementAndGet();
                writeUnits.addAndGet(batch.requestItems().values().stream().mapToLong(java.util.List::size).sum());
            }
            case DynamoDbRequest ignored -> dynamoReads.incrementAndGet();
            case SendMessageBatchRequest ignored -> sends.incrementAndGet();
            case SendMessageRequest ignored -> sends.incrementAndGet();
            case ReceiveMessageRequest ignored -> receives.incrementAndGet();
            case DeleteMessageBatchRequest ignored -> deletes.incrementAndGet();
            case DeleteMessageRequest ignored -> deletes.incrementAndGet();
            case SqsRequest ignored -> sqsOther.incrementAndGet();
            default -> { }
        }
    }

    private void write() {
        dynamoWrites.incrementAndGet();
        writeUnits.incrementAndGet();
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        if (context.exception() instanceof ConditionalCheckFailedException) {
            conditionalFailures.incrementAndGet();
        }
    }

    public void reset() {
        for (AtomicLong n : new AtomicLong[]{dynamoWrites, dynamoReads, conditionalFailures, writeUnits, largestItemBytes, sends, receives,
                deletes, sqsOther}) {
            n.set(0);
        }
    }

    public Snapshot snapshot() {
        return new Snapshot(dynamoWrites.get(), dynamoReads.get(), conditionalFailures.get(), writeUnits.get(), largestItemBytes.get(),
                sends.get(), receives.get(), deletes.get(), sqsOther.get());
    }

    /**
     * @param sqsOther the harness's GetQueueAttributes polls (how it knows the queue is drained; a deployment's mapping
     *                 does not make them)
     */
    public record Snapshot(long dynamoWrites, long dynamoReads, long conditionalFailures, long writeRequestUnits, long largestItemBytes,
                           long sqsSends, long sqsReceives, long sqsDeletes, long sqsOther) {

        /** The SQS requests a deployment is billed for. */
        public long sqsBilled() {
            return sqsSends + sqsReceives + sqsDeletes;
        }
    }
}
