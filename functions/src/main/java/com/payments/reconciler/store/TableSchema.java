package com.payments.reconciler.store;

import java.util.List;
import java.util.Optional;

/**
 * One table's key schema, indexes and TTL: the single definition that the functions, the CDK
 * stack and the local engines all build their tables from.
 *
 * @param logicalName the table's name without environment prefix, e.g. {@code Leases}
 * @param partitionKey the hash key (always a string attribute here)
 * @param indexes global secondary indexes (all project every attribute)
 * @param ttlAttribute the epoch-seconds attribute DynamoDB expires items on, if any
 * @param businessRecord true for tables whose loss would lose money-relevant state (retained, protected)
 */
public record TableSchema(String logicalName, KeyAttribute partitionKey, List<Index> indexes,
                          Optional<String> ttlAttribute, boolean businessRecord) {

    public TableSchema {
        indexes = List.copyOf(indexes);
    }

    public enum AttributeType { S, N }

    public record KeyAttribute(String name, AttributeType type) {
    }

    /** A sparse GSI: only items that carry the partition key attribute appear in it. */
    public record Index(String name, KeyAttribute partitionKey, KeyAttribute sortKey) {
    }

    public Index index(String name) {
        return indexes.stream().filter(i -> i.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(logicalName + " has no index " + name));
    }
}
