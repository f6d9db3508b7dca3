package com.payments.reconciler.cdk;

import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.store.TableSchema;
import com.payments.reconciler.store.Tables;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.services.dynamodb.Attribute;
import software.amazon.awscdk.services.dynamodb.AttributeType;
import software.amazon.awscdk.services.dynamodb.BillingMode;
import software.amazon.awscdk.services.dynamodb.GlobalSecondaryIndexProps;
import software.amazon.awscdk.services.dynamodb.ITable;
import software.amazon.awscdk.services.dynamodb.PointInTimeRecoverySpecification;
import software.amazon.awscdk.services.dynamodb.ProjectionType;
import software.amazon.awscdk.services.dynamodb.Table;
import software.amazon.awscdk.services.dynamodb.TableAttributes;
import software.amazon.awscdk.services.dynamodb.TableEncryption;
import software.amazon.awscdk.services.kms.IKey;
import software.constructs.Construct;

/**
 * The five tables, each built from its one {@link TableSchema} in {@link Tables#ALL}: on-demand, point-in-time
 * recovery, encrypted under the data key. Business records ({@link TableSchema#businessRecord()}) are
 * retained on stack deletion and protected against table deletion; the idempotency table is expendable
 * (the outbox is the business record of delivery) and expires its items on the schema's TTL attribute.
 *
 * <p>With {@link ExistingTables} ("bring your own tables"), Authorisations and Settlements are the platform's: imported
 * by ARN, granted on, never created (nor retained, protected or deleted) by this stack; the other three are ours.
 */
public final class ReconcilerTables extends Construct {

    private final TableNames names;
    private final Map<TableSchema, ITable> tables = new LinkedHashMap<>();
    private final List<String> keyArns = new ArrayList<>();

    public ReconcilerTables(Construct scope, String id, StackConfig config, IKey key) {
        super(scope, id);
        Optional<ExistingTables> existing = config.existingTables();
        TableNames own = TableNames.withPrefix(config.namePrefix());
        this.names = existing.map(e -> new TableNames(own.leases(), e.authorisationsTableName(), e.settlementsTableName(),
                own.releaseCommands(), own.idempotency())).orElse(own);
        keyArns.add(key.getKeyArn());
        existing.flatMap(ExistingTables::keyArn).ifPresent(keyArns::add);
        for (TableSchema schema : Tables.ALL) {
            Optional<String> importedArn = existing.flatMap(e -> schema == Tables.Authorisations.SCHEMA ? Optional.of(e.authorisationsTableArn())
                    : schema == Tables.Settlements.SCHEMA ? Optional.of(e.settlementsTableArn()) : Optional.empty());
            tables.put(schema, importedArn.map(arn -> imported(schema, arn)).orElseGet(() -> table(schema, names.nameOf(schema), key, config.tableDeletionProtection())));
        }
    }

    /** The platform's table: referenced by ARN (with the indexes the functions query, so grants can name them). */
    private ITable imported(TableSchema schema, String arn) {
        return Table.fromTableAttributes(this, schema.logicalName(), TableAttributes.builder()
                .tableArn(arn)
                .globalIndexes(schema.indexes().stream().map(TableSchema.Index::name).toList())
                .build());
    }

    private Table table(TableSchema schema, String tableName, IKey key, boolean deletionProtection) {
        Table.Builder builder = Table.Builder.create(this, schema.logicalName())
                .tableName(tableName)
                .partitionKey(attribute(schema.partitionKey()))
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .pointInTimeRecoverySpecification(PointInTimeRecoverySpecification.builder().pointInTimeRecoveryEnabled(true).build())
                .encryption(TableEncryption.CUSTOMER_MANAGED)
                .encryptionKey(key)
                .removalPolicy(schema.businessRecord() ? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE : RemovalPolicy.DESTROY)
                .deletionProtection(schema.businessRecord() && deletionProtection);
        schema.ttlAttribute().ifPresent(builder::timeToLiveAttribute);
        Table table = builder.build();
        schema.indexes().forEach(index -> table.addGlobalSecondaryIndex(index(index)));
        return table;
    }

    private static GlobalSecondaryIndexProps index(TableSchema.Index index) {
        // ALL: the readers decide from the index item alone (the transaction re-checks the truth).
        return GlobalSecondaryIndexProps.builder()
                .indexName(index.name())
                .partitionKey(attribute(index.partitionKey()))
                .sortKey(attribute(index.sortKey()))
                .projectionType(ProjectionType.ALL)
                .build();
    }

    private static Attribute attribute(TableSchema.KeyAttribute key) {
        return Attribute.builder().name(key.name())
                .type(switch (key.type()) {
                    case S -> AttributeType.STRING;
                    case N -> AttributeType.NUMBER;
                })
                .build();
    }

    public TableNames names() {
        return names;
    }

    public ITable table(TableSchema schema) {
        ITable table = tables.get(schema);
        if (table == null) {
            throw new IllegalArgumentException("no table for schema " + schema.logicalName());
        }
        return table;
    }

    public String arn(TableSchema schema) {
        return table(schema).getTableArn();
    }

    /** The ARN of one named index: IAM statements name it exactly, never {@code index/*}. */
    public String indexArn(TableSchema schema, String indexName) {
        return arn(schema) + "/index/" + schema.index(indexName).name();
    }

    /** Table name environment variables, as {@link TableNames#fromEnvironment} reads them. */
    public Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        for (TableSchema schema : Tables.ALL) {
            env.put(TableNames.ENV_VARS.get(schema), names.nameOf(schema));
        }
        return env;
    }

    /** Whether the stack created this table (false for a table brought with {@link ExistingTables}). */
    public boolean created(TableSchema schema) {
        return table(schema) instanceof Table;
    }

    /** The KMS keys the tables are encrypted with: the stack's data key, and the brought tables' key if they have one. */
    public List<String> keyArns() {
        return List.copyOf(keyArns);
    }
}
