package com.payments.reconciler.cli;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * moto has no Lambda GetAccountSettings: this loopback endpoint answers it with a recorded AWS answer (the shape of the
 * Lambda API reference's response) and passes every other request to moto unchanged, so the pre-flight runs against
 * one endpoint as it does against AWS.
 */
final class RecordedAccountSettings implements AutoCloseable {

    private static final Set<String> HOP_HEADERS = Set.of("host", "content-length", "connection", "expect", "transfer-encoding");
    private final HttpServer server;
    private final HttpClient client = HttpClient.newHttpClient();
    private final AtomicInteger requests = new AtomicInteger();
    private volatile String accountSettings;

    RecordedAccountSettings(URI moto, int concurrencyLimit, int unreserved) {
        limits(concurrencyLimit, unreserved);
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", exchange -> {
            try (exchange) {
                requests.incrementAndGet();
                byte[] requestBody = exchange.getRequestBody().readAllBytes();
                if (exchange.getRequestURI().getPath().startsWith("/2016-08-19/account-settings")) {
                    byte[] body = accountSettings.getBytes(StandardCharsets.UTF_8);
                    exchange.getResponseHeaders().set("Content-Type", "application/json");
                    exchange.sendResponseHeaders(200, body.length);
                    exchange.getResponseBody().write(body);
                    return;
                }
                HttpRequest.Builder forward = HttpRequest.newBuilder(moto.resolve(exchange.getRequestURI().toString()))
                        .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(requestBody));
                exchange.getRequestHeaders().forEach((name, values) -> {
                    if (!HOP_HEADERS.contains(name.toLowerCase())) {
                        values.forEach(v -> forward.header(name, v));
                    }
                });
                HttpResponse<byte[]> answer = client.send(forward.build(), HttpResponse.BodyHandlers.ofByteArray());
                answer.headers().map().forEach((name, values) -> {
                    if (!HOP_HEADERS.contains(name.toLowerCase()) && !name.startsWith(":")) {
                        exchange.getResponseHeaders().put(name, values);
                    }
                });
                exchange.sendResponseHeaders(answer.statusCode(), answer.body().length == 0 ? -1 : answer.body().length);
                exchange.getResponseBody().write(answer.body());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        server.start();
    }

    /** The account's limits as GetAccountSettings reports them. */
    RecordedAccountSettings limits(int concurrencyLimit, int unreserved) {
        accountSettings = "{\"AccountLimit\":{\"TotalCodeSize\":80530636800,\"CodeSizeUnzipped\":262144000,\"CodeSizeZipped\":52428800,"
                + "\"ConcurrentExecutions\":" + concurrencyLimit + ",\"UnreservedConcurrentExecutions\":" + unreserved + "},"
                + "\"AccountUsage\":{\"TotalCodeSize\":0,\"FunctionCount\":0}}";
        return this;
    }

    int requests() {
        return requests.get();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
