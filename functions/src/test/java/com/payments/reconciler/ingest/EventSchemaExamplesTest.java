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
 * The published schema of the event contract (docs/schema/events-v1.schema.json) and the decoder agree on its
 * examples: each valid example passes both, each invalid one is refused by both, the decoder naming the example's
 * field. Where the schema cannot express a rule (the card-number screen), the example says so and only the decoder
 * is held to it.
 */
class EventSchemaExamplesTest {

    static final Path SCHEMA = Path.of(System.getProperty("reconciler.repositoryRoot", "..")).resolve("docs/schema/events-v1.schema.json");

    static JsonNode document() throws IOException {
        return Json.mapper().readTree(Files.readString(SCHEMA));
    }

    static Schema schema(JsonNode document) {
        return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(document);
    }

    static Stream<Arguments> valid() throws IOException {
        List<Arguments> out = new ArrayList<>();
        document().path("examples").forEach(e -> out.add(Arguments.of(e.path("type").asText() + " " + e.path("eventId").asText(), e)));
        return out.stream();
    }

    static Stream<Arguments> invalid() throws IOException {
        List<Arguments> out = new ArrayList<>();
        document().path("x-invalidExamples").forEach(e -> out.add(Arguments.of(e.path("why").asText(), e)));
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("valid")
    void aValidExamplePassesTheSchemaAndTheDecoder(String name, JsonNode example) throws IOException {
        assertThat(schema(document()).validate(example)).as("schema errors").isEmpty();
        assertThat(new EventDecoder().decode(example.toString())).isInstanceOf(EventDecoder.Decoded.Valid.class);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalid")
    void anInvalidExampleIsRefusedByBothNamingItsField(String why, JsonNode example) throws IOException {
        JsonNode event = example.path("event");
        if (example.has("schemaCannotTell")) {
            assertThat(schema(document()).validate(event)).as("the schema cannot tell: " + example.path("schemaCannotTell").asText()).isEmpty();
        } else {
            assertThat(schema(document()).validate(event)).as("schema errors").isNotEmpty();
        }
        EventDecoder.Decoded decoded = new EventDecoder().decode(event.toString());
        assertThat(decoded).isInstanceOf(EventDecoder.Decoded.Refused.class);
        Refusal refusal = ((EventDecoder.Decoded.Refused) decoded).refusal();
        assertThat(refusal.field()).isEqualTo(example.path("field").asText());
        assertThat(refusal.reason().name()).isEqualTo(example.path("reason").asText(Refusal.Reason.MALFORMED.name()));
    }

    @Test
    void theSchemaCoversEveryTypeTheDecoderAcceptsWithExactlyItsFields() throws IOException {
        JsonNode defs = document().path("$defs");
        for (var type : EventDecoder.FIELDS.entrySet()) {
            List<String> schemaFields = new ArrayList<>();
            defs.path(type.getKey()).path("properties").fieldNames().forEachRemaining(schemaFields::add);
            assertThat(schemaFields).as(type.getKey()).containsExactlyInAnyOrderElementsOf(type.getValue());
            assertThat(defs.path(type.getKey()).path("additionalProperties").asBoolean(true)).as(type.getKey() + " closed").isFalse();
        }
        List<String> valid = new ArrayList<>();
        document().path("examples").forEach(e -> valid.add(e.path("type").asText()));
        assertThat(valid).as("a valid example of every type").containsAll(EventDecoder.FIELDS.keySet());
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
