package com.payments.reconciler.delivery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.workflow.Json;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/schema/provider-generic-http.schema.json describes what the generic-http contract's parties exchange: the body
 * the client sends and the simulated provider's answers (released, rejected, each lookup state) pass it. Known-bad: a
 * released answer without its providerReference, a lookup RELEASED without one, and a request with an extra field fail it.
 */
class GenericHttpSchemaTest {

    static final Path SCHEMA = Path.of(System.getProperty("reconciler.repositoryRoot", "..")).resolve("docs/schema/provider-generic-http.schema.json");

    private static Schema def(String name) throws Exception {
        ObjectNode document = (ObjectNode) Json.mapper().readTree(Files.readString(SCHEMA));
        document.put("$ref", "#/$defs/" + name);
        return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(document);
    }

    private static HttpResponse<String> send(HttpClient http, SimulatedProvider provider, String method, String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(provider.baseUrl() + path))
                .header("Authorization", "Bearer " + provider.apiKey());
        if (body != null) {
            String key = Json.mapper().readTree(body).path("operationId").asText();
            request.header("Idempotency-Key", key).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theClientsRequestAndTheSimulatedProvidersAnswersPassTheSchema() throws Exception {
        HttpClient http = HttpProviderClient.httpClient(Duration.ofSeconds(5));
        try (SimulatedProvider provider = SimulatedProvider.builder().unknownHolds(java.util.Set.of("auth-x")).start()) {
            provider.capture("auth-c");
            String request = "{\"authorisationId\":\"auth-1\",\"amountMinor\":1250,\"currency\":\"EUR\",\"operationId\":\"release-hold:auth-1\"}";
            assertThat(def("releaseRequest").validate(Json.mapper().readTree(request))).isEmpty();
            assertThat(def("lookup").validate(Json.mapper().readTree(send(http, provider, "GET", "/holds/auth-1", null).body()))).as("ACTIVE").isEmpty();
            HttpResponse<String> released = send(http, provider, "POST", "/holds/auth-1/release", request);
            assertThat(released.statusCode()).isEqualTo(200);
            assertThat(def("released").validate(Json.mapper().readTree(released.body()))).isEmpty();
            assertThat(def("lookup").validate(Json.mapper().readTree(send(http, provider, "GET", "/holds/auth-1", null).body()))).as("RELEASED").isEmpty();
            assertThat(def("lookup").validate(Json.mapper().readTree(send(http, provider, "GET", "/holds/auth-c", null).body()))).as("CAPTURED").isEmpty();
            HttpResponse<String> refused = send(http, provider, "POST", "/holds/auth-x/release", request.replace("auth-1", "auth-x"));
            assertThat(refused.statusCode()).isEqualTo(409);
            assertThat(def("rejected").validate(Json.mapper().readTree(refused.body()))).isEmpty();

            // Known-bad inputs: each fails the schema.
            ObjectNode withoutReference = (ObjectNode) Json.mapper().readTree(released.body());
            withoutReference.remove("providerReference");
            assertThat(def("released").validate(withoutReference)).isNotEmpty();
            JsonNode releasedLookupWithoutReference = Json.mapper().readTree("{\"authorisationId\":\"auth-1\",\"status\":\"RELEASED\"}");
            assertThat(def("lookup").validate(releasedLookupWithoutReference)).isNotEmpty();
            assertThat(def("releaseRequest").validate(Json.mapper().readTree(request.replace("}", ",\"pan\":\"x\"}")))).isNotEmpty();
        }
    }
}
