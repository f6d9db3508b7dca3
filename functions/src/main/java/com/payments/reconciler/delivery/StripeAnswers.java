package com.payments.reconciler.delivery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.workflow.ProviderContractViolation;

import java.io.IOException;
import java.time.Instant;
import java.util.Optional;

/**
 * What Stripe's answers mean (docs/integration.md, "Stripe adapter"). Pure: {@link StripeAdapter} makes the request and
 * hands the status, body and {@code Retry-After} here. Shapes as Stripe's OpenAPI specification (stripe/openapi) gives
 * them: a PaymentIntent object ({@code "object": "payment_intent"}, {@code id}, {@code status},
 * {@code cancellation_reason}, {@code canceled_at}), and errors as {@code {"error": {"type", "code", "message",
 * "payment_intent"?, ...}}}.
 *
 * <p>Cancel ({@code POST /v1/payment_intents/{intent}/cancel}):
 * <ul>
 *   <li>200 with the PaymentIntent {@code canceled}: released, the PaymentIntent id its reference.</li>
 *   <li>400 {@code payment_intent_unexpected_state} naming the PaymentIntent: {@code canceled} is released (the hold is
 *   gone, whoever cancelled it: {@link #cancelledByUs} tells the log which); {@code succeeded} (captured) ends the command
 *   REJECTED {@link ForgottenKeys#CODE_CAPTURED}, the lookup's answer for a captured hold, never an error that stops the
 *   night; any other state is outside the contract.</li>
 *   <li>404 {@code resource_missing}: quarantined, not REJECTED: the key sees no such PaymentIntent, which a key of the
 *   other mode or of another account would answer too.</li>
 *   <li>A cancelled PaymentIntent whose {@code amount}, {@code currency} or {@code livemode} is not the command's (the key's
 *   mode): quarantined.</li>
 *   <li>{@code Stripe-Should-Retry: true} on an error that would be outside the contract: retried under the same key.</li>
 *   <li>429: throttled, its {@code Retry-After} (when sent) feeding the pacing. 409 (a request with the same key still
 *   running at Stripe), 408 and 5xx: unavailable, retried under the same key.</li>
 *   <li>400 {@code idempotency_error} (the key was first used with other parameters) and everything else: outside the
 *   contract, the command quarantined with the answer.</li>
 * </ul>
 * Lookup ({@code GET /v1/payment_intents/{intent}}) translates Stripe's status into the contract's hold states:
 * {@code canceled} → {@link ForgottenKeys#RELEASED}, {@code requires_capture} → {@link ForgottenKeys#ACTIVE},
 * {@code succeeded} → {@link ForgottenKeys#CAPTURED}; another state passes through, and {@link ForgottenKeys} finds it
 * outside the contract. Messages quote ids and codes only, never Stripe's message text.
 */
final class StripeAnswers {

    static final String CANCEL_REASON = "abandoned";
    static final String STATUS_CANCELED = "canceled";
    static final String STATUS_REQUIRES_CAPTURE = "requires_capture";
    static final String STATUS_SUCCEEDED = "succeeded";
    static final String UNEXPECTED_STATE = "payment_intent_unexpected_state";
    static final String RESOURCE_MISSING = "resource_missing";
    static final String IDEMPOTENCY_ERROR = "idempotency_error";
    private static final ObjectMapper JSON = new ObjectMapper();

    private StripeAnswers() {
    }

    /**
     * What a cancelled PaymentIntent must show to count as this command's release: its id, and when known the command's
     * amount and currency (a hold of another amount is not the one decided: a person looks) and the key's mode
     * ({@code livemode}: a test key's answer never releases a live hold).
     */
    record Expected(String paymentIntent, String operationId, Optional<Long> amountMinor, Optional<String> currency,
                    Optional<Boolean> livemode) {
        /** Only the id: for answers that name no PaymentIntent fields beyond it. */
        static Expected only(String paymentIntent, String operationId) {
            return new Expected(paymentIntent, operationId, Optional.empty(), Optional.empty(), Optional.empty());
        }
    }

    /** Stripe's answer to the cancel request for {@code paymentIntent}, sent under {@code operationId}. */
    static ProviderResult cancel(String paymentIntent, String operationId, int status, String body, Optional<String> retryAfter, Instant now) {
        return cancel(Expected.only(paymentIntent, operationId), status, body, retryAfter, Optional.empty(), now);
    }

    /**
     * Stripe's answer to the cancel, checked against {@code expected}; {@code shouldRetry} is the answer's
     * {@value #SHOULD_RETRY} header: {@code true} turns an error that would be outside the contract into a retry under the
     * same key (Stripe says the request may succeed again); its {@code false} on a 5xx is the adapter's to act on.
     */
    static ProviderResult cancel(Expected expected, int status, String body, Optional<String> retryAfter, Optional<String> shouldRetry,
                                 Instant now) {
        String paymentIntent = expected.paymentIntent();
        String operationId = expected.operationId();
        String what = "Stripe answered " + status + " to the cancel of " + paymentIntent + " for " + operationId;
        switch (status) {
            case 200 -> {
                JsonNode intent = object(what, status, body);
                samePaymentIntent(what, status, body, intent, paymentIntent, "");
                String state = text(what, status, body, intent, "status", "");
                if (!state.equals(STATUS_CANCELED)) {
                    throw ProviderContractViolation.ofCommand(what + ": field status is '" + ProviderContractViolation.quote(state)
                            + "', expected '" + STATUS_CANCELED + "'", status, body);
                }
                sameHold(what, status, body, intent, expected, "");
                return new ProviderResult.Released(paymentIntent);
            }
            case 429 -> {
                return new ProviderResult.Throttled(status, RetryAfter.parse(retryAfter.orElse(null), now));
            }
            case 408, 409 -> {
                return new ProviderResult.Unavailable("Stripe answered " + status);
            }
            default -> {
                if (status >= 500 && status <= 599) {
                    return new ProviderResult.Unavailable("Stripe answered " + status);
                }
            }
        }
        JsonNode error = error(what, status, body);
        String type = text(what, status, body, error, "type", "error.");
        String code = error.path("code").isTextual() ? error.get("code").asText() : "";
        if (status == 404 && code.equals(RESOURCE_MISSING)) {
            // Not "the hold does not exist": a key of the other mode (test against live) or of another account sees no such
            // PaymentIntent either. A REJECTED command could not be requeued; quarantined, a person checks the key and
            // requeues it.
            throw ProviderContractViolation.ofCommand(what + ": Stripe shows no PaymentIntent " + paymentIntent + " to this key ("
                    + RESOURCE_MISSING + "); a key of the other mode (test or live) or of another account sees none either: "
                    + "check the key in the provider secret before requeueing", status, body);
        }
        if (status == 400 && type.equals(IDEMPOTENCY_ERROR)) {
            throw ProviderContractViolation.ofCommand(what + ": Stripe holds a different request under this Idempotency-Key "
                    + "(error.type " + IDEMPOTENCY_ERROR + "); the request changed after it was first sent", status, body);
        }
        if (status == 400 && code.equals(UNEXPECTED_STATE)) {
            JsonNode intent = error.path("payment_intent");
            if (!intent.isObject()) {
                throw ProviderContractViolation.ofCommand(what + ": field error.payment_intent is required with error.code "
                        + UNEXPECTED_STATE + ", the PaymentIntent naming its state", status, body);
            }
            samePaymentIntent(what, status, body, intent, paymentIntent, "error.payment_intent.");
            String state = text(what, status, body, intent, "status", "error.payment_intent.");
            return switch (state) {
                case STATUS_CANCELED -> {
                    sameHold(what, status, body, intent, expected, "error.payment_intent.");
                    yield new ProviderResult.Released(paymentIntent);
                }
                case STATUS_SUCCEEDED -> new ProviderResult.Rejected(ForgottenKeys.CODE_CAPTURED,
                        "Stripe: PaymentIntent " + paymentIntent + " was captured (status succeeded): there is nothing left to release");
                default -> throw ProviderContractViolation.ofCommand(what + ": field error.payment_intent.status is '"
                        + ProviderContractViolation.quote(state) + "', expected " + STATUS_CANCELED + " or " + STATUS_SUCCEEDED
                        + " (a PaymentIntent in requires_capture is cancelled, not refused)", status, body);
            };
        }
        if (shouldRetry(shouldRetry).orElse(false)) {
            return new ProviderResult.Unavailable("Stripe answered " + status + " (error.code '" + ProviderContractViolation.quote(code)
                    + "') with " + SHOULD_RETRY + ": true: sent again under the same key");
        }
        throw ProviderContractViolation.ofCommand(what + ": outside the adapter's contract (error.type '"
                + ProviderContractViolation.quote(type) + "', error.code '" + ProviderContractViolation.quote(code)
                + "'); it answers 200 (canceled), 400 " + UNEXPECTED_STATE + " (canceled or succeeded), "
                + "409/408/5xx (retry), 429 (slow down)", status, body);
    }

    /** Stripe's response header saying whether the same request may succeed if sent again (absent: Stripe does not say). */
    static final String SHOULD_RETRY = "Stripe-Should-Retry";

    /** The {@value #SHOULD_RETRY} header as a boolean, when Stripe sent one of its two values. */
    static Optional<Boolean> shouldRetry(Optional<String> header) {
        return header.map(String::trim).flatMap(v -> v.equalsIgnoreCase("true") ? Optional.of(true)
                : v.equalsIgnoreCase("false") ? Optional.of(false) : Optional.empty());
    }

    /**
     * A cancelled PaymentIntent is this command's hold only with the command's amount and currency and in the key's mode;
     * otherwise the command is quarantined (the cancellation stands; a person compares the hold with the decision).
     * Stripe's PaymentIntent always carries {@code amount}, {@code currency} and {@code livemode}; an amount or currency
     * left out is not compared (the local fake, which knows no amounts, leaves both out), a different one is refused.
     */
    private static void sameHold(String what, int status, String body, JsonNode intent, Expected expected, String prefix) {
        if (expected.livemode().isPresent()) {
            JsonNode live = intent.get("livemode");
            if (live == null || !live.isBoolean() || live.booleanValue() != expected.livemode().get()) {
                throw ProviderContractViolation.ofCommand(what + ": field " + prefix + "livemode is " + (live == null ? "absent" : live.toString())
                        + ", expected " + expected.livemode().get() + " (the mode of the secret's key)", status, body);
            }
        }
        if (expected.amountMinor().isPresent()) {
            JsonNode amount = intent.get("amount");
            if (amount != null && (!amount.isIntegralNumber() || amount.longValue() != expected.amountMinor().get())) {
                throw ProviderContractViolation.ofCommand(what + ": field " + prefix + "amount is " + (amount == null ? "absent" : amount.toString())
                        + ", the command releases " + expected.amountMinor().get() + ": not the hold the night decided", status, body);
            }
        }
        if (expected.currency().isPresent()) {
            JsonNode currency = intent.get("currency");
            // Stripe writes ISO 4217 codes in lower case; the contract in upper case.
            if (currency != null && (!currency.isTextual() || !currency.textValue().equalsIgnoreCase(expected.currency().get()))) {
                throw ProviderContractViolation.ofCommand(what + ": field " + prefix + "currency is '"
                        + (currency == null ? "absent" : ProviderContractViolation.quote(currency.asText())) + "', the command's is "
                        + expected.currency().get() + ": not the hold the night decided", status, body);
            }
        }
    }

    /**
     * Whether a cancelled PaymentIntent was cancelled by this reconciler: with our reason ({@value #CANCEL_REASON}), at or
     * after the command's first attempt. Another reason or an earlier time means someone else (a person in the
     * dashboard, or Stripe's own cancellation of an uncaptured PaymentIntent after 7 days): the hold is released all the
     * same, so the command is DELIVERED; this only tells the log which.
     */
    static boolean cancelledByUs(Optional<String> cancellationReason, Optional<Instant> canceledAt, Optional<Instant> firstAttemptAt) {
        if (cancellationReason.isEmpty() || !cancellationReason.get().equals(CANCEL_REASON)) {
            return false;
        }
        // Stripe's canceled_at has seconds; the first-attempt stamp milliseconds.
        return canceledAt.isEmpty() || firstAttemptAt.isEmpty()
                || !canceledAt.get().isBefore(firstAttemptAt.get().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
    }

    /** Stripe's answer to {@code GET /v1/payment_intents/{intent}}, in the contract's hold states. */
    static HoldLookup lookup(String paymentIntent, String operationId, int status, String body, Optional<String> retryAfter, Instant now) {
        String what = "Stripe answered " + status + " to the lookup of " + paymentIntent + " for " + operationId;
        if (status == 200) {
            JsonNode intent = object(what, status, body);
            samePaymentIntent(what, status, body, intent, paymentIntent, "");
            JsonNode state = intent.get("status");
            Optional<String> translated = state != null && state.isTextual() ? Optional.of(switch (state.asText()) {
                case STATUS_CANCELED -> ForgottenKeys.RELEASED;
                case STATUS_REQUIRES_CAPTURE -> ForgottenKeys.ACTIVE;
                case STATUS_SUCCEEDED -> ForgottenKeys.CAPTURED;
                default -> "stripe:" + state.asText();
            }) : Optional.empty();
            return new HoldLookup.Answered(translated, Optional.of(paymentIntent), status, body);
        }
        if (status == 429) {
            return new HoldLookup.NoAnswer(new ProviderResult.Throttled(status, RetryAfter.parse(retryAfter.orElse(null), now)));
        }
        if (status == 408 || status == 409 || (status >= 500 && status <= 599)) {
            return new HoldLookup.NoAnswer(new ProviderResult.Unavailable("Stripe answered " + status));
        }
        JsonNode error = error(what, status, body);
        if (status == 404 && RESOURCE_MISSING.equals(error.path("code").asText())) {
            return new HoldLookup.NotOffered("Stripe has no PaymentIntent " + paymentIntent + " (" + RESOURCE_MISSING + ")");
        }
        throw ProviderContractViolation.ofCommand(what + ": outside the adapter's contract; the lookup answers 200 (the "
                + "PaymentIntent), 404 " + RESOURCE_MISSING + ", 409/408/5xx (retry), 429 (slow down)", status, body);
    }

    private static JsonNode object(String what, int status, String body) {
        try {
            JsonNode json = JSON.readTree(body);
            if (json != null && json.isObject()) {
                return json;
            }
        } catch (IOException e) {
            // reported below without quoting the body
        }
        throw ProviderContractViolation.ofCommand(what + ": the body is not a JSON object (" + (body == null ? 0 : body.length())
                + " characters)", status, body);
    }

    private static JsonNode error(String what, int status, String body) {
        JsonNode error = object(what, status, body).path("error");
        if (!error.isObject()) {
            throw ProviderContractViolation.ofCommand(what + ": field error is required, an object {type, code, message}", status, body);
        }
        return error;
    }

    private static void samePaymentIntent(String what, int status, String body, JsonNode intent, String paymentIntent, String prefix) {
        String object = text(what, status, body, intent, "object", prefix);
        if (!object.equals("payment_intent")) {
            throw ProviderContractViolation.ofCommand(what + ": field " + prefix + "object is '" + ProviderContractViolation.quote(object)
                    + "', expected 'payment_intent'", status, body);
        }
        String id = text(what, status, body, intent, "id", prefix);
        if (!id.equals(paymentIntent)) {
            throw ProviderContractViolation.ofCommand(what + ": field " + prefix + "id is '" + ProviderContractViolation.quote(id)
                    + "', another PaymentIntent", status, body);
        }
    }

    private static String text(String what, int status, String body, JsonNode json, String field, String prefix) {
        JsonNode value = json.get(field);
        if (value == null || !value.isTextual() || value.asText().isBlank()) {
            throw ProviderContractViolation.ofCommand(what + ": field " + prefix + field + " is required, a non-empty string", status, body);
        }
        return value.asText();
    }

    /** A PaymentIntent's {@code cancellation_reason} and {@code canceled_at} (Unix seconds), from an object that has them. */
    static Optional<String> cancellationReason(JsonNode intent) {
        JsonNode reason = intent.path("cancellation_reason");
        return reason.isTextual() ? Optional.of(reason.asText()) : Optional.empty();
    }

    static Optional<Instant> canceledAt(JsonNode intent) {
        JsonNode at = intent.path("canceled_at");
        return at.isIntegralNumber() ? Optional.of(Instant.ofEpochSecond(at.asLong())) : Optional.empty();
    }
}
