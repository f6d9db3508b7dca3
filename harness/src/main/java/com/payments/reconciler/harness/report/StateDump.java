package com.payments.reconciler.harness.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.audit.ProviderEffect;
import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.store.TableSchema;
import com.payments.reconciler.workflow.Json;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * {@code --dump-state DIR} (docs/design.md §12): {@code tables.jsonl}, one line per item as plain JSON, and
 * {@code provider-effects.jsonl}, one line per operation id, so anyone can check the invariants
 * without trusting the job's own verdict.
 */
public final class StateDump {

    public static final String TABLES = "tables.jsonl";
    public static final String PROVIDER_EFFECTS = "provider-effects.jsonl";
    private static final ObjectMapper JSON = Json.mapper();

    private StateDump() {
    }

    public static void write(Path dir, StoreSnapshot snapshot, List<ProviderEffect> effects) {
        try {
            Files.createDirectories(dir);
            try (BufferedWriter out = Files.newBufferedWriter(dir.resolve(TABLES), StandardCharsets.UTF_8)) {
                for (Map.Entry<TableSchema, List<Map<String, AttributeValue>>> table : snapshot.items().entrySet()) {
                    for (Map<String, AttributeValue> item : table.getValue()) {
                        ObjectNode line = JSON.createObjectNode();
                        line.put("table", table.getKey().logicalName());
                        line.set("item", plain(item));
                        out.write(JSON.writeValueAsString(line));
                        out.newLine();
                    }
                }
            }
            try (BufferedWriter out = Files.newBufferedWriter(dir.resolve(PROVIDER_EFFECTS), StandardCharsets.UTF_8)) {
                for (ProviderEffect effect : effects) {
                    out.write(JSON.writeValueAsString(effect));
                    out.newLine();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the state dump to " + dir, e);
        }
    }

    /** DynamoDB's typed attributes as plain JSON (numbers as numbers, sets as arrays). */
    public static ObjectNode plain(Map<String, AttributeValue> item) {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        new java.util.TreeMap<>(item).forEach((name, value) -> node.set(name, plain(value)));
        return node;
    }

    private static JsonNode plain(AttributeValue value) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        if (value.s() != null) {
            return f.textNode(value.s());
        }
        if (value.n() != null) {
            return f.numberNode(new BigDecimal(value.n()));
        }
        if (value.bool() != null) {
            return f.booleanNode(value.bool());
        }
        if (Boolean.TRUE.equals(value.nul())) {
            return f.nullNode();
        }
        if (value.hasM()) {
            return plain(value.m());
        }
        ArrayNode array = f.arrayNode();
        if (value.hasL()) {
            value.l().forEach(v -> array.add(plain(v)));
        } else if (value.hasSs()) {
            value.ss().forEach(array::add);
        } else if (value.hasNs()) {
            value.ns().forEach(n -> array.add(new BigDecimal(n)));
        } else if (value.b() != null) {
            return f.textNode(java.util.Base64.getEncoder().encodeToString(value.b().asByteArray()));
        }
        return array;
    }
}
