package com.payments.reconciler.harness.lambda;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** Calls the Invoke API as botocore does (a plain POST), and keeps what the answer says. */
record Invoker(URI endpoint, HttpClient http) {

    /** Bounds every wait on an answer; generous because four other builds share the two cores. */
    static final Duration ANSWER_WITHIN = Duration.ofSeconds(120);

    static Invoker of(URI endpoint) {
        // HTTP/1.1 as the SDKs and botocore speak to Lambda. With the JDK client's default (HTTP/2 over cleartext), a
        // second request to a host whose protocol it has not learnt yet waits for the first one's upgrade answer, so
        // an invocation held open by the test could hold back the concurrent one the test is waiting for.
        return new Invoker(endpoint, HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build());
    }

    record Answer(int status, String functionError, String errorType, String requestId, String body) {
        JsonNode json() {
            try {
                return Json.mapper().readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON: " + body, e);
            }
        }
    }

    Answer invoke(String functionPath, String payload) {
        return invokeAsync(functionPath, payload).join();
    }

    CompletableFuture<Answer> invokeAsync(String functionPath, String payload) {
        HttpRequest request = HttpRequest.newBuilder(endpoint.resolve("/2015-03-31/functions/" + functionPath + "/invocations"))
                .timeout(ANSWER_WITHIN)
                .POST(HttpRequest.BodyPublishers.ofString(payload))
                .build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenApply(r -> new Answer(r.statusCode(),
                r.headers().firstValue("X-Amz-Function-Error").orElse(null),
                r.headers().firstValue("x-amzn-ErrorType").orElse(null),
                r.headers().firstValue("x-amzn-RequestId").orElse(null),
                r.body()));
    }
}
