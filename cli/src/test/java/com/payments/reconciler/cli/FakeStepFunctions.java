package com.payments.reconciler.cli;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Recorded Step Functions answers on loopback, for what moto cannot do: {@code RedriveExecution}
 * (moto answers HTTP 500), the redrive fields of {@code DescribeExecution} (moto has none) and AWS's
 * refusals (access denied, throttling, not redrivable). Each operation (the
 * {@code X-Amz-Target} after the dot) gets a recorded status and JSON body.
 */
final class FakeStepFunctions implements AutoCloseable {

    record Answer(int status, String body) {
    }

    private final HttpServer server;
    private final Map<String, Answer> answers = new ConcurrentHashMap<>();
    private final Map<String, Integer> calls = new ConcurrentHashMap<>();
    private final Map<String, String> lastRequests = new ConcurrentHashMap<>();

    FakeStepFunctions() {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", exchange -> {
            try (exchange) {
                String target = exchange.getRequestHeaders().getFirst("X-Amz-Target");
                String operation = target == null ? "" : target.substring(target.indexOf('.') + 1);
                calls.merge(operation, 1, Integer::sum);
                lastRequests.put(operation, new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                Answer answer = answers.getOrDefault(operation, new Answer(400,
                        "{\"__type\":\"UnknownOperationException\",\"message\":\"no recorded answer for " + operation + "\"}"));
                byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "application/x-amz-json-1.0");
                exchange.getResponseHeaders().set("x-amzn-RequestId", "recorded");
                exchange.sendResponseHeaders(answer.status(), body.length);
                exchange.getResponseBody().write(body);
            }
        });
        server.start();
    }

    FakeStepFunctions answer(String operation, int status, String body) {
        answers.put(operation, new Answer(status, body));
        return this;
    }

    int calls(String operation) {
        return calls.getOrDefault(operation, 0);
    }

    /** Every request received, whatever its operation. */
    int allCalls() {
        return calls.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** The JSON body of the last request for an operation, as the SDK sent it (null if none). */
    String lastRequest(String operation) {
        return lastRequests.get(operation);
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
