package com.payments.reconciler.harness.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.workflow.Json;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The provider-side mutants: an HTTP server the handlers are pointed at instead of the simulated provider.
 * With no mutant it forwards unchanged; {@link Mutant#DELIVERED_WITHOUT_PROVIDER_CALL} answers every release
 * {@code RELEASED} without forwarding; {@link Mutant#NEW_KEY_PER_RETRY} forwards every retry of an operation
 * under a new {@code Idempotency-Key} ({@code operationId#attempt-n}) and puts the handler's own key back into
 * the answer, so the worker cannot tell. The simulated provider's effect log then holds what really reached it.
 */
final class ProviderProxy implements AutoCloseable {

    private static final ObjectMapper JSON = Json.mapper();
    private static final String KEY = "Idempotency-Key";

    private final HttpServer server;
    private final URI upstream;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final AtomicReference<Mutant> mutant = new AtomicReference<>();
    private final AtomicReference<Consumer<String>> trace = new AtomicReference<>(line -> { });
    private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    private final AtomicLong effects = new AtomicLong();
    private final AtomicLong references = new AtomicLong();

    ProviderProxy(URI upstream) {
        this.upstream = upstream;
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new IllegalStateException("could not start the provider proxy", e);
        }
        server.createContext("/", this::serve);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
    }

    URI baseUrl() {
        return URI.create("http://" + server.getAddress().getHostString() + ":" + server.getAddress().getPort());
    }

    /** Between schedules only: the mutant (or none) and where its trace lines go; attempt counts start again. */
    void configure(Mutant value, Consumer<String> traceLines) {
        mutant.set(value != null && value.providerSide() ? value : null);
        trace.set(traceLines);
        attempts.clear();
        effects.set(0);
    }

    long effects() {
        return effects.get();
    }

    private void serve(HttpExchange exchange) {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String key = exchange.getRequestHeaders().getFirst(KEY);
            Mutant m = mutant.get();
            if (m == Mutant.DELIVERED_WITHOUT_PROVIDER_CALL && key != null) {
                JsonNode request = JSON.readTree(body);
                ObjectNode released = JSON.createObjectNode().put("operationId", key)
                        .put("authorisationId", request.path("authorisationId").asText())
                        .put("status", "RELEASED").put("providerReference", "MUTANT-%08d".formatted(references.incrementAndGet()));
                effects.incrementAndGet();
                trace.get().accept("mutant: " + key + " answered RELEASED by the proxy, never sent to the provider");
                send(exchange, 200, JSON.writeValueAsBytes(released));
                return;
            }
            String sentKey = key;
            byte[] sentBody = body;
            if (m == Mutant.NEW_KEY_PER_RETRY && key != null) {
                int attempt = attempts.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                if (attempt > 1) {
                    sentKey = key + "#attempt-" + attempt;
                    ObjectNode rewritten = (ObjectNode) JSON.readTree(body);
                    rewritten.put("operationId", sentKey);
                    sentBody = JSON.writeValueAsBytes(rewritten);
                    effects.incrementAndGet();
                    trace.get().accept("mutant: retry " + attempt + " of " + key + " sent as " + sentKey);
                }
            }
            HttpRequest.Builder forward = HttpRequest.newBuilder(upstream.resolve(exchange.getRequestURI().getRawPath()))
                    .timeout(Duration.ofMinutes(2))
                    .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(sentBody));
            for (String header : new String[] {"Authorization", "Content-Type", "Accept"}) {
                String value = exchange.getRequestHeaders().getFirst(header);
                if (value != null) {
                    forward.header(header, value);
                }
            }
            if (sentKey != null) {
                forward.header(KEY, sentKey);
            }
            HttpResponse<byte[]> answer;
            try {
                answer = http.send(forward.build(), HttpResponse.BodyHandlers.ofByteArray());
            } catch (IOException dropped) {
                return; // the provider closed without answering (perform-then-drop): so does the proxy
            }
            byte[] answerBody = answer.body();
            if (key != null && !key.equals(sentKey) && answerBody.length > 0) {
                JsonNode json = JSON.readTree(answerBody);
                if (json instanceof ObjectNode object && sentKey.equals(object.path("operationId").asText())) {
                    object.put("operationId", key);
                    answerBody = JSON.writeValueAsBytes(object);
                }
            }
            answer.headers().firstValue("Content-Type").ifPresent(type -> exchange.getResponseHeaders().set("Content-Type", type));
            exchange.sendResponseHeaders(answer.statusCode(), answerBody.length == 0 ? -1 : answerBody.length);
            if (answerBody.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(answerBody);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // The handler went away (its own timeout): what reached the provider stays as it was.
        }
    }

    private static void send(HttpExchange exchange, int status, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        http.close();
    }
}
