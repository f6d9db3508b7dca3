package com.payments.reconciler.harness.lambda;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.workflow.Json;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The container credentials endpoint Lambda gives SnapStart functions: a loopback HTTP GET answered, for
 * the right {@code Authorization} token, with {@code {"AccessKeyId","SecretAccessKey","Token","Expiration"}}
 * (the shape the SDK's {@code ContainerCredentialsProvider} reads). A sandbox learns the address and its
 * function's token from {@code AWS_CONTAINER_CREDENTIALS_FULL_URI} and
 * {@code AWS_CONTAINER_AUTHORIZATION_TOKEN}; the SDK accepts a plain {@code http://} full URI only for a
 * loopback host, which this is. No token: 401; a token no function holds: 403.
 */
final class ContainerCredentialsEndpoint implements AutoCloseable {

    static final String PATH = "/2018-06-01/credentials";
    /** How long the answered credentials claim to last: the SDK refreshes them ahead of this. */
    private static final Duration VALIDITY = Duration.ofHours(6);

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Map<String, FunctionCredentials> byToken = new ConcurrentHashMap<>();
    private final Map<String, FunctionCredentials> byFunction = new ConcurrentHashMap<>();
    private final SecureRandom random;
    private final Clock clock;

    ContainerCredentialsEndpoint(SecureRandom random, Clock clock) {
        this.random = random;
        this.clock = clock;
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        } catch (IOException e) {
            throw new UncheckedIOException("could not open the container credentials endpoint on loopback", e);
        }
        server.createContext(PATH, this::serve);
        server.setExecutor(executor);
        server.start();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + PATH);
    }

    /** The function's credentials, issued on first use; the same ones for the life of the endpoint. */
    synchronized FunctionCredentials register(String function) {
        FunctionCredentials existing = byFunction.get(function);
        if (existing != null) {
            return existing;
        }
        FunctionCredentials credentials = FunctionCredentials.issue(function, random);
        functionOf(credentials.accessKeyId()).ifPresent(clash -> {
            throw new IllegalArgumentException("functions " + clash + " and " + function + " would share access key id "
                    + credentials.accessKeyId() + "; rename one");
        });
        byToken.put(credentials.authorizationToken(), credentials);
        byFunction.put(function, credentials);
        return credentials;
    }

    FunctionCredentials of(String function) {
        FunctionCredentials credentials = byFunction.get(function);
        if (credentials == null) {
            throw new IllegalArgumentException("no credentials for function " + function);
        }
        return credentials;
    }

    /** Access key id → the function whose sandboxes sign with it. */
    Map<String, String> functionsByAccessKeyId() {
        Map<String, String> map = new LinkedHashMap<>();
        byFunction.values().forEach(c -> map.put(c.accessKeyId(), c.function()));
        return Map.copyOf(map);
    }

    Optional<String> functionOf(String accessKeyId) {
        return byFunction.values().stream().filter(c -> c.accessKeyId().equals(accessKeyId)).map(FunctionCredentials::function).findFirst();
    }

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod())) {
                reply(exchange, 405, "{\"message\":\"GET only\"}");
                return;
            }
            String token = exchange.getRequestHeaders().getFirst("Authorization");
            if (token == null || token.isBlank()) {
                reply(exchange, 401, "{\"message\":\"Authorization token required\"}");
                return;
            }
            FunctionCredentials credentials = byToken.get(token.trim());
            if (credentials == null) {
                reply(exchange, 403, "{\"message\":\"Authorization token not valid\"}");
                return;
            }
            ObjectNode body = Json.mapper().createObjectNode()
                    .put("AccessKeyId", credentials.accessKeyId())
                    .put("SecretAccessKey", credentials.secretAccessKey())
                    .put("Token", credentials.sessionToken())
                    .put("Expiration", clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).plus(VALIDITY).toString());
            reply(exchange, 200, body.toString());
        }
    }

    private static void reply(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
