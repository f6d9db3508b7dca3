package com.payments.reconciler.local.moto;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the launcher's ordered log of accepted DynamoDB writes (see {@code write_log.py}). Because the
 * local engine serves one request at a time, the log's order is the order the writes were applied in:
 * the ground truth the invariant audit checks I1, I3 and I5 against, with each written item's image before
 * and after every write.
 */
public final class WriteLog {

    /**
     * One accepted write: its position in apply order, the operation, the request/response JSON, and
     * {@code items}: every item the write named, as {@code {"table", "key", "old", "new"}} with the stored
     * image just before and just after it was applied (JSON null where absent).
     */
    public record Entry(long seq, String operation, JsonNode request, JsonNode response, JsonNode items) {
    }

    /**
     * A transaction the engine cancelled: its request and one cancellation reason per item, in the request's order
     * (DynamoDB's {@code CancellationReasons}).
     */
    public record Refusal(long seq, JsonNode request, JsonNode reasons) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI endpoint;
    private final HttpClient http = HttpClient.newHttpClient();

    public WriteLog(URI motoEndpoint) {
        this.endpoint = motoEndpoint;
    }

    public List<Entry> entries() {
        JsonNode root = read();
        List<Entry> entries = new ArrayList<>();
        for (JsonNode w : root.path("writes")) {
            entries.add(new Entry(w.path("seq").asLong(), w.path("op").asText(), w.path("request"), w.path("response"), w.path("items")));
        }
        return entries;
    }

    /** Every TransactWriteItems the engine cancelled since the log was last cleared, in order. */
    public List<Refusal> refusals() {
        List<Refusal> refusals = new ArrayList<>();
        for (JsonNode r : read().path("refused")) {
            refusals.add(new Refusal(r.path("seq").asLong(), r.path("request"), r.path("reasons")));
        }
        return refusals;
    }

    private JsonNode read() {
        try {
            return JSON.readTree(get("/reconciler-api/write-log"));
        } catch (IOException e) {
            throw new UncheckedIOException("write log is not JSON", e);
        }
    }

    public void clear() {
        send(HttpRequest.newBuilder(endpoint.resolve("/reconciler-api/write-log/clear")).POST(HttpRequest.BodyPublishers.noBody()).build());
    }

    private String get(String path) {
        return send(HttpRequest.newBuilder(endpoint.resolve(path)).GET().build());
    }

    private String send(HttpRequest request) {
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("write log: HTTP " + response.statusCode() + " from " + request.uri());
            }
            return response.body();
        } catch (IOException e) {
            throw new UncheckedIOException("write log unavailable at " + request.uri(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading the write log", e);
        }
    }
}
