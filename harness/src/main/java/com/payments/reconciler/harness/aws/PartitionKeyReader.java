package com.payments.reconciler.harness.aws;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.store.TableSchema;
import com.payments.reconciler.store.Tables;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the partition key values a DynamoDB request names, for {@code dynamodb:LeadingKeys}. The partition key attribute
 * of a table comes from the project's one schema definition ({@link Tables#ALL}), the table found by its physical name's
 * suffix (the stack and the local engines name a table prefix + logical name). Whatever cannot be read (a table no
 * schema's name ends, a key of another type than the schema's, an expression this reader does not parse) is
 * {@link LeadingKeys#UNDETERMINED}, never a guess: a condition on it then never allows.
 */
final class PartitionKeyReader {

    /** One clause of a key condition, {@code name = :value} in either order (DynamoDB's partition key test is an equality). */
    private static final Pattern EQUALITY = Pattern.compile("^\\s*(#?[A-Za-z0-9_.\\-]+|:[A-Za-z0-9_]+)\\s*=\\s*(#?[A-Za-z0-9_.\\-]+|:[A-Za-z0-9_]+)\\s*$");
    private static final Pattern AND = Pattern.compile("(?i)\\s+AND\\s+");

    private PartitionKeyReader() {
    }

    /** The schema whose logical name ends {@code tableName} (an ARN's {@code table/NAME} read as NAME), if exactly one does. */
    static Optional<TableSchema> schemaOf(String tableName) {
        String name = tableName.contains(":table/") ? tableName.substring(tableName.indexOf(":table/") + ":table/".length()) : tableName;
        List<TableSchema> matches = Tables.ALL.stream().filter(t -> name.endsWith(t.logicalName())).toList();
        return matches.size() == 1 ? Optional.of(matches.getFirst()) : Optional.empty();
    }

    /** The partition key value of a {@code Key} or {@code Item} map, as a string, when its table and type are known. */
    static Optional<String> ofItem(String tableName, JsonNode keyOrItem) {
        return schemaOf(tableName).flatMap(schema -> scalar(schema.partitionKey(), keyOrItem.path(schema.partitionKey().name())));
    }

    /** BatchGetItem's {@code {Keys: [...]}} or BatchWriteItem's {@code [{PutRequest: {Item}} | {DeleteRequest: {Key}}]} of one table. */
    static LeadingKeys ofBatch(String operation, String tableName, JsonNode requests) {
        List<JsonNode> keys = new ArrayList<>();
        if (operation.equals("dynamodb:BatchGetItem")) {
            requests.path("Keys").forEach(keys::add);
        } else {
            for (JsonNode r : requests) {
                keys.add(r.has("PutRequest") ? r.path("PutRequest").path("Item") : r.path("DeleteRequest").path("Key"));
            }
        }
        List<String> values = new ArrayList<>();
        for (JsonNode k : keys) {
            Optional<String> v = ofItem(tableName, k);
            if (v.isEmpty()) {
                return LeadingKeys.UNDETERMINED;
            }
            values.add(v.get());
        }
        return values.isEmpty() ? LeadingKeys.UNDETERMINED : LeadingKeys.of(values);
    }

    /**
     * A table Query's partition key value: the one {@code pk = :v} clause of {@code KeyConditionExpression}, names and
     * values resolved through {@code ExpressionAttributeNames}/{@code Values}. The legacy {@code KeyConditions} and
     * anything else is undetermined.
     */
    static LeadingKeys ofQuery(String tableName, JsonNode body) {
        Optional<TableSchema> schema = schemaOf(tableName);
        String expression = body.path("KeyConditionExpression").asText("");
        if (schema.isEmpty() || expression.isEmpty()) {
            return LeadingKeys.UNDETERMINED;
        }
        TableSchema.KeyAttribute pk = schema.get().partitionKey();
        List<String> found = new ArrayList<>();
        for (String clause : AND.split(expression.strip())) {
            Matcher m = EQUALITY.matcher(stripParentheses(clause));
            if (!m.matches()) {
                continue;
            }
            String left = m.group(1);
            String right = m.group(2);
            String name = left.startsWith(":") ? right : left;
            String value = left.startsWith(":") ? left : right;
            if (!value.startsWith(":") || name.startsWith(":")) {
                continue;
            }
            String attribute = name.startsWith("#") ? body.path("ExpressionAttributeNames").path(name).asText("") : name;
            if (attribute.equals(pk.name())) {
                Optional<String> v = scalar(pk, body.path("ExpressionAttributeValues").path(value));
                if (v.isEmpty()) {
                    return LeadingKeys.UNDETERMINED;
                }
                found.add(v.get());
            }
        }
        return found.size() == 1 ? LeadingKeys.of(found) : LeadingKeys.UNDETERMINED;
    }

    private static String stripParentheses(String clause) {
        String c = clause.strip();
        while (c.startsWith("(") && c.endsWith(")")) {
            c = c.substring(1, c.length() - 1).strip();
        }
        return c;
    }

    /** {@code {"S": "x"}} or {@code {"N": "1"}} of the schema's type, exactly one field. */
    private static Optional<String> scalar(TableSchema.KeyAttribute key, JsonNode attributeValue) {
        String type = key.type().name();
        if (!attributeValue.isObject() || attributeValue.size() != 1 || !attributeValue.path(type).isTextual()) {
            return Optional.empty();
        }
        return Optional.of(attributeValue.path(type).asText());
    }
}
