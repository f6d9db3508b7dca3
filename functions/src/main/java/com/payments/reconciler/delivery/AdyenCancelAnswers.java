package com.payments.reconciler.delivery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.workflow.ProviderContractViolation;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

/**
 * What an answer to Adyen's {@code POST /payments/{paymentPspReference}/cancels} (Checkout API v71, the public
 * Adyen/adyen-openapi specification) means for the command. Pure: status and body in, a {@link ProviderResult} out, or a
 * {@link ProviderContractViolation} naming the field.
 *
 * <ul>
 *   <li>201 with {@code status = received}, this payment's {@code paymentPspReference}, our {@code merchantAccount} and
 *       the cancel's own {@code pspReference}: {@link ProviderResult.Acknowledged}. It is not the outcome: the
 *       CANCELLATION notification is ({@code provider.outcome}, docs/integration.md).</li>
 *   <li>429: {@link ProviderResult.Throttled} with its {@code Retry-After}; 503 with {@code Retry-After} likewise.</li>
 *   <li>A 5xx that is Adyen's own ServiceError (a JSON object naming {@code errorCode} or {@code errorType}) without
 *       {@code Transient-Error: true}: stored under the key as its final result (the specification's
 *       {@code IOEXCEPTION_RECEIVED}: "the message could have been received by the issuing party and been acted upon ...
 *       the (error) response is stored as the final result for the idempotency key"), so the same key would only replay
 *       it and a second key could cancel twice: {@link ProviderResult.Acknowledged} naming the stored error and no request
 *       reference (none was given). The CANCELLATION notification ends the command if Adyen acted on the cancel;
 *       without one, the providerOutcomeTimeout sweep escalates it to a person (docs/decisions.md, "Adyen: an error
 *       stored under the idempotency key").</li>
 *   <li>Any other 5xx (a gateway's, without Adyen's body) and 408: {@link ProviderResult.Unavailable} (the same key is sent
 *       again: nothing was stored under it).</li>
 *   <li>Any error answer with the header {@code Transient-Error: true}: {@link ProviderResult.Unavailable}, whatever its
 *       status. Adyen sends it when no message reached the issuer (the specification's {@code NO_CONNECTION_AVAILABLE}:
 *       "a subsequent request using the same idempotency key will be processed as if it was the first request"), so the
 *       same key is sent again later; without the header an error is stored under the key as its final result.</li>
 *   <li>422 (Adyen's "request validation error") and every other status (400, 403, 404, ...): outside the contract, the
 *       command is quarantined for a person with Adyen's {@code errorCode}. A captured payment is not refused here:
 *       Adyen answers its cancel {@code received} and reports {@code success = false} in the CANCELLATION notification,
 *       which ends the command REJECTED with Adyen's reason.</li>
 * </ul>
 * 401 is the client's: it reads the key again before calling an answer outside the contract.
 */
final class AdyenCancelAnswers {

    static final String RECEIVED = "received";
    /** Adyen's response header marking an error nothing was done for: retry under the same key (CheckoutService-v71). */
    static final String TRANSIENT_ERROR_HEADER = "Transient-Error";
    /** Adyen's pspReference is 16 characters; anything far longer is not one. */
    private static final int MAX_REFERENCE_LENGTH = 64;
    private static final ObjectMapper JSON = new ObjectMapper();

    private AdyenCancelAnswers() {
    }

    /**
     * @param operationId        the command's operation id (messages only)
     * @param paymentPspReference the payment the cancel was for (the path's {@code paymentPspReference})
     * @param merchantAccount    the merchant account the request named
     * @param retryAfter         the answer's {@code Retry-After}, parsed
     */
    static ProviderResult interpret(String operationId, String paymentPspReference, String merchantAccount,
                                    int status, String body, Optional<Duration> retryAfter) {
        return interpret(operationId, paymentPspReference, merchantAccount, status, body, retryAfter, false);
    }

    /**
     * As above, with whether the answer carried {@code Transient-Error: true}: an error answer with it is retried under
     * the same key (429 stays throttled, feeding the pacing), never quarantined.
     */
    static ProviderResult interpret(String operationId, String paymentPspReference, String merchantAccount,
                                    int status, String body, Optional<Duration> retryAfter, boolean transientError) {
        if (transientError && status != 429 && (status < 200 || status > 299)) {
            return new ProviderResult.Unavailable("Adyen answered " + status + " with " + TRANSIENT_ERROR_HEADER
                    + ": true (errorCode " + errorCode(body) + "): nothing was sent on, the same key is sent again");
        }
        String what = "Adyen answered " + status + " to the cancel for " + operationId;
        if (status >= 500 && status <= 599 && adyenServiceError(body) && !(status == 503 && retryAfter.isPresent())) {
            // Stored under the key as its final result: a resend replays it; the cancel may have been acted upon.
            return ProviderResult.Acknowledged.ofStoredError(status + " errorCode " + errorCode(body));
        }
        return switch (status) {
            case 201 -> {
                JsonNode json = json(what, status, body);
                expect(what, status, body, json, "status", RECEIVED);
                expect(what, status, body, json, "paymentPspReference", paymentPspReference);
                expect(what, status, body, json, "merchantAccount", merchantAccount);
                String reference = text(what, status, body, json, "pspReference");
                if (reference.length() > MAX_REFERENCE_LENGTH) {
                    throw ProviderContractViolation.ofCommand(what + ": field pspReference is longer than "
                            + MAX_REFERENCE_LENGTH + " characters", status, body);
                }
                yield new ProviderResult.Acknowledged(reference);
            }
            case 429 -> new ProviderResult.Throttled(status, retryAfter);
            case 503 -> retryAfter.isPresent() ? new ProviderResult.Throttled(status, retryAfter)
                    : new ProviderResult.Unavailable("Adyen answered " + status);
            case 408 -> new ProviderResult.Unavailable("Adyen answered " + status);
            case 422 -> throw ProviderContractViolation.ofCommand(what + ": a request validation error (errorCode "
                    + errorCode(body) + "); a person must look before it is sent again", status, body);
            default -> {
                if (status >= 500 && status <= 599) {
                    yield new ProviderResult.Unavailable("Adyen answered " + status);
                }
                throw ProviderContractViolation.ofCommand(what + ": unexpected status (errorCode " + errorCode(body)
                        + "); the cancel answers 201 (received), 429/5xx (retry)", status, body);
            }
        };
    }

    /** Whether an error body is Adyen's own ServiceError (a JSON object with {@code errorCode} or {@code errorType}), not a gateway's. */
    static boolean adyenServiceError(String body) {
        if (body == null || body.isBlank()) {
            return false;
        }
        try {
            JsonNode json = JSON.readTree(body);
            return json != null && json.isObject() && (json.path("errorCode").isTextual() || json.path("errorType").isTextual());
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether a {@code Transient-Error} header value says true (case-insensitive, as HTTP booleans are written). */
    static boolean transientError(Optional<String> header) {
        return header.map(String::trim).filter("true"::equalsIgnoreCase).isPresent();
    }

    /** Adyen's ServiceError {@code errorCode}, quoted, or {@code none}. */
    static String errorCode(String body) {
        if (body == null) {
            return "none";
        }
        try {
            JsonNode json = JSON.readTree(body);
            JsonNode code = json == null ? null : json.get("errorCode");
            return code != null && code.isValueNode() ? ProviderContractViolation.quote(code.asText()) : "none";
        } catch (IOException e) {
            return "none";
        }
    }

    private static JsonNode json(String what, int status, String body) {
        try {
            JsonNode json = JSON.readTree(body);
            if (json != null && json.isObject()) {
                return json;
            }
        } catch (IOException e) {
            // reported below without quoting the body
        }
        throw ProviderContractViolation.ofCommand(what + ": the body is not a JSON object (" + body.length() + " characters)", status, body);
    }

    private static void expect(String what, int status, String body, JsonNode json, String field, String expected) {
        String actual = text(what, status, body, json, field);
        if (!actual.equals(expected)) {
            throw ProviderContractViolation.ofCommand(what + ": field " + field + " is '" + ProviderContractViolation.quote(actual)
                    + "', expected '" + ProviderContractViolation.quote(expected) + "'", status, body);
        }
    }

    private static String text(String what, int status, String body, JsonNode json, String field) {
        JsonNode value = json.get(field);
        if (value == null || !value.isTextual() || value.asText().isBlank()) {
            throw ProviderContractViolation.ofCommand(what + ": field " + field + " is required, a non-empty string", status, body);
        }
        return value.asText();
    }
}
