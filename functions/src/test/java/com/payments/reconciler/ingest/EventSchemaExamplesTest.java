package com.payments.reconciler.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import com.payments.reconciler.workflow.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The published schemas of the event contract (docs/schema/events-v1.schema.json and events-v2.schema.json) and the
 * decoder agree on their examples: each valid example passes both, each invalid one is refused by both, the decoder naming the example's
 * field. Where the schema cannot express a rule (the card-number screen), the example says so and only the decoder
 * is held to it.
 */
class EventSchemaExamplesTest {

    static final Path SCHEMAS = Path.of(System.getProperty("reconciler.repositoryRoot", "..")).resolve("docs/schema");
    static final Path SCHEMA = SCHEMAS.resolve("events-v1.schema.json");

    static Path schemaOf(int version) {
        return SCHEMAS.resolve("events-v" + version + ".schema.json");
    }

    static JsonNode document() throws IOException {
        return document(EventDecoder.VERSION_1);
    }

    static JsonNode document(int version) throws IOException {
        return Json.mapper().readTree(Files.readString(schemaOf(version)));
    }

    static Schema schema(JsonNode document) {
        return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(document);
    }

    static Stream<Arguments> valid() throws IOException {
        List<Arguments> out = new ArrayList<>();
        for (int version : EventDecoder.VERSIONS) {
            document(version).path("examples").forEach(e -> out.add(Arguments.of(
                    "v" + version + " " + e.path("type").asText() + " " + e.path("eventId").asText(), version, e)));
        }
        return out.stream();
    }

    static Stream<Arguments> invalid() throws IOException {
        List<Arguments> out = new ArrayList<>();
        for (int version : EventDecoder.VERSIONS) {
            document(version).path("x-invalidExamples").forEach(e -> out.add(Arguments.of("v" + version + " " + e.path("why").asText(), version, e)));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("valid")
    void aValidExamplePassesTheSchemaAndTheDecoder(String name, int version, JsonNode example) throws IOException {
        assertThat(example.path("version").asInt()).as("an example of its own version").isEqualTo(version);
        assertThat(schema(document(version)).validate(example)).as("schema errors").isEmpty();
        assertThat(new EventDecoder().decode(example.toString())).isInstanceOf(EventDecoder.Decoded.Valid.class);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalid")
    void anInvalidExampleIsRefusedByBothNamingItsField(String why, int version, JsonNode example) throws IOException {
        JsonNode event = example.path("event");
        if (example.has("schemaCannotTell")) {
            assertThat(schema(document(version)).validate(event)).as("the schema cannot tell: " + example.path("schemaCannotTell").asText()).isEmpty();
        } else {
            assertThat(schema(document(version)).validate(event)).as("schema errors").isNotEmpty();
        }
        EventDecoder.Decoded decoded = new EventDecoder().decode(event.toString());
        assertThat(decoded).isInstanceOf(EventDecoder.Decoded.Refused.class);
        Refusal refusal = ((EventDecoder.Decoded.Refused) decoded).refusal();
        assertThat(refusal.field()).isEqualTo(example.path("field").asText());
        assertThat(refusal.reason().name()).isEqualTo(example.path("reason").asText(Refusal.Reason.MALFORMED.name()));
    }

    @ParameterizedTest(name = "version {0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {EventDecoder.VERSION_1, EventDecoder.VERSION_2})
    void theSchemaCoversEveryTypeTheDecoderAcceptsWithExactlyItsFields(int version) throws IOException {
        JsonNode defs = document(version).path("$defs");
        List<String> schemaTypes = new ArrayList<>();
        document(version).path("oneOf").forEach(ref -> schemaTypes.add(ref.path("$ref").asText().replace("#/$defs/", "")));
        assertThat(schemaTypes).as("the types of version " + version).containsExactlyInAnyOrderElementsOf(EventDecoder.fields(version).keySet());
        for (var type : EventDecoder.fields(version).entrySet()) {
            List<String> schemaFields = new ArrayList<>();
            defs.path(type.getKey()).path("properties").fieldNames().forEachRemaining(schemaFields::add);
            assertThat(schemaFields).as(type.getKey()).containsExactlyInAnyOrderElementsOf(type.getValue());
            List<String> required = new ArrayList<>();
            defs.path(type.getKey()).path("required").forEach(r -> required.add(r.asText()));
            assertThat(required).as(type.getKey() + " required").containsExactlyInAnyOrderElementsOf(EventDecoder.requiredFields(version).get(type.getKey()));
            assertThat(defs.path(type.getKey()).path("additionalProperties").asBoolean(true)).as(type.getKey() + " closed").isFalse();
        }
        List<String> valid = new ArrayList<>();
        document(version).path("examples").forEach(e -> valid.add(e.path("type").asText()));
        assertThat(valid).as("a valid example of every type").containsAll(EventDecoder.fields(version).keySet());
    }

    /** The known-bad version 2 schema: an increment's time made optional. The agreement check must notice. */
    @Test
    void aSchemaThatDropsARequiredFieldDisagreesWithTheDecoder() throws IOException {
        JsonNode broken = document(EventDecoder.VERSION_2).deepCopy();
        com.fasterxml.jackson.databind.node.ArrayNode required =
                (com.fasterxml.jackson.databind.node.ArrayNode) broken.path("$defs").path("authorisation.incremented").path("required");
        for (int i = 0; i < required.size(); i++) {
            if ("incrementedAt".equals(required.get(i).asText())) {
                required.remove(i);
            }
        }
        JsonNode noTime = null;
        for (JsonNode e : document(EventDecoder.VERSION_2).path("x-invalidExamples")) {
            if ("incrementedAt".equals(e.path("field").asText())) {
                noTime = e.path("event");
            }
        }
        assertThat(noTime).isNotNull();
        assertThat(schema(broken).validate(noTime)).as("the broken schema accepts it").isEmpty();
        assertThat(new EventDecoder().decode(noTime.toString())).as("the decoder does not").isInstanceOf(EventDecoder.Decoded.Refused.class);
    }

    /** The known-bad schema: one type opened to unknown fields. The agreement check must notice. */
    @Test
    void aSchemaThatLetsAnUnknownFieldThroughDisagreesWithTheDecoder() throws IOException {
        JsonNode broken = document().deepCopy();
        ((ObjectNode) broken.path("$defs").path("authorisation.created")).put("additionalProperties", true);
        JsonNode unknownField = null;
        for (JsonNode e : document().path("x-invalidExamples")) {
            if ("merchantName".equals(e.path("field").asText())) {
                unknownField = e.path("event");
            }
        }
        assertThat(unknownField).isNotNull();
        assertThat(schema(broken).validate(unknownField)).as("the broken schema accepts it").isEmpty();
        assertThat(new EventDecoder().decode(unknownField.toString())).as("the decoder does not").isInstanceOf(EventDecoder.Decoded.Refused.class);
    }
}
