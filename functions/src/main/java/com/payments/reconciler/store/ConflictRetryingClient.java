package com.payments.reconciler.store;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbServiceClientConfiguration;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * The client for a library that makes its own single-item writes (Powertools' idempotency store): PutItem,
 * UpdateItem and DeleteItem refused with {@code TransactionConflict} — which the SDK does not retry, and which
 * applied nothing — are tried again with {@link Backoff} ({@link StoreErrors#retryingConflicts}); the last
 * conflict and every other answer reach the library as they came, so its own handling (a failed condition is
 * an existing record) is unchanged. GetItem is passed through: a read is not refused by a transaction in flight.
 * Only the operations such a library calls are offered; any other is the SDK interface's default (unsupported).
 */
public final class ConflictRetryingClient implements DynamoDbClient {

    private final DynamoDbClient delegate;
    private final Backoff conflicts;

    public ConflictRetryingClient(DynamoDbClient delegate, Backoff conflicts) {
        this.delegate = delegate;
        this.conflicts = conflicts;
    }

    @Override
    public PutItemResponse putItem(PutItemRequest request) {
        return StoreErrors.retryingConflicts(conflicts, () -> delegate.putItem(request));
    }

    @Override
    public UpdateItemResponse updateItem(UpdateItemRequest request) {
        return StoreErrors.retryingConflicts(conflicts, () -> delegate.updateItem(request));
    }

    @Override
    public DeleteItemResponse deleteItem(DeleteItemRequest request) {
        return StoreErrors.retryingConflicts(conflicts, () -> delegate.deleteItem(request));
    }

    @Override
    public GetItemResponse getItem(GetItemRequest request) {
        return delegate.getItem(request);
    }

    @Override
    public DynamoDbServiceClientConfiguration serviceClientConfiguration() {
        return delegate.serviceClientConfiguration();
    }

    @Override
    public String serviceName() {
        return delegate.serviceName();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
