package com.payments.reconciler.delivery;

import com.payments.reconciler.workflow.ProviderContractViolation;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The client against a scripted provider that answers whatever the test says: every way an answer can
 * break the contract is a {@link ProviderContractViolation} naming the field, and every way there is no
 * answer is {@link ProviderResult.Unavailable}.
 */
class HttpProviderClientTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final PendingCommand COMMAND = new PendingCommand("release-hold:auth-1", "auth-1", 1250, "EUR",
            Instant.parse("2026-12-01T02:00:00Z"));

    /** One scripted answer: status, content type and body; or a dropped connection when status is 0. */
    private record Answer(int status, String contentType, String body, String retryAfter) {
        Answer(int status, String contentType, String body) {
            this(status, contentType, body, null);
        }
    }

    private record Seen(String method, String path, Map<String, List<String>> headers, String body) {
    }

    private final ConcurrentLinkedDeque<Answer> script = new ConcurrentLinkedDeque<>();
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final CountDownLatch never = new CountDownLatch(1);
    private HttpServer server;
    private int keyReads;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", this::answer);
        server.start();
    }

    @AfterEach
    void stop() {
        never.countDown();
        server.stop(0);
    }

    private void answer(HttpExchange exchange) throws IOException {
        try (exchange) {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            seen.add(new Seen(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(),
                    Map.copyOf(exchange.getRequestHeaders()), body));
            Answer answer = script.pollFirst();
            if (answer == null || answer.status() == 0) {
                return;   // closes the connection without a response
            }
            if (answer.status() < 0) {
                never.await();   // no answer until the test ends
                return;
            }
            exchange.getResponseHeaders().set("Content-Type", answer.contentType());
            if (answer.retryAfter() != null) {
                exchange.getResponseHeaders().set("Retry-After", answer.retryAfter());
            }
            byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
            if (bytes.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private HttpProviderClient client(Duration requestTimeout) {
        ProviderCredentials credentials = ProviderCredentials.fixedKey("the-key");
        return new HttpProviderClient(HttpProviderClient.httpClient(Duration.ofSeconds(2)),
                URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/api/"), credentials, requestTimeout);
    }

    private HttpProviderClient client() {
        return client(Duration.ofSeconds(10));
    }

    private void answer(int status, String body) {
        script.addLast(new Answer(status, "application/json", body));
    }

    private static String released(String operationId, String authorisationId, String status, String reference) {
        var node = JSON.createObjectNode().put("operationId", operationId).put("authorisationId", authorisationId)
                .put("status", status);
        if (reference != null) {
            node.put("providerReference", reference);
        }
        return node.toString();
    }

    @Test
    void aReleaseSendsTheContractRequestAndReadsTheReference() throws Exception {
        answer(200, released("release-hold:auth-1", "auth-1", "RELEASED", "PRV-1"));

        assertThat(client().release(COMMAND)).isEqualTo(new ProviderResult.Released("PRV-1"));

        Seen request = seen.getFirst();
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.path()).isEqualTo("/api/holds/auth-1/release");
        assertThat(request.headers().get("Authorization")).containsExactly("Bearer the-key");
        assertThat(request.headers().get("Idempotency-key")).containsExactly("release-hold:auth-1");
        JsonNode body = JSON.readTree(request.body());
        assertThat(body.get("authorisationId").asText()).isEqualTo("auth-1");
        assertThat(body.get("amountMinor").asLong()).isEqualTo(1250);
        assertThat(body.get("currency").asText()).isEqualTo("EUR");
        assertThat(body.get("operationId").asText()).isEqualTo("release-hold:auth-1");
        assertThat(body.size()).isEqualTo(4);
    }

    @Test
    void aPermanentRefusalIsRejectedWithCodeAndReason() {
        answer(409, JSON.createObjectNode().put("operationId", "release-hold:auth-1").put("authorisationId", "auth-1")
                .put("status", "REJECTED").put("code", "HOLD_NOT_FOUND").put("reason", "no open hold").toString());

        assertThat(client().release(COMMAND)).isEqualTo(new ProviderResult.Rejected("HOLD_NOT_FOUND", "no open hold"));
    }

    @Test
    void aSuccessForAnotherAuthorisationIsAContractViolationNamingTheField() {
        answer(200, released("release-hold:auth-1", "auth-2", "RELEASED", "PRV-1"));

        assertThatThrownBy(() -> client().release(COMMAND)).isInstanceOf(ProviderContractViolation.class)
                .hasMessageContaining("field authorisationId");
    }

    @Test
    void aSuccessWithoutTheReleasedStatusOrAReferenceIsAContractViolation() {
        answer(200, released("release-hold:auth-1", "auth-1", "PENDING", "PRV-1"));
        answer(200, released("release-hold:auth-1", "auth-1", "RELEASED", null));

        assertThatThrownBy(() -> client().release(COMMAND)).isInstanceOf(ProviderContractViolation.class)
                .hasMessageContaining("field status is 'PENDING', expected 'RELEASED'");
        assertThatThrownBy(() -> client().release(COMMAND)).isInstanceOf(ProviderContractViolation.class)
                .hasMessageContaining("field providerReference is required");
    }

    @Test
    void aMalformedRefusalIsAContractViolation() {
        answer(409, "{\"operationId\":\"release-hold:auth-1\",\"authorisationId\":\"auth-1\",\"status\":\"REJECTED\"}");

        assertThatThrownBy(() -> client().release(COMMAND)).isInstanceOf(ProviderContractViolation.class)
                .hasMessageContaining("field code is required");
    }

    @Test
    void serverErrorsTimeoutsAndDroppedConnectionsAreUnavailable() throws Exception {
        answer(503, "{\"error\":\"UNAVAILABLE\"}");
        answer(500, "oops");
        answer(0, "");                       // connection closed without a response
        script.addLast(new Answer(-1, "", "")); // no answer at all

        HttpProviderClient client = client(Duration.ofMillis(300));
        assertThat(client.release(COMMAND)).isEqualTo(new ProviderResult.Unavailable("provider answered 503"));
        assertThat(client.release(COMMAND)).isEqualTo(new ProviderResult.Unavailable("provider answered 500"));
        assertThat(client.release(COMMAND)).isInstanceOf(ProviderResult.Unavailable.class)
                .extracting(r -> ((ProviderResult.Unavailable) r).cause()).asString().startsWith("connection failed");
        assertThat(client.release(COMMAND)).isEqualTo(new ProviderResult.Unavailable("no response within 300 ms"));
    }

    /** 429 always, and 503 when it says when to come back, are throttling, with RFC 9110's two forms. */
    @Test
    void throttlingAnswersCarryTheirRetryAfter() {
        Instant now = Instant.parse("2026-12-02T03:00:00Z");
        script.addLast(new Answer(429, "application/json", "", "3"));
        script.addLast(new Answer(429, "application/json", "", null));
        script.addLast(new Answer(503, "application/json", "", "Wed, 02 Dec 2026 03:00:10 GMT"));
        script.addLast(new Answer(429, "application/json", "", "in a while"));
        HttpProviderClient client = new HttpProviderClient(HttpProviderClient.httpClient(Duration.ofSeconds(2)),
                URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/api/"), ProviderCredentials.fixedKey("k"),
                Duration.ofSeconds(10), java.time.Clock.fixed(now, java.time.ZoneOffset.UTC));

        assertThat(client.release(COMMAND)).isEqualTo(new ProviderResult.Throttled(429, Optional.of(Duration.ofSeconds(3))));
        assertThat(client.release(COMMAND)).isEqualTo(new ProviderResult.Throttled(429, Optional.empty()));
        assertThat(client.release(COMMAND)).isEqualTo(new ProviderResult.Throttled(503, Optional.of(Duration.ofSeconds(10))));
        assertThat(client.release(COMMAND)).as("a Retry-After in neither form is no Retry-After")
                .isEqualTo(new ProviderResult.Throttled(429, Optional.empty()));
    }

    @Test
    void aRefusedConnectionIsUnavailable() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        HttpProviderClient client = new HttpProviderClient(HttpProviderClient.httpClient(Duration.ofSeconds(2)),
                URI.create("http://127.0.0.1:" + closedPort), ProviderCredentials.fixedKey("k"), Duration.ofSeconds(2));

        assertThat(client.release(COMMAND)).isInstanceOf(ProviderResult.Unavailable.class);
    }

    /**
     * A rotated key: the 401 reads the secret again, and the request with the new key is the sender's next one (it goes
     * through the rate, the lease and the facts like any other), not a second request hidden inside this one.
     */
    @Test
    void a401WithARotatedKeyIsUnavailableAndTheNextRequestSendsTheNewKey() {
        answer(401, "{\"error\":\"UNAUTHORIZED\"}");
        answer(200, released("release-hold:auth-1", "auth-1", "RELEASED", "PRV-2"));
        java.util.Iterator<String> keys = List.of("old-key", "new-key").iterator();
        HttpProviderClient client = new HttpProviderClient(HttpProviderClient.httpClient(Duration.ofSeconds(2)),
                URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/api/"),
                ProviderCredentials.fromSource("a rotating key", keys::next), Duration.ofSeconds(10));

        assertThat(client.release(COMMAND)).isInstanceOf(ProviderResult.Unavailable.class);
        assertThat(seen).as("one request per release call").hasSize(1);
        assertThat(client.release(COMMAND)).isEqualTo(new ProviderResult.Released("PRV-2"));
        assertThat(seen).extracting(request -> request.headers().get("Authorization"))
                .containsExactly(List.of("Bearer old-key"), List.of("Bearer new-key"));
    }

    /** The same key refused after reading the secret again is a contract violation at once, without quoting the key. */
    @Test
    void a401WithTheSameKeyAfterReadingItAgainIsAContractViolationWithoutTheKey() {
        answer(401, "{\"error\":\"UNAUTHORIZED\"}");

        assertThatThrownBy(() -> client().release(COMMAND)).isInstanceOf(ProviderContractViolation.class)
                .hasMessageContaining("Authorization").hasMessageNotContaining("the-key");
        assertThat(seen).as("a key known to be refused is not sent again").hasSize(1);
    }

    @Test
    void idsAreEncodedAsOnePathSegment() {
        assertThat(HttpProviderClient.pathSegment("auth-1_x.y~z")).isEqualTo("auth-1_x.y~z");
        assertThat(HttpProviderClient.pathSegment("a/b c+d")).isEqualTo("a%2Fb%20c%2Bd");
        assertThat(HttpProviderClient.pathSegment("é")).isEqualTo("%C3%A9");
    }

    @Test
    void onlyHttpBaseUrlsAreAccepted() {
        List<String> refused = new ArrayList<>();
        for (String url : List.of("ftp://provider", "file:///etc/passwd")) {
            assertThatThrownBy(() -> new HttpProviderClient(HttpProviderClient.httpClient(Duration.ofSeconds(1)),
                    URI.create(url), ProviderCredentials.fixedKey("k"), Duration.ofSeconds(1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("http(s)");
            refused.add(url);
        }
        assertThat(refused).hasSize(2);
    }

    @Test
    void theStatusLookupIsAGetOfTheHoldWithTheKeyAndNoIdempotencyKey() {
        script.add(new Answer(200, "application/json", "{\"authorisationId\":\"auth-1\",\"status\":\"RELEASED\",\"providerReference\":\"PRV-9\"}"));

        HoldLookup answer = client().lookUp(COMMAND);

        assertThat(answer).isEqualTo(new HoldLookup.Answered(java.util.Optional.of("RELEASED"), java.util.Optional.of("PRV-9"), 200,
                "{\"authorisationId\":\"auth-1\",\"status\":\"RELEASED\",\"providerReference\":\"PRV-9\"}"));
        assertThat(seen).singleElement().satisfies(request -> {
            assertThat(request.method()).isEqualTo("GET");
            assertThat(request.path()).isEqualTo("/api/holds/auth-1");
            assertThat(request.headers().get("Authorization")).containsExactly("Bearer the-key");
            assertThat(request.headers()).doesNotContainKey(HttpProviderClient.IDEMPOTENCY_KEY);
        });
    }

    @Test
    void theLookupsAnswersAreSortedAsTheContractSays() {
        script.add(new Answer(404, "application/json", "{\"error\":\"NOT_FOUND\"}"));
        script.add(new Answer(405, "text/plain", ""));
        script.add(new Answer(503, "application/json", "{}"));
        script.add(new Answer(429, "application/json", "{}", "3"));
        script.add(new Answer(200, "application/json", "{\"authorisationId\":\"auth-1\",\"status\":7}"));
        HttpProviderClient client = client();

        assertThat(client.lookUp(COMMAND)).isInstanceOf(HoldLookup.NotOffered.class);
        assertThat(client.lookUp(COMMAND)).isInstanceOf(HoldLookup.NotOffered.class);
        assertThat(client.lookUp(COMMAND)).isEqualTo(new HoldLookup.NoAnswer(new ProviderResult.Unavailable("provider answered 503")));
        assertThat(client.lookUp(COMMAND)).isEqualTo(new HoldLookup.NoAnswer(new ProviderResult.Throttled(429,
                java.util.Optional.of(Duration.ofSeconds(3)))));
        assertThat(client.lookUp(COMMAND)).as("a status that is not a string is judged as missing")
                .isEqualTo(new HoldLookup.Answered(java.util.Optional.empty(), java.util.Optional.empty(), 200,
                        "{\"authorisationId\":\"auth-1\",\"status\":7}"));
    }

    @Test
    void aLookupAnswerAboutAnotherHoldOrNotJsonIsOutsideTheContract() {
        script.add(new Answer(200, "application/json", "{\"authorisationId\":\"auth-2\",\"status\":\"ACTIVE\"}"));
        script.add(new Answer(200, "text/html", "<html>502</html>"));
        script.add(new Answer(302, "text/plain", ""));
        HttpProviderClient client = client();

        assertThatThrownBy(() -> client.lookUp(COMMAND)).isInstanceOf(ProviderContractViolation.class)
                .hasMessageContaining("field authorisationId").satisfies(e -> assertThat(((ProviderContractViolation) e).aboutTheCommand()).isTrue());
        assertThatThrownBy(() -> client.lookUp(COMMAND)).isInstanceOf(ProviderContractViolation.class).hasMessageContaining("not a JSON object");
        assertThatThrownBy(() -> client.lookUp(COMMAND)).isInstanceOf(ProviderContractViolation.class).hasMessageContaining("unexpected status");
    }

    @Test
    void noAnswerToTheLookupIsNoAnswerNotAnError() {
        script.add(new Answer(0, "", ""));

        assertThat(client().lookUp(COMMAND)).isInstanceOf(HoldLookup.NoAnswer.class);
    }
}
