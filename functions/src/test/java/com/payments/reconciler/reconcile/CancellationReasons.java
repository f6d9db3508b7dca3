package com.payments.reconciler.reconcile;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;

import java.util.Map;

/** DynamoDB's cancellation reasons as the batch-round tables write them: one item's reason per transaction item. */
final class CancellationReasons {

    private CancellationReasons() {
    }

    static CancellationReason none() {
        return code("None");
    }

    static CancellationReason code(String code) {
        return CancellationReason.builder().code(code).build();
    }

    static CancellationReason failed() {
        return code("ConditionalCheckFailed");
    }

    /** A failed condition with the item as it was (ReturnValuesOnConditionCheckFailure ALL_OLD). */
    static CancellationReason failed(Map<String, AttributeValue> item) {
        return CancellationReason.builder().code("ConditionalCheckFailed").item(item).build();
    }
}
