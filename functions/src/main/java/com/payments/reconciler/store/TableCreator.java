package com.payments.reconciler.store;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Creates the tables from {@link Tables} on an engine that has none (the local engines; on AWS the CDK stack does). */
public final class TableCreator {

    private final DynamoDbClient dynamo;

    public TableCreator(DynamoDbClient dynamo) {
        this.dynamo = dynamo;
    }

    public void createAll(TableNames names) {
        for (TableSchema schema : Tables.ALL) {
            create(schema, names.nameOf(schema));
        }
    }

    public void create(TableSchema schema, String tableName) {
        Map<String, TableSchema.AttributeType> attributes = new LinkedHashMap<>();
        attributes.put(schema.partitionKey().name(), schema.partitionKey().type());
        List<GlobalSecondaryIndex> indexes = new ArrayList<>();
        for (TableSchema.Index index : schema.indexes()) {
            attributes.put(index.partitionKey().name(), index.partitionKey().type());
            attributes.put(index.sortKey().name(), index.sortKey().type());
            indexes.add(GlobalSecondaryIndex.builder()
                    .indexName(index.name())
                    .keySchema(KeySchemaElement.builder().attributeName(index.partitionKey().name()).keyType(KeyType.HASH).build(),
                            KeySchemaElement.builder().attributeName(index.sortKey().name()).keyType(KeyType.RANGE).build())
                    .projection(Projection.builder().projectionType(ProjectionType.ALL).build())
                    .build());
        }
        CreateTableRequest.Builder request = CreateTableRequest.builder()
                .tableName(tableName)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .keySchema(KeySchemaElement.builder().attributeName(schema.partitionKey().name()).keyType(KeyType.HASH).build())
                .attributeDefinitions(attributes.entrySet().stream()
                        .map(e -> AttributeDefinition.builder().attributeName(e.getKey())
                                .attributeType(ScalarAttributeType.fromValue(e.getValue().name())).build())
                        .toList());
        if (!indexes.isEmpty()) {
            request.globalSecondaryIndexes(indexes);
        }
        try {
            dynamo.createTable(request.build());
        } catch (ResourceInUseException exists) {
            return;
        }
        schema.ttlAttribute().ifPresent(ttl -> dynamo.updateTimeToLive(b -> b.tableName(tableName)
                .timeToLiveSpecification(s -> s.attributeName(ttl).enabled(true))));
    }
}
