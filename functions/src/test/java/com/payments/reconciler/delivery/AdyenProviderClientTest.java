package com.payments.reconciler.delivery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.workflow.ProviderContractViolation;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Adyen client's request on the wire (path, headers, body as the Checkout API v71 cancel takes them) against a
 * scripted local server. Known-bad proof: a command whose operation id is over Adyen's 80-character reference limit is
 * refused before anything is sent ({@link #anOperationIdTooLongForAdyensReferenceIsNeverSent}).
 */
class AdyenProviderClientTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final PendingCommand COMMAND = new PendingCommand("release-hold:auth-1", "auth-1", 1250, "EUR",
            Instant.parse("2026-12-01T02:00:00Z"));

    private record Seen(String path, String apiKey, String idempotencyKey, String body) {
    }

    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private volatile int status = 201;
    private volatile String answer = """
            {"merchantAccount":"TestMerchant","paymentPspReference":"993617894903480A","reference":"release-hold:auth-1",
             "pspReference":"993617894906488A","status":"received"}""";
    private HttpServer server;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
        server.createContext("/", this::answer);
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void answer(HttpExchange exchange) throws IOException {
        try (exchange) {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            seen.add(new Seen(exchange.getRequestURI().getRawPath(), exchange.getRequestHeaders().getFirst("X-API-Key"),
                    exchange.getRequestHeaders().getFirst("Idempotency-Key"), body));
            byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    private AdyenProviderClient client(Optional<String> payment) {
        return new AdyenProviderClient(HttpProviderClient.httpClient(Duration.ofSeconds(2)),
                URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v71"), ProviderCredentials.fixedKey("the-key"),
                "TestMerchant", command -> payment, Duration.ofSeconds(10), Clock.systemUTC());
    }

    @Test
    void theCancelCarriesTheKeyTheDerivedIdempotencyKeyAndTheOperationAsItsReference() throws IOException {
        ProviderResult result = client(Optional.of("993617894903480A")).release(COMMAND);

        assertThat(result).isEqualTo(new ProviderResult.Acknowledged("993617894906488A"));
        assertThat(seen).hasSize(1);
        Seen request = seen.getFirst();
        assertThat(request.path()).isEqualTo("/v71/payments/993617894903480A/cancels");
        assertThat(request.apiKey()).isEqualTo("the-key");
        assertThat(request.idempotencyKey()).isEqualTo(AdyenIdempotencyKey.of("release-hold:auth-1"));
        JsonNode body = JSON.readTree(request.body());
        assertThat(body.fieldNames()).toIterable().containsExactlyInAnyOrder("merchantAccount", "reference");
        assertThat(body.get("merchantAccount").asText()).isEqualTo("TestMerchant");
        assertThat(body.get("reference").asText()).isEqualTo("release-hold:auth-1");
    }

    @Test
    void aCommandWithoutAPaymentReferenceIsQuarantinedUnsent() {
        assertThatThrownBy(() -> client(Optional.empty()).release(COMMAND))
                .isInstanceOf(ProviderContractViolation.class).hasMessageContaining("providerReference");
        assertThat(seen).isEmpty();
    }

    @Test
    void anOperationIdTooLongForAdyensReferenceIsNeverSent() {
        String id = "a".repeat(68);
        PendingCommand longOne = new PendingCommand("release-hold:" + id, id, 1250, "EUR", Instant.parse("2026-12-01T02:00:00Z"));
        assertThatThrownBy(() -> client(Optional.of("993617894903480A")).release(longOne))
                .isInstanceOf(ProviderContractViolation.class).hasMessageContaining("at most 80");
        assertThat(seen).isEmpty();
    }

    @Test
    void aRefusedKeyReadAgainAndRefusedAgainStopsTheCall() {
        status = 401;
        answer = "{\"status\":401,\"errorCode\":\"000\",\"message\":\"HTTP Status Response - Unauthorized\",\"errorType\":\"security\"}";
        assertThatThrownBy(() -> client(Optional.of("993617894903480A")).release(COMMAND))
                .isInstanceOfSatisfying(ProviderContractViolation.class, e -> assertThat(e.aboutTheCommand()).isFalse());
    }
}
