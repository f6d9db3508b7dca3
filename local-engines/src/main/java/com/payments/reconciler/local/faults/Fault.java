package com.payments.reconciler.local.faults;

/** What the fault layer can do to one request sent to DynamoDB. */
public enum Fault {
    /** {@code TransactionCanceledException} with a {@code TransactionConflict} reason; nothing applied. TransactWriteItems only. */
    TRANSACTION_CONFLICT,
    /** {@code ProvisionedThroughputExceededException}; nothing applied. The SDK retries it as throttling. */
    PROVISIONED_THROUGHPUT_EXCEEDED,
    /** {@code ThrottlingException}; nothing applied. The SDK retries it as throttling. */
    THROTTLING,
    /** The request reaches the engine and is applied; the caller's connection is reset before the answer arrives. */
    RESPONSE_LOST,
    /**
     * {@code TransactionConflictException}; nothing applied. A PutItem, UpdateItem or DeleteItem on an item that a
     * TransactWriteItems in flight names (DynamoDB developer guide, "Transaction conflict handling in DynamoDB").
     */
    ITEM_CONFLICT;

    /** Whether DynamoDB can answer {@code operation} this way. */
    public boolean appliesTo(DynamoOperation operation) {
        return switch (this) {
            case TRANSACTION_CONFLICT -> operation == DynamoOperation.TRANSACT_WRITE_ITEMS;
            case ITEM_CONFLICT -> operation.isSingleItemWrite();
            default -> true;
        };
    }
}
