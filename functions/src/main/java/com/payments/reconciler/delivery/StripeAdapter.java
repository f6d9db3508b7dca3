package com.payments.reconciler.delivery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.workflow.ProviderContractViolation;
import com.payments.reconciler.workflow.Timing;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
import java.util.regex.Pattern;

/**
 * Stripe's PaymentIntents as the provider (docs/integration.md, "Stripe adapter"), over {@code java.net.http} against the
 * documented format: the authorisation's provider reference is its PaymentIntent id; the release is
 * {@code POST /v1/payment_intents/{intent}/cancel}, form-encoded {@code cancellation_reason=abandoned}, with the secret
 * key as bearer and {@code Idempotency-Key: {operationId}}; the lookup is {@code GET /v1/payment_intents/{intent}}.
 * {@link StripeAnswers} says what each answer means. A command without a PaymentIntent id (or with one that is not a
 * Stripe id) is never sent: it is quarantined, naming the field.
 *
 * <p>Timeouts, redirects and a refused key (401: the secret is read again, as for {@link HttpProviderClient}) are
 * handled as for the generic contract. Only ids and status codes appear in messages; the key never does.
 */
public final class StripeAdapter implements ProviderClient {

    private static final Logger LOG = LoggerFactory.getLogger(StripeAdapter.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Stripe's ids: a prefix, an underscore, letters and digits; the cancel URL takes exactly one path segment. */
    static final Pattern PAYMENT_INTENT_ID = Pattern.compile("pi_[A-Za-z0-9]{1,250}");
    /** Stripe accepts idempotency keys of up to 255 characters. */
    static final int MAX_IDEMPOTENCY_KEY = 255;
    static final String CANCEL_BODY = "cancellation_reason=" + StripeAnswers.CANCEL_REASON;

    private final HttpClient http;
    private final URI baseUrl;
    private final ProviderCredentials credentials;
    private final Duration requestTimeout;
    private final Clock clock;

    public StripeAdapter(HttpClient http, URI baseUrl, ProviderCredentials credentials, Duration requestTimeout, Clock clock) {
        if (!"https".equals(baseUrl.getScheme()) && !"http".equals(baseUrl.getScheme())) {
            throw new IllegalArgumentException("Stripe base URL must be http(s)://host[:port], e.g. https://api.stripe.com, was " + baseUrl);
        }
        this.http = http;
        this.baseUrl = baseUrl;
        this.credentials = credentials;
        this.requestTimeout = requestTimeout;
        this.clock = clock;
    }

    /** The production adapter: the {@link Timing} timeouts, HTTP/1.1, no redirects. */
    public static StripeAdapter create(URI baseUrl, ProviderCredentials credentials, Clock clock) {
        return new StripeAdapter(HttpProviderClient.httpClient(Timing.PROVIDER_CONNECT_TIMEOUT), baseUrl, credentials,
                Timing.PROVIDER_REQUEST_TIMEOUT, clock);
    }

    @Override
    public void prepare() {
        credentials.apiKey();
    }

    @Override
    public ProviderResult release(PendingCommand command) {
        String intent = paymentIntent(command);
        if (command.operationId().length() > MAX_IDEMPOTENCY_KEY) {
            throw ProviderContractViolation.ofCommand("not sent to Stripe: " + command.operationId().length()
                    + " characters of operation id, Stripe's Idempotency-Key takes at most " + MAX_IDEMPOTENCY_KEY, 0, "");
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(intent, "/cancel"))
                .header(HttpProviderClient.IDEMPOTENCY_KEY, command.operationId())
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(CANCEL_BODY));
        Exchanged exchanged = exchange(request);
        if (exchanged.missing() != null) {
            return exchanged.missing();
        }
        HttpResponse<String> response = exchanged.response();
        ProviderResult result = StripeAnswers.cancel(intent, command.operationId(), response.statusCode(), response.body(),
                response.headers().firstValue("Retry-After"), clock.instant());
        if (result instanceof ProviderResult.Released && response.statusCode() != 200) {
            logWhoCancelled(command, response.body());
        }
        return result;
    }

    @Override
    public HoldLookup lookUp(PendingCommand command) {
        String intent = paymentIntent(command);
        Exchanged exchanged = exchange(HttpRequest.newBuilder(uri(intent, "")).GET());
        if (exchanged.missing() != null) {
            return new HoldLookup.NoAnswer(exchanged.missing());
        }
        HttpResponse<String> response = exchanged.response();
        return StripeAnswers.lookup(intent, command.operationId(), response.statusCode(), response.body(),
                response.headers().firstValue("Retry-After"), clock.instant());
    }

    /** The PaymentIntent id the command carries; none, or not a Stripe id, quarantines it before any request. */
    static String paymentIntent(PendingCommand command) {
        Optional<String> reference = command.providerReference();
        if (reference.isEmpty()) {
            throw ProviderContractViolation.ofCommand("not sent to Stripe: " + command.operationId() + " has no providerReference "
                    + "(its authorisation.created event carried no PaymentIntent id, contract version 2); field providerReference", 0, "");
        }
        if (!PAYMENT_INTENT_ID.matcher(reference.get()).matches()) {
            throw ProviderContractViolation.ofCommand("not sent to Stripe: " + command.operationId() + " has providerReference '"
                    + ProviderContractViolation.quote(reference.get()) + "', which is not a PaymentIntent id (pi_ and letters or digits); "
                    + "field providerReference", 0, "");
        }
        return reference.get();
    }

    /** One request with the bearer key; a 401 reads the secret again (a rotated key is sent by the next request). */
    private Exchanged exchange(HttpRequest.Builder builder) {
        String key = credentials.current();
        HttpRequest request = builder.timeout(requestTimeout)
                .header("Authorization", "Bearer " + key)
                .header("Accept", "application/json")
                .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (HttpTimeoutException e) {
            return new Exchanged(null, new ProviderResult.Unavailable("no response from Stripe within " + requestTimeout.toMillis() + " ms"));
        } catch (IOException e) {
            return new Exchanged(null, new ProviderResult.Unavailable("connection to Stripe failed: " + e.getClass().getSimpleName()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Exchanged(null, new ProviderResult.Unavailable("interrupted while waiting for Stripe"));
        }
        if (response.statusCode() == 401) {
            if (credentials.replacedAfterRefusal(key)) {
                return new Exchanged(null, new ProviderResult.Unavailable(
                        "Stripe answered 401: the secret holds a newer API key, which the next request sends"));
            }
            throw ProviderContractViolation.ofEveryCommand("Stripe answered 401: it refused our secret key (" + credentials
                    + ") even after reading it again; field Authorization");
        }
        return new Exchanged(response, null);
    }

    private record Exchanged(HttpResponse<String> response, ProviderResult missing) {
    }

    private URI uri(String intent, String suffix) {
        String base = baseUrl.toString();
        String prefix = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        return URI.create(prefix + "/v1/payment_intents/" + HttpProviderClient.pathSegment(intent) + suffix);
    }

    /** An already cancelled PaymentIntent is DELIVERED either way; the log says whether the cancellation looks like ours. */
    private static void logWhoCancelled(PendingCommand command, String body) {
        try {
            JsonNode intent = JSON.readTree(body).path("error").path("payment_intent");
            boolean ours = StripeAnswers.cancelledByUs(StripeAnswers.cancellationReason(intent), StripeAnswers.canceledAt(intent),
                    command.firstAttemptAt());
            LOG.info("{}: PaymentIntent already canceled ({}, cancellation_reason {}): delivered", command.operationId(),
                    ours ? "by an earlier request of ours" : "not by this reconciler",
                    StripeAnswers.cancellationReason(intent).map(ProviderContractViolation::quote).orElse("none"));
        } catch (IOException e) {
            // StripeAnswers read this body already; nothing to add to the log.
        }
    }
}
