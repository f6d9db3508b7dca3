package com.payments.reconciler.harness.bench;

import com.payments.reconciler.harness.local.LocalPipeline;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.InterceptorContext;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Read units as DynamoDB on-demand bills them: half a unit eventually consistent, a whole one strongly consistent. */
class RequestLedgerTest {

    private final RequestLedger ledger = new RequestLedger(LocalPipeline.TABLES);
    private static final Map<String, AttributeValue> KEY = Map.of("id", AttributeValue.fromS("a-1"));

    private void send(SdkRequest request) {
        ledger.beforeTransmission(InterceptorContext.builder().request(request).build(), new ExecutionAttributes());
    }

    private void answer(SdkRequest request, SdkResponse response) {
        ledger.afterExecution(InterceptorContext.builder().request(request).response(response).build(), new ExecutionAttributes());
    }

    @Test
    void aGetItemIsHalfAUnitOrAWholeOneWhenStronglyConsistent() {
        send(GetItemRequest.builder().tableName("Idempotency").key(KEY).build());
        assertThat(ledger.snapshot().readRequestUnits()).isEqualTo(0.5);
        send(GetItemRequest.builder().tableName("Idempotency").key(KEY).consistentRead(true).build());
        assertThat(ledger.snapshot().readRequestUnits()).isEqualTo(1.5);
    }

    @Test
    void aBatchGetItemCountsEachKeyAtItsTablesConsistency() {
        send(BatchGetItemRequest.builder().requestItems(Map.of(
                LocalPipeline.TABLES.settlements(), KeysAndAttributes.builder().keys(List.of(KEY, KEY, KEY)).consistentRead(true).build(),
                LocalPipeline.TABLES.authorisations(), KeysAndAttributes.builder().keys(List.of(KEY, KEY)).build())).build());
        assertThat(ledger.snapshot().readRequestUnits()).isEqualTo(3 * 1.0 + 2 * 0.5);
    }

    @Test
    void aQueryIsCountedPerStarted4KbOfWhatItReturned() {
        QueryRequest eventual = QueryRequest.builder().tableName(LocalPipeline.TABLES.releaseCommands()).build();
        QueryRequest strong = QueryRequest.builder().tableName(LocalPipeline.TABLES.releaseCommands()).consistentRead(true).build();
        QueryResponse twoItems = QueryResponse.builder().items(List.of(KEY, KEY)).build();
        answer(eventual, twoItems);
        answer(strong, twoItems);
        assertThat(ledger.snapshot().readRequestUnits()).isEqualTo(0.5 + 1.0);
    }
}
