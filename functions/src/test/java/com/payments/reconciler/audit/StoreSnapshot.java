package com.payments.reconciler.audit;

import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.store.TableSchema;
import com.payments.reconciler.store.Tables;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Every item of every table, read with consistent scans: what the audit checks, not the workers' own reports. */
public record StoreSnapshot(Map<TableSchema, List<Map<String, AttributeValue>>> items) {

    public static StoreSnapshot scan(DynamoDbClient dynamo, TableNames names) {
        Map<TableSchema, List<Map<String, AttributeValue>>> items = new LinkedHashMap<>();
        for (TableSchema schema : Tables.ALL) {
            List<Map<String, AttributeValue>> rows = new ArrayList<>();
            dynamo.scanPaginator(b -> b.tableName(names.nameOf(schema)).consistentRead(true))
                    .items().forEach(rows::add);
            items.put(schema, rows);
        }
        return new StoreSnapshot(items);
    }

    public List<Map<String, AttributeValue>> of(TableSchema schema) {
        return items.getOrDefault(schema, List.of());
    }
}
