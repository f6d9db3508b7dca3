package com.payments.reconciler.delivery;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.workflow.ProviderContractViolation;
import com.payments.reconciler.workflow.Timing;

import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
 * Releases a hold through Adyen's Checkout API (v71): {@code POST {base}/payments/{paymentPspReference}/cancels} with
 * {@code X-API-Key} (the API key from the provider secret, {@link ProviderCredentials}), {@code Idempotency-Key}
 * {@link AdyenIdempotencyKey#of} the operation id, and the body {@code {"merchantAccount", "reference"}} where
 * {@code reference} is the operation id: Adyen's CANCELLATION notification names it, and ingestion finds the command
 * by it. Adyen answers 201 {@code received} ({@link ProviderResult.Acknowledged}); {@link AdyenCancelAnswers} maps every
 * answer. The same timeouts and no-redirect client as the generic contract's.
 *
 * <p>No status lookup: Adyen's Checkout API has no GET for a payment or a cancel (the outcome is only in the
 * notification), so {@link #lookUp} is the interface's {@link HoldLookup.NotOffered}.
 */
public final class AdyenProviderClient implements ProviderClient {

    private static final Logger LOG = LoggerFactory.getLogger(AdyenProviderClient.class);

    /** Adyen's limit on the cancel's {@code reference}. */
    static final int MAX_REFERENCE_LENGTH = 80;
    static final String API_KEY_HEADER = "X-API-Key";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The payment's pspReference for a command: the authorisation's provider reference (authorisation.created v2). */
    @FunctionalInterface
    public interface PaymentReferences {
        Optional<String> of(PendingCommand command);
    }

    private final HttpClient http;
    private final URI baseUrl;
    private final ProviderCredentials credentials;
    private final String merchantAccount;
    private final PaymentReferences payments;
    private final Duration requestTimeout;
    private final Clock clock;

    public AdyenProviderClient(HttpClient http, URI baseUrl, ProviderCredentials credentials, String merchantAccount,
                               PaymentReferences payments, Duration requestTimeout, Clock clock) {
        if (!"https".equals(baseUrl.getScheme()) && !"http".equals(baseUrl.getScheme())) {
            throw new IllegalArgumentException("provider base URL must be http(s)://host[:port][/path], e.g. "
                    + "https://checkout-test.adyen.com/v71, was " + baseUrl);
        }
        if (merchantAccount == null || merchantAccount.isBlank()) {
            throw new IllegalArgumentException("merchantAccount must name the Adyen merchant account, was empty");
        }
        this.http = http;
        this.baseUrl = baseUrl;
        this.credentials = credentials;
        this.merchantAccount = merchantAccount;
        this.payments = payments;
        this.requestTimeout = requestTimeout;
        this.clock = clock;
    }

    /** The production client: the {@link Timing} timeouts, HTTP/1.1, no redirects. */
    public static AdyenProviderClient create(URI baseUrl, ProviderCredentials credentials, String merchantAccount,
                                             PaymentReferences payments, Clock clock) {
        return new AdyenProviderClient(HttpProviderClient.httpClient(Timing.PROVIDER_CONNECT_TIMEOUT), baseUrl, credentials,
                merchantAccount, payments, Timing.PROVIDER_REQUEST_TIMEOUT, clock);
    }

    @Override
    public void prepare() {
        credentials.apiKey();
    }

    @Override
    public ProviderResult release(PendingCommand command) {
        String payment = payments.of(command).filter(p -> !p.isBlank()).orElseThrow(() -> ProviderContractViolation.ofCommand(
                "no Adyen payment pspReference for " + command.operationId()
                        + ": field providerReference of its authorisation.created is required for provider adyen", 0, ""));
        if (command.operationId().length() > MAX_REFERENCE_LENGTH) {
            throw ProviderContractViolation.ofCommand("operation id of " + command.operationId().length() + " characters for "
                    + "authorisation " + command.authorisationId() + ": Adyen's reference takes at most "
                    + MAX_REFERENCE_LENGTH + " (authorisationId at most " + (MAX_REFERENCE_LENGTH - "release-hold:".length())
                    + " characters with provider adyen)", 0, "");
        }
        String key = credentials.current();
        HttpResponse<String> response;
        try {
            response = send(command, payment, key);
            if (response.statusCode() == 401 && credentials.replacedAfterRefusal(key)) {
                return new ProviderResult.Unavailable("Adyen answered 401: the secret holds a newer API key, which the next request sends");
            }
        } catch (HttpTimeoutException e) {
            return new ProviderResult.Unavailable("no response within " + requestTimeout.toMillis() + " ms");
        } catch (IOException e) {
            return new ProviderResult.Unavailable("connection failed: " + e.getClass().getSimpleName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ProviderResult.Unavailable("interrupted while waiting for the provider");
        }
        if (response.statusCode() == 401) {
            throw ProviderContractViolation.ofEveryCommand("Adyen answered 401 for " + command.operationId()
                    + ": it refused our API key (" + credentials + ") even after reading it again; header " + API_KEY_HEADER);
        }
        ProviderResult result = AdyenCancelAnswers.interpret(command.operationId(), payment, merchantAccount, response.statusCode(),
                response.body(), RetryAfter.parse(response.headers().firstValue("Retry-After").orElse(null), clock.instant()),
                AdyenCancelAnswers.transientError(response.headers().firstValue(AdyenCancelAnswers.TRANSIENT_ERROR_HEADER)));
        if (result instanceof ProviderResult.Acknowledged ack && ack.storedErrorIfAny().isPresent()) {
            // Said once, here: the command now waits for the notification or the providerOutcomeTimeout escalation.
            LOG.warn("{}: Adyen answered {} (errorCode {}) without Transient-Error, stored under the idempotency key as the cancel's "
                            + "final result; the cancel may have been acted upon: the outcome is awaited from its CANCELLATION notification, "
                            + "and without one the command is escalated after providerOutcomeTimeout", command.operationId(),
                    response.statusCode(), AdyenCancelAnswers.errorCode(response.body()));
        }
        return result;
    }

    private HttpResponse<String> send(PendingCommand command, String payment, String key) throws IOException, InterruptedException {
        ObjectNode body = JSON.createObjectNode()
                .put("merchantAccount", merchantAccount)
                .put("reference", command.operationId());
        HttpRequest request = HttpRequest.newBuilder(cancelUri(payment))
                .timeout(requestTimeout)
                .header(API_KEY_HEADER, key)
                .header(HttpProviderClient.IDEMPOTENCY_KEY, AdyenIdempotencyKey.of(command.operationId()))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private URI cancelUri(String payment) {
        String base = baseUrl.toString();
        String prefix = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        return URI.create(prefix + "/payments/" + HttpProviderClient.pathSegment(payment) + "/cancels");
    }

    @Override
    public String toString() {
        return "AdyenProviderClient[" + baseUrl + ", merchant account " + merchantAccount + "]";
    }
}
