package com.payments.reconciler.delivery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.workflow.ProviderContractViolation;
import com.payments.reconciler.workflow.Timing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * The provider's release API over {@code java.net.http}: {@code POST /holds/{authorisationId}/release}
 * with {@code Idempotency-Key: {operationId}} and a bearer key, connect and request timeouts from
 * {@link Timing} (well under the delivery Lambda's deadline margin, so a hung provider cannot make the
 * function overrun), no redirects followed.
 *
 * <p>Answers are checked strictly against the contract, and anything else is a
 * {@link ProviderContractViolation} naming the field: a 200 must be JSON, for <em>this</em> operation
 * id and authorisation, {@code status = RELEASED} with a provider reference; a 409 is a permanent
 * refusal with a code and reason for this operation. 429, and 503 with {@code Retry-After}, are
 * {@link ProviderResult.Throttled}: slow down, wait, retry with the same key. Other 5xx, 408, timeouts and
 * connection errors are {@link ProviderResult.Unavailable}: retry with the same key. A 401 reads the key again (it may
 * have been rotated): a new key is sent by the next request, which goes through the sender's checks like any other
 * (so it is also answered {@code Unavailable}); the same key refused again is reported. Only ids and status codes
 * appear in messages.
 *
 * <p>The status lookup, {@code GET /holds/{authorisationId}} with the same bearer key and no idempotency key (it changes
 * nothing), answers 200 with {@code {"authorisationId", "status", "providerReference"?}}; {@link ForgottenKeys} judges the
 * status. 404, 405 and 501 mean the provider offers no lookup; 429, 5xx and timeouts are answered as for a release; a
 * 200 that is not a JSON object about this authorisation, or any other status, is a {@link ProviderContractViolation}.
 */
public final class HttpProviderClient implements ProviderClient {

    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_REFERENCE_LENGTH = 256;

    private final HttpClient http;
    private final URI baseUrl;
    private final ProviderCredentials credentials;
    private final Duration requestTimeout;
    private final Clock clock;

    public HttpProviderClient(HttpClient http, URI baseUrl, ProviderCredentials credentials, Duration requestTimeout) {
        this(http, baseUrl, credentials, requestTimeout, Clock.systemUTC());
    }

    /** {@code clock} reads a {@code Retry-After} date. */
    public HttpProviderClient(HttpClient http, URI baseUrl, ProviderCredentials credentials, Duration requestTimeout, Clock clock) {
        if (!"https".equals(baseUrl.getScheme()) && !"http".equals(baseUrl.getScheme())) {
            throw new IllegalArgumentException("provider base URL must be http(s)://host[:port][/path], was " + baseUrl);
        }
        this.http = http;
        this.baseUrl = baseUrl;
        this.credentials = credentials;
        this.requestTimeout = requestTimeout;
        this.clock = clock;
    }

    /** The production client: the {@link Timing} timeouts, HTTP/1.1, no redirects. */
    public static HttpProviderClient create(URI baseUrl, ProviderCredentials credentials, Clock clock) {
        return new HttpProviderClient(httpClient(Timing.PROVIDER_CONNECT_TIMEOUT), baseUrl, credentials,
                Timing.PROVIDER_REQUEST_TIMEOUT, clock);
    }

    public static HttpClient httpClient(Duration connectTimeout) {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    @Override
    public void prepare() {
        credentials.apiKey();
    }

    @Override
    public ProviderResult release(PendingCommand command) {
        HttpResponse<String> response;
        String key = credentials.current();
        try {
            response = send(command, key);
            if (response.statusCode() == 401 && credentials.replacedAfterRefusal(key)) {
                return new ProviderResult.Unavailable("provider answered 401: the secret holds a newer API key, which the next request sends");
            }
        } catch (HttpTimeoutException e) {
            return new ProviderResult.Unavailable("no response within " + requestTimeout.toMillis() + " ms");
        } catch (IOException e) {
            return new ProviderResult.Unavailable("connection failed: " + e.getClass().getSimpleName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ProviderResult.Unavailable("interrupted while waiting for the provider");
        }
        return interpret(command, response);
    }

    @Override
    public HoldLookup lookUp(PendingCommand command) {
        HttpResponse<String> response;
        String key = credentials.current();
        try {
            HttpRequest request = HttpRequest.newBuilder(holdUri(command.authorisationId()))
                    .timeout(requestTimeout)
                    .header("Authorization", "Bearer " + key)
                    .header("Accept", "application/json")
                    .GET()
                    .build();
            response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            if (response.statusCode() == 401 && credentials.replacedAfterRefusal(key)) {
                return new HoldLookup.NoAnswer(new ProviderResult.Unavailable(
                        "provider answered 401: the secret holds a newer API key, which the next request sends"));
            }
        } catch (HttpTimeoutException e) {
            return new HoldLookup.NoAnswer(new ProviderResult.Unavailable("no response within " + requestTimeout.toMillis() + " ms"));
        } catch (IOException e) {
            return new HoldLookup.NoAnswer(new ProviderResult.Unavailable("connection failed: " + e.getClass().getSimpleName()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new HoldLookup.NoAnswer(new ProviderResult.Unavailable("interrupted while waiting for the provider"));
        }
        int status = response.statusCode();
        String what = "provider answered " + status + " to the status lookup for " + command.operationId();
        switch (status) {
            case 401 -> throw ProviderContractViolation.ofEveryCommand(what
                    + ": the provider refused our API key (" + credentials + ") even after reading it again; field Authorization");
            case 404, 405, 501 -> {
                return new HoldLookup.NotOffered("GET /holds/{authorisationId} answered " + status);
            }
            case 200 -> {
                try {
                    JsonNode json = json(what, response);
                    expect(what, json, "authorisationId", command.authorisationId());
                    JsonNode state = json.get("status");
                    JsonNode reference = json.get("providerReference");
                    return new HoldLookup.Answered(
                            state != null && state.isTextual() ? Optional.of(state.asText()) : Optional.empty(),
                            reference != null && reference.isTextual() ? Optional.of(reference.asText()) : Optional.empty(),
                            status, response.body());
                } catch (Broken broken) {
                    throw ProviderContractViolation.ofCommand(broken.getMessage(), status, response.body());
                }
            }
            case 429 -> {
                return new HoldLookup.NoAnswer(new ProviderResult.Throttled(status, retryAfter(response)));
            }
            default -> {
                if (status == 503 && retryAfter(response).isPresent()) {
                    return new HoldLookup.NoAnswer(new ProviderResult.Throttled(status, retryAfter(response)));
                }
                if (status == 408 || (status >= 500 && status <= 599)) {
                    return new HoldLookup.NoAnswer(new ProviderResult.Unavailable("provider answered " + status));
                }
                throw ProviderContractViolation.ofCommand(what + ": unexpected status; the lookup answers 200 (the hold's state), "
                        + "404 (no lookup), 5xx/408/429 (retry)", status, response.body());
            }
        }
    }

    private HttpResponse<String> send(PendingCommand command, String key) throws IOException, InterruptedException {
        ObjectNode body = JSON.createObjectNode()
                .put("authorisationId", command.authorisationId())
                .put("amountMinor", command.amountMinor())
                .put("currency", command.currency())
                .put("operationId", command.operationId());
        HttpRequest request = HttpRequest.newBuilder(releaseUri(command.authorisationId()))
                .timeout(requestTimeout)
                .header("Authorization", "Bearer " + key)
                .header(IDEMPOTENCY_KEY, command.operationId())
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private URI releaseUri(String authorisationId) {
        return URI.create(holdUri(authorisationId) + "/release");
    }

    private URI holdUri(String authorisationId) {
        String base = baseUrl.toString();
        String prefix = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        return URI.create(prefix + "/holds/" + pathSegment(authorisationId));
    }

    private ProviderResult interpret(PendingCommand command, HttpResponse<String> response) {
        if (response.statusCode() == 401) {
            throw ProviderContractViolation.ofEveryCommand("provider answered 401 for " + command.operationId()
                    + ": the provider refused our API key (" + credentials + ") even after reading it again; field Authorization");
        }
        try {
            return interpretAnswer(command, response);
        } catch (Broken broken) {
            throw ProviderContractViolation.ofCommand(broken.getMessage(), response.statusCode(), response.body());
        }
    }

    private ProviderResult interpretAnswer(PendingCommand command, HttpResponse<String> response) {
        int status = response.statusCode();
        String what = "provider answered " + status + " for " + command.operationId();
        return switch (status) {
            case 200, 201 -> {
                JsonNode json = json(what, response);
                sameOperation(what, command, json);
                expect(what, json, "status", "RELEASED");
                String reference = text(what, json, "providerReference");
                if (reference.length() > MAX_REFERENCE_LENGTH) {
                    throw new Broken(what + ": field providerReference is longer than "
                            + MAX_REFERENCE_LENGTH + " characters");
                }
                yield new ProviderResult.Released(reference);
            }
            case 409 -> {
                JsonNode json = json(what, response);
                sameOperation(what, command, json);
                expect(what, json, "status", "REJECTED");
                yield new ProviderResult.Rejected(text(what, json, "code"), text(what, json, "reason"));
            }
            case 429 -> new ProviderResult.Throttled(status, retryAfter(response));
            case 503 -> {
                Optional<Duration> retryAfter = retryAfter(response);
                yield retryAfter.isPresent() ? new ProviderResult.Throttled(status, retryAfter)
                        : new ProviderResult.Unavailable("provider answered " + status);
            }
            case 408, 500, 502, 504 -> new ProviderResult.Unavailable("provider answered " + status);
            case 422 -> throw new Broken(what + ": the provider holds a different request under "
                    + "this Idempotency-Key; the command changed after it was first sent (field Idempotency-Key)");
            default -> {
                if (status >= 500 && status <= 599) {
                    yield new ProviderResult.Unavailable("provider answered " + status);
                }
                throw new Broken(what + ": unexpected status; the contract answers 200 (released), "
                        + "409 (refused), 5xx/408/429 (retry)");
            }
        };
    }

    private Optional<Duration> retryAfter(HttpResponse<String> response) {
        return RetryAfter.parse(response.headers().firstValue("Retry-After").orElse(null), clock.instant());
    }

    private static JsonNode json(String what, HttpResponse<String> response) {
        String contentType = response.headers().firstValue("Content-Type").orElse("none");
        try {
            JsonNode json = JSON.readTree(response.body());
            if (json != null && json.isObject()) {
                return json;
            }
        } catch (IOException e) {
            // fall through: reported below without quoting the body
        }
        throw new Broken(what + ": the body is not a JSON object (Content-Type " + contentType
                + ", " + response.body().length() + " characters)");
    }

    private static void sameOperation(String what, PendingCommand command, JsonNode json) {
        expect(what, json, "operationId", command.operationId());
        expect(what, json, "authorisationId", command.authorisationId());
    }

    private static void expect(String what, JsonNode json, String field, String expected) {
        String actual = text(what, json, field);
        if (!actual.equals(expected)) {
            throw new Broken(what + ": field " + field + " is '" + ProviderContractViolation.quote(actual) + "', expected '" + expected + "'");
        }
    }

    private static String text(String what, JsonNode json, String field) {
        JsonNode value = json.get(field);
        if (value == null || !value.isTextual() || value.asText().isBlank()) {
            throw new Broken(what + ": field " + field + " is required, a non-empty string");
        }
        return value.asText();
    }

    /** Percent-encodes everything but RFC 3986 unreserved characters, so an id is exactly one path segment. */
    static String pathSegment(String value) {
        StringBuilder out = new StringBuilder();
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~') {
                out.append(c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)))
                        .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
            }
        }
        return out.toString();
    }

    /** An answer that broke the contract, before {@link #interpret} attaches its status and body. */
    private static final class Broken extends RuntimeException {
        Broken(String message) {
            super(message);
        }
    }
}
