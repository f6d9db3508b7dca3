package com.payments.reconciler.testing;

import com.payments.reconciler.local.faults.UnfencedControl;
import com.payments.reconciler.store.TableNames;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** Whether a test worker's transactions keep the lease check; only the negative controls take it off, on the wire. */
public enum Fence {
    LEASE_CHECKED,
    UNFENCED_NEGATIVE_CONTROL;

    /** The client a worker's fenced writer sends through. */
    public DynamoDbClient writerClient(DynamoDbClient dynamo, TableNames tables) {
        return this == LEASE_CHECKED ? dynamo : new UnfencedControl(dynamo, tables.leases());
    }
}
