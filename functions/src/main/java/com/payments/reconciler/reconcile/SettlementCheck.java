package com.payments.reconciler.reconcile;

import com.payments.reconciler.store.StoreErrors;
import com.payments.reconciler.store.Tables.Settlements;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A read-only settlement lookup for dry runs, which decide without writing. A real run never relies on
 * it: the transaction's own ConditionCheck on Settlements is what enforces I3.
 */
public final class SettlementCheck {

    private final DynamoDbClient dynamo;
    private final String table;

    public SettlementCheck(DynamoDbClient dynamo, String table) {
        this.dynamo = dynamo;
        this.table = table;
    }

    public boolean isSettled(String authorisationId) {
        return StoreErrors.call("read settlement " + authorisationId, () -> dynamo.getItem(b -> b
                .tableName(table)
                .key(Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS(authorisationId)))
                .consistentRead(true))).hasItem();
    }
}
