package com.payments.reconciler.local.faults;

import java.util.Arrays;
import java.util.Optional;

/** The DynamoDB data-plane operations the fault layer can disturb, by their wire names. */
public enum DynamoOperation {
    TRANSACT_WRITE_ITEMS("TransactWriteItems"),
    UPDATE_ITEM("UpdateItem"),
    PUT_ITEM("PutItem"),
    DELETE_ITEM("DeleteItem"),
    BATCH_WRITE_ITEM("BatchWriteItem"),
    GET_ITEM("GetItem"),
    BATCH_GET_ITEM("BatchGetItem"),
    TRANSACT_GET_ITEMS("TransactGetItems"),
    QUERY("Query"),
    SCAN("Scan");

    private final String wireName;

    DynamoOperation(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    /** PutItem, UpdateItem, DeleteItem: the requests DynamoDB refuses with TransactionConflictException. */
    public boolean isSingleItemWrite() {
        return this == PUT_ITEM || this == UPDATE_ITEM || this == DELETE_ITEM;
    }

    /** Whether a committed answer means something was applied (what a lost answer can hide). */
    public boolean isWrite() {
        return isSingleItemWrite() || this == TRANSACT_WRITE_ITEMS || this == BATCH_WRITE_ITEM;
    }

    /** The operation the SDK names {@code operationName}; empty for control-plane calls (CreateTable, ...). */
    public static Optional<DynamoOperation> fromWireName(String operationName) {
        return Arrays.stream(values()).filter(o -> o.wireName.equals(operationName)).findFirst();
    }
}
