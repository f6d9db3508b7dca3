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
    /**
     * The Stripe API version every request names ({@code Stripe-Version}), so that the shapes read here do not change with
     * the account's default version. The one place it is written; docs/integration.md names it.
     */
    public static final String STRIPE_VERSION = "2026-09-30.endive";
    static final String STRIPE_VERSION_HEADER = "Stripe-Version";
    /**
     * The key a cancel is sent under once more after Stripe answered the first one with a 5xx it says not to retry
     * ({@code Stripe-Should-Retry: false}) and the PaymentIntent is still {@code requires_capture}: Stripe replays a stored
     * 5xx for the same key for at least 24 hours, so the same key could not end the command before then. Safe because the
     * cancel is idempotent by state: a PaymentIntent is cancelled at most once, and a second cancel is answered
     * {@code payment_intent_unexpected_state} ({@code canceled}). Derived, so every worker and night uses the same one.
     */
    static final String SECOND_KEY_SUFFIX = "#after-5xx";
    private final HttpClient http;
    private final URI baseUrl;
    private final ProviderCredentials credentials;
    private final Duration requestTimeout;
    private final Clock clock;
    private final Optional<Boolean> expectedLivemode;

    public StripeAdapter(HttpClient http, URI baseUrl, ProviderCredentials credentials, Duration requestTimeout, Clock clock) {
        this(http, baseUrl, credentials, requestTimeout, clock, Optional.empty());
    }

    /** @param expectedLivemode the mode the secret's key must be of (true: live), when the deployment says */
    public StripeAdapter(HttpClient http, URI baseUrl, ProviderCredentials credentials, Duration requestTimeout, Clock clock,
                         Optional<Boolean> expectedLivemode) {
        if (!"https".equals(baseUrl.getScheme()) && !"http".equals(baseUrl.getScheme())) {
            throw new IllegalArgumentException("Stripe base URL must be http(s)://host[:port], e.g. https://api.stripe.com, was " + baseUrl);
        }
        this.http = http;
        this.baseUrl = baseUrl;
        this.credentials = credentials;
        this.requestTimeout = requestTimeout;
        this.clock = clock;
        this.expectedLivemode = expectedLivemode;
    }

    /** The production adapter: the {@link Timing} timeouts, HTTP/1.1, no redirects. */
    public static StripeAdapter create(URI baseUrl, ProviderCredentials credentials, Clock clock) {
        return create(baseUrl, credentials, clock, Optional.empty());
    }

    /** As above, refusing a key of the other mode than {@code livemode} (when given) in {@link #prepare}. */
    public static StripeAdapter create(URI baseUrl, ProviderCredentials credentials, Clock clock, Optional<Boolean> livemode) {
        return new StripeAdapter(HttpProviderClient.httpClient(Timing.PROVIDER_CONNECT_TIMEOUT), baseUrl, credentials,
                Timing.PROVIDER_REQUEST_TIMEOUT, clock, livemode);
    }

    /**
     * Reads the key and checks its mode before any request: a Stripe secret or restricted key names its mode
     * ({@code sk_live_}, {@code rk_live_}, {@code sk_test_}, {@code rk_test_}); another form, or the other mode than the
     * deployment's, stops the call (every command would meet the same key). Answers are then checked against that mode.
     */
    @Override
    public void prepare() {
        String key = credentials.apiKey();
        Optional<Boolean> live = livemodeOf(key);
        if (live.isEmpty()) {
            throw ProviderContractViolation.ofEveryCommand("the provider secret (" + credentials + ") holds no Stripe secret or "
                    + "restricted key; field apiKey must start with sk_live_, rk_live_, sk_test_ or rk_test_");
        }
        if (expectedLivemode.isPresent() && !expectedLivemode.equals(live)) {
            throw ProviderContractViolation.ofEveryCommand("the provider secret (" + credentials + ") holds a " + mode(live.get())
                    + " key, this deployment releases " + mode(expectedLivemode.get()) + " holds; field apiKey");
        }
    }

    /** A Stripe key's mode from its documented prefix: true for live, false for test, empty for anything else. */
    static Optional<Boolean> livemodeOf(String key) {
        if (key.startsWith("sk_live_") || key.startsWith("rk_live_")) {
            return Optional.of(true);
        }
        if (key.startsWith("sk_test_") || key.startsWith("rk_test_")) {
            return Optional.of(false);
        }
        return Optional.empty();
    }

    private static String mode(boolean live) {
        return live ? "live-mode" : "test-mode";
    }

    @Override
    public ProviderResult release(PendingCommand command) {
        String intent = paymentIntent(command);
        if (command.operationId().length() + SECOND_KEY_SUFFIX.length() > MAX_IDEMPOTENCY_KEY) {
            throw ProviderContractViolation.ofCommand("not sent to Stripe: " + command.operationId().length()
                    + " characters of operation id, Stripe's Idempotency-Key takes at most " + MAX_IDEMPOTENCY_KEY
                    + " (the operation id and " + SECOND_KEY_SUFFIX.length() + " for the key after a stored 5xx)", 0, "");
        }
        StripeAnswers.Expected expected = new StripeAnswers.Expected(intent, command.operationId(), Optional.of(command.amountMinor()),
                Optional.of(command.currency()), livemodeOf(credentials.current()));
        Exchanged exchanged = exchange(cancelRequest(intent, command.operationId()));
        if (exchanged.missing() != null) {
            return exchanged.missing();
        }
        HttpResponse<String> response = exchanged.response();
        int status = response.statusCode();
        Optional<String> shouldRetry = response.headers().firstValue(StripeAnswers.SHOULD_RETRY);
        if (status >= 500 && status <= 599) {
            return afterServerError(command, intent, expected, status, StripeAnswers.shouldRetry(shouldRetry));
        }
        ProviderResult result = StripeAnswers.cancel(expected, status, response.body(),
                response.headers().firstValue("Retry-After"), shouldRetry, clock.instant());
        if (result instanceof ProviderResult.Released && status != 200) {
            logWhoCancelled(command, response.body());
        }
        return result;
    }

    private HttpRequest.Builder cancelRequest(String intent, String idempotencyKey) {
        return HttpRequest.newBuilder(uri(intent, "/cancel"))
                .header(HttpProviderClient.IDEMPOTENCY_KEY, idempotencyKey)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(CANCEL_BODY));
    }

    /**
     * A 5xx to the cancel: the cancel may or may not have happened, and Stripe may have stored the 5xx under the key (it
     * replays it for that key). The PaymentIntent is looked up before deciding: {@code canceled} is released (checked as a
     * cancel's answer), {@code succeeded} captured, {@code requires_capture} not cancelled: sent again under the same key
     * unless Stripe said {@code Stripe-Should-Retry: false}, in which case once under the derived second key. Any other
     * lookup answer leaves the command unavailable (sent again later under the same key), as the 5xx alone would.
     */
    private ProviderResult afterServerError(PendingCommand command, String intent, StripeAnswers.Expected expected, int status,
                                            Optional<Boolean> shouldRetry) {
        String cause = "Stripe answered " + status + " to the cancel" + shouldRetry.map(r -> " (" + StripeAnswers.SHOULD_RETRY + ": " + r + ")").orElse("");
        Exchanged looked = exchange(HttpRequest.newBuilder(uri(intent, "")).GET());
        if (looked.missing() != null || looked.response().statusCode() != 200) {
            return new ProviderResult.Unavailable(cause + "; the lookup that followed gave no answer");
        }
        String body = looked.response().body();
        HoldLookup lookup = StripeAnswers.lookup(intent, command.operationId(), 200, body, Optional.empty(), clock.instant());
        Optional<String> state = lookup instanceof HoldLookup.Answered answered ? answered.status() : Optional.empty();
        if (state.equals(Optional.of(ForgottenKeys.RELEASED))) {
            // As the cancel's own 200 would have been: the same checks of id, amount, currency and mode.
            ProviderResult released = StripeAnswers.cancel(expected, 200, body, Optional.empty(), Optional.empty(), clock.instant());
            LOG.info("{}: Stripe answered {} to the cancel, and the PaymentIntent is canceled: delivered", command.operationId(), status);
            return released;
        }
        if (state.equals(Optional.of(ForgottenKeys.CAPTURED))) {
            return new ProviderResult.Rejected(ForgottenKeys.CODE_CAPTURED,
                    "Stripe: PaymentIntent " + intent + " was captured (status succeeded): there is nothing left to release");
        }
        if (!state.equals(Optional.of(ForgottenKeys.ACTIVE)) || !shouldRetry.equals(Optional.of(false))) {
            return new ProviderResult.Unavailable(cause + "; the PaymentIntent is " + state.orElse("of no status") + ": sent again under the same key");
        }
        LOG.warn("{}: Stripe answered {} with {}: false and the PaymentIntent still requires capture: the cancel is sent once "
                + "under the key {}{}", command.operationId(), status, StripeAnswers.SHOULD_RETRY, command.operationId(), SECOND_KEY_SUFFIX);
        Exchanged second = exchange(cancelRequest(intent, command.operationId() + SECOND_KEY_SUFFIX));
        if (second.missing() != null) {
            return second.missing();
        }
        HttpResponse<String> response = second.response();
        if (response.statusCode() >= 500 && response.statusCode() <= 599) {
            return new ProviderResult.Unavailable(cause + "; Stripe answered " + response.statusCode() + " under the second key too");
        }
        ProviderResult result = StripeAnswers.cancel(expected, response.statusCode(), response.body(),
                response.headers().firstValue("Retry-After"), response.headers().firstValue(StripeAnswers.SHOULD_RETRY), clock.instant());
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
                .header(STRIPE_VERSION_HEADER, STRIPE_VERSION)
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
