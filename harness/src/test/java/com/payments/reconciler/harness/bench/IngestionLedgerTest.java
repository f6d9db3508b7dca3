package com.payments.reconciler.harness.bench;

import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.InterceptorContext;
import software.amazon.awssdk.core.internal.interceptor.DefaultFailedExecutionContext;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.GetQueueAttributesRequest;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ledger the bench's ingestion figures come from: what it counts as a write, a read, a refused write and a billed
 * SQS request. The known-bad case is an ingestion that reads before it writes: its read shows, so the bench test's
 * "no reads, at most 1.2 writes per event" fails on it.
 */
class IngestionLedgerTest {

    private static final ExecutionAttributes NONE = new ExecutionAttributes();

    @Test
    void conditionalWritesAreWritesAndTheirRefusalsAreCountedBesideThem() {
        IngestionLedger ledger = new IngestionLedger();
        send(ledger, PutItemRequest.builder().tableName("t").item(Map.of("authorisationId", AttributeValue.fromS("a-1"))).build());
        send(ledger, UpdateItemRequest.builder().tableName("t").key(Map.of("authorisationId", AttributeValue.fromS("a-1"))).build());
        ledger.onExecutionFailure(DefaultFailedExecutionContext.builder()
                .interceptorContext(InterceptorContext.builder().request(PutItemRequest.builder().build()).build())
                .exception(ConditionalCheckFailedException.builder().message("refused").build()).build(), NONE);

        IngestionLedger.Snapshot counted = ledger.snapshot();
        assertThat(counted.dynamoWrites()).isEqualTo(2);
        assertThat(counted.writeRequestUnits()).isEqualTo(2);
        assertThat(counted.conditionalFailures()).isEqualTo(1);
        assertThat(counted.dynamoReads()).isZero();
        assertThat(counted.largestItemBytes()).isEqualTo("authorisationId".length() + "a-1".length());
    }

    @Test
    void aReadBeforeWriteIsCountedSoTheBenchWouldReportIt() {
        IngestionLedger ledger = new IngestionLedger();
        send(ledger, GetItemRequest.builder().tableName("t").key(Map.of("authorisationId", AttributeValue.fromS("a-1"))).build());
        send(ledger, PutItemRequest.builder().tableName("t").item(Map.of("authorisationId", AttributeValue.fromS("a-1"))).build());

        assertThat(ledger.snapshot().dynamoReads()).isEqualTo(1);
        assertThat(ledger.snapshot().dynamoWrites()).isEqualTo(1);
        ledger.reset();
        assertThat(ledger.snapshot().dynamoReads()).isZero();
    }

    @Test
    void sqsRequestsBilledAreSendReceiveDeleteAndTheHarnessPollsAreApart() {
        IngestionLedger ledger = new IngestionLedger();
        send(ledger, SendMessageBatchRequest.builder().build());
        send(ledger, ReceiveMessageRequest.builder().build());
        send(ledger, ReceiveMessageRequest.builder().build());
        send(ledger, DeleteMessageBatchRequest.builder().build());
        send(ledger, GetQueueAttributesRequest.builder().build());

        IngestionLedger.Snapshot counted = ledger.snapshot();
        assertThat(counted.sqsBilled()).isEqualTo(4);
        assertThat(counted.sqsReceives()).isEqualTo(2);
        assertThat(counted.sqsOther()).isEqualTo(1);
        assertThat(counted.dynamoWrites() + counted.dynamoReads()).isZero();
    }

    @Test
    void moreThanOnePointTwoWritesPerEventMissesTheTarget() {
        IngestionRun.Result result = new IngestionRun.Result(10, 10, 10, 0, 0, 0,
                new com.payments.reconciler.harness.ingest.PlatformFeed.Tally(10, 10, 0, 0, 0, 10, 1), 1.0, 0.1,
                new IngestionLedger.Snapshot(13, 0, 3, 13, 100, 1, 2, 1, 0));
        assertThat(BenchReport.Ingestion.of(result, Prices.US_EAST_1).met()).isFalse();
        IngestionRun.Result good = new IngestionRun.Result(10, 10, 10, 0, 0, 0,
                new com.payments.reconciler.harness.ingest.PlatformFeed.Tally(10, 10, 0, 0, 0, 10, 1), 1.0, 0.1,
                new IngestionLedger.Snapshot(12, 0, 2, 12, 100, 1, 2, 1, 0));
        assertThat(BenchReport.Ingestion.of(good, Prices.US_EAST_1).met()).isTrue();
    }

    private static void send(IngestionLedger ledger, SdkRequest request) {
        Context.BeforeTransmission context = InterceptorContext.builder().request(request).build();
        ledger.beforeTransmission(context, NONE);
    }
}
