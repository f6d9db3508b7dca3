package com.payments.reconciler.harness.aws;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which IAM action on which resource each API operation is authorised as: the table of the operations the
 * functions call, each row with its source. An operation not in the table is {@link Unmapped}: the proof
 * refuses to call it allowed.
 *
 * <p>Sources: the Service Authorization Reference's "Actions defined by ..." tables, whose Resource types
 * column names the resource each action is authorised against:
 * <ul>
 *   <li>{@value #SAR_DYNAMODB}: GetItem/PutItem/UpdateItem/DeleteItem on table; Query and Scan on table or
 *       index; BatchGetItem and BatchWriteItem on table (each table named in RequestItems).</li>
 *   <li>{@value #DDB_TRANSACTIONS}: a transaction's Put, Update, Delete and Get items are authorised as
 *       PutItem, UpdateItem, DeleteItem and GetItem, a ConditionCheck as ConditionCheckItem, each on its
 *       own item's table.</li>
 *   <li>{@value #SAR_STATES}: StartExecution and ListExecutions on stateMachine; DescribeExecution,
 *       GetExecutionHistory and StopExecution on execution.</li>
 *   <li>{@value #SAR_SECRETS}: GetSecretValue and DescribeSecret on Secret (the full ARN, also when the
 *       request names the secret by name).</li>
 * </ul>
 *
 * <p>Each DynamoDB item action also carries the partition key values it touches ({@link LeadingKeys}, the request context's
 * {@code dynamodb:LeadingKeys}; DynamoDB Developer Guide, "Using IAM policy conditions for fine-grained access control"):
 * GetItem, UpdateItem, DeleteItem the {@code Key}'s, PutItem the {@code Item}'s; a table Query the equality on the partition
 * key in its key condition; BatchGetItem and BatchWriteItem every key they name on each table (one question per table, a
 * multivalued key); a transaction's items each their own (one question per item). Scan and DescribeTable name none.
 * The attribute is the table's schema's ({@link PartitionKeyReader}); what it cannot read is undetermined.
 */
public final class ServiceAuthorization {

    static final String SAR_DYNAMODB = "https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazondynamodb.html";
    static final String DDB_TRANSACTIONS = "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html";
    static final String SAR_STATES = "https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsstepfunctions.html";
    static final String SAR_SECRETS = "https://docs.aws.amazon.com/service-authorization/latest/reference/list_awssecretsmanager.html";
    static final String SAR_SQS = "https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsqs.html";

    /** How an operation's resources are found in its request. */
    public enum Rule {
        /** {@code TableName}: the table. */
        TABLE,
        /** {@code TableName}: the table, with the partition key of {@code Key} ({@code Item} for PutItem). */
        ITEM,
        /** {@code TableName}, and {@code IndexName} when present: the index ARN {@code table/T/index/I}. */
        TABLE_OR_INDEX,
        /** Each table named in {@code RequestItems}, the operation's own action on each. */
        REQUEST_ITEMS,
        /** Each of {@code TransactItems}: Put/Update/Delete/ConditionCheck as PutItem/UpdateItem/DeleteItem/ConditionCheckItem on its table. */
        TRANSACT_WRITE,
        /** Each of {@code TransactItems}: Get as GetItem on its table. */
        TRANSACT_GET,
        /** {@code stateMachineArn}. */
        STATE_MACHINE,
        /** {@code executionArn}. */
        EXECUTION,
        /** {@code SecretId}, a name or an ARN, as the secret's ARN. */
        SECRET,
        /** {@code QueueUrl} ({@code https://host/ACCOUNT/NAME}) as the queue's ARN in the request's region. */
        QUEUE
    }

    /** One row: the operation ({@code service:Operation}, as the wire names it), how its resources are found, the source. */
    public record Row(String operation, Rule rule, String source) {
    }

    public static final Map<String, Row> TABLE = table(
            new Row("dynamodb:GetItem", Rule.ITEM, SAR_DYNAMODB),
            new Row("dynamodb:PutItem", Rule.ITEM, SAR_DYNAMODB),
            new Row("dynamodb:UpdateItem", Rule.ITEM, SAR_DYNAMODB),
            new Row("dynamodb:DeleteItem", Rule.ITEM, SAR_DYNAMODB),
            new Row("dynamodb:DescribeTable", Rule.TABLE, SAR_DYNAMODB),
            new Row("dynamodb:Query", Rule.TABLE_OR_INDEX, SAR_DYNAMODB),
            new Row("dynamodb:Scan", Rule.TABLE_OR_INDEX, SAR_DYNAMODB),
            new Row("dynamodb:BatchGetItem", Rule.REQUEST_ITEMS, SAR_DYNAMODB),
            new Row("dynamodb:BatchWriteItem", Rule.REQUEST_ITEMS, SAR_DYNAMODB),
            new Row("dynamodb:TransactWriteItems", Rule.TRANSACT_WRITE, DDB_TRANSACTIONS),
            new Row("dynamodb:TransactGetItems", Rule.TRANSACT_GET, DDB_TRANSACTIONS),
            new Row("states:StartExecution", Rule.STATE_MACHINE, SAR_STATES),
            new Row("states:ListExecutions", Rule.STATE_MACHINE, SAR_STATES),
            new Row("states:DescribeStateMachine", Rule.STATE_MACHINE, SAR_STATES),
            new Row("states:DescribeExecution", Rule.EXECUTION, SAR_STATES),
            new Row("states:GetExecutionHistory", Rule.EXECUTION, SAR_STATES),
            new Row("states:StopExecution", Rule.EXECUTION, SAR_STATES),
            new Row("secretsmanager:GetSecretValue", Rule.SECRET, SAR_SECRETS),
            new Row("secretsmanager:DescribeSecret", Rule.SECRET, SAR_SECRETS),
            new Row("sqs:SendMessage", Rule.QUEUE, SAR_SQS),
            // ReconcilePage and DeliverCommands count the ingestion dead-letter queue's messages (held for feed).
            new Row("sqs:GetQueueAttributes", Rule.QUEUE, SAR_SQS));

    private static final Map<String, String> TRANSACT_WRITE_ACTIONS = Map.of(
            "Put", "dynamodb:PutItem", "Update", "dynamodb:UpdateItem", "Delete", "dynamodb:DeleteItem",
            "ConditionCheck", "dynamodb:ConditionCheckItem");

    /** An operation the table does not know, or a request the rule cannot read: never counted as allowed. */
    public static final class Unmapped extends RuntimeException {
        public Unmapped(String message) {
            super(message);
        }
    }

    private final ArnScope scope;

    public ServiceAuthorization(ArnScope scope) {
        this.scope = scope;
    }

    private static Map<String, Row> table(Row... rows) {
        Map<String, Row> t = new LinkedHashMap<>();
        for (Row r : rows) {
            t.put(r.operation(), r);
        }
        return java.util.Collections.unmodifiableMap(t);
    }

    /**
     * @param operation {@code service:Operation}, e.g. {@code dynamodb:TransactWriteItems}
     * @param region the request's region (its credential scope)
     * @param body the request's JSON body
     */
    public List<AuthorizedAction> authorize(String operation, String region, JsonNode body) {
        Row row = TABLE.get(operation);
        if (row == null) {
            throw new Unmapped(operation + " is not in ServiceAuthorization.TABLE: add its row (with its source) before a function calls it");
        }
        List<AuthorizedAction> out = new ArrayList<>();
        switch (row.rule()) {
            case TABLE -> out.add(new AuthorizedAction(operation, tableArn(region, required(body, "TableName", operation))));
            case ITEM -> {
                String table = required(body, "TableName", operation);
                JsonNode key = body.path(operation.equals("dynamodb:PutItem") ? "Item" : "Key");
                out.add(new AuthorizedAction(operation, tableArn(region, table), leadingKey(table, key)));
            }
            case TABLE_OR_INDEX -> {
                String tableName = required(body, "TableName", operation);
                String table = tableArn(region, tableName);
                String index = body.path("IndexName").asText("");
                // A Scan names no partition key (the key is absent on AWS too); a Query names one in its key condition.
                LeadingKeys keys = operation.equals("dynamodb:Query")
                        ? (index.isEmpty() ? PartitionKeyReader.ofQuery(tableName, body) : LeadingKeys.UNDETERMINED)
                        : LeadingKeys.NONE;
                out.add(new AuthorizedAction(operation, index.isEmpty() ? table : table + "/index/" + index, keys));
            }
            case REQUEST_ITEMS -> {
                JsonNode items = body.path("RequestItems");
                if (!items.isObject() || items.isEmpty()) {
                    throw new Unmapped(operation + " without RequestItems");
                }
                // One question per table, with every partition key the request names there (a multivalued key).
                items.fields().forEachRemaining(t -> out.add(new AuthorizedAction(operation, tableArn(region, t.getKey()),
                        PartitionKeyReader.ofBatch(operation, t.getKey(), t.getValue()))));
            }
            case TRANSACT_WRITE -> transactItems(body, operation).forEach(item -> {
                if (item.size() != 1) {
                    throw new Unmapped(operation + ": a TransactItem must hold exactly one of " + TRANSACT_WRITE_ACTIONS.keySet() + ": " + item);
                }
                String kind = item.fieldNames().next();
                String action = TRANSACT_WRITE_ACTIONS.get(kind);
                if (action == null) {
                    throw new Unmapped(operation + ": unknown TransactItem " + kind);
                }
                String table = required(item.get(kind), "TableName", operation);
                // Each item is its own question, with its own key: a Put names it in Item, the others in Key.
                JsonNode key = item.get(kind).path(kind.equals("Put") ? "Item" : "Key");
                out.add(new AuthorizedAction(action, tableArn(region, table), leadingKey(table, key)));
            });
            case TRANSACT_GET -> transactItems(body, operation).forEach(item -> {
                String table = required(item.path("Get"), "TableName", operation);
                out.add(new AuthorizedAction("dynamodb:GetItem", tableArn(region, table), leadingKey(table, item.path("Get").path("Key"))));
            });
            case STATE_MACHINE -> out.add(new AuthorizedAction(operation, required(body, "stateMachineArn", operation)));
            case EXECUTION -> out.add(new AuthorizedAction(operation, required(body, "executionArn", operation)));
            case SECRET -> {
                String id = required(body, "SecretId", operation);
                String arn = id.startsWith("arn:") ? id : scope.secretArn(id)
                        .orElseThrow(() -> new Unmapped(operation + ": the secret named " + id + " is not in the ARN scope"));
                out.add(new AuthorizedAction(operation, arn));
            }
            case QUEUE -> {
                String[] path = java.net.URI.create(required(body, "QueueUrl", operation)).getPath().split("/");
                if (path.length != 3) {
                    throw new Unmapped(operation + ": QueueUrl is not https://host/ACCOUNT/NAME");
                }
                out.add(new AuthorizedAction(operation, "arn:" + scope.partition() + ":sqs:" + region + ":" + path[1] + ":" + path[2]));
            }
            default -> throw new IllegalStateException(row.rule().toString());
        }
        // A transaction touching one item of one table with one action many times is one authorisation question.
        return out.stream().distinct().toList();
    }

    private static LeadingKeys leadingKey(String tableName, JsonNode keyOrItem) {
        return PartitionKeyReader.ofItem(tableName, keyOrItem).map(v -> LeadingKeys.of(List.of(v))).orElse(LeadingKeys.UNDETERMINED);
    }

    private String tableArn(String region, String tableName) {
        return tableName.startsWith("arn:") ? tableName
                : "arn:" + scope.partition() + ":dynamodb:" + region + ":" + scope.accountId() + ":table/" + tableName;
    }

    private static List<JsonNode> transactItems(JsonNode body, String operation) {
        JsonNode items = body.path("TransactItems");
        if (!items.isArray() || items.isEmpty()) {
            throw new Unmapped(operation + " without TransactItems");
        }
        List<JsonNode> out = new ArrayList<>();
        items.forEach(out::add);
        return out;
    }

    private static String required(JsonNode body, String field, String operation) {
        String value = body.path(field).asText("");
        if (value.isEmpty()) {
            throw new Unmapped(operation + ": the request has no " + field);
        }
        return value;
    }

    /** The source of the row deciding {@code operation}, if it has one. */
    public static Optional<String> sourceOf(String operation) {
        return Optional.ofNullable(TABLE.get(operation)).map(Row::source);
    }
}
