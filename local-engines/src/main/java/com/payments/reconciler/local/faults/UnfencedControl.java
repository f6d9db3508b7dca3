package com.payments.reconciler.local.faults;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbServiceClientConfiguration;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

import java.util.ArrayList;
import java.util.List;

/**
 * The negative control of the fence, harness-side only: a client for the fenced writer that sends every
 * {@code TransactWriteItems} without its ConditionCheck on the lease table — what a plain lock-client design
 * writes — and, when the engine cancels the shorter transaction, puts a {@code None} reason back at each
 * stripped index, so the writer reads the answer as it would if its own code had sent no lease check. The
 * deployed writer has no switch that removes the fence; this is how the interleaving properties and the bench
 * take it off. Only {@code transactWriteItems} is offered (the writer's one call); anything else is the SDK
 * interface's default (unsupported).
 */
public final class UnfencedControl implements DynamoDbClient {

    private final DynamoDbClient delegate;
    private final String leaseTable;

    /** @param leaseTable the table whose ConditionChecks are stripped */
    public UnfencedControl(DynamoDbClient delegate, String leaseTable) {
        this.delegate = delegate;
        this.leaseTable = leaseTable;
    }

    @Override
    public TransactWriteItemsResponse transactWriteItems(TransactWriteItemsRequest request) {
        List<Integer> stripped = new ArrayList<>();
        List<TransactWriteItem> kept = new ArrayList<>();
        for (int k = 0; k < request.transactItems().size(); k++) {
            TransactWriteItem item = request.transactItems().get(k);
            if (item.conditionCheck() != null && leaseTable.equals(item.conditionCheck().tableName())) {
                stripped.add(k);
            } else {
                kept.add(item);
            }
        }
        try {
            return delegate.transactWriteItems(request.toBuilder().transactItems(kept).build());
        } catch (TransactionCanceledException cancelled) {
            if (stripped.isEmpty() || !cancelled.hasCancellationReasons() || cancelled.cancellationReasons().size() != kept.size()) {
                throw cancelled;
            }
            List<CancellationReason> reasons = new ArrayList<>(cancelled.cancellationReasons());
            for (int index : stripped) {
                reasons.add(index, CancellationReason.builder().code("None").build());
            }
            throw (TransactionCanceledException) cancelled.toBuilder().cancellationReasons(reasons).build();
        }
    }

    @Override
    public DynamoDbServiceClientConfiguration serviceClientConfiguration() {
        return delegate.serviceClientConfiguration();
    }

    @Override
    public String serviceName() {
        return delegate.serviceName();
    }

    /** The delegate belongs to whoever built it. */
    @Override
    public void close() {
    }
}
