package com.payments.reconciler.local.provider;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Stripe's wire format as the {@link SimulatedProvider} speaks it on {@code /v1/payment_intents/...}: the shapes of
 * Stripe's OpenAPI specification (stripe/openapi) for a PaymentIntent and for its errors
 * ({@code {"error": {"type", "code", "message", "payment_intent"?}}}), and the PaymentIntent id of each synthetic
 * authorisation. The fake holds one PaymentIntent per authorisation, in {@code requires_capture} until cancelled
 * ({@code canceled}, reason {@code abandoned}) or captured ({@code succeeded}); its id is {@code pi_} and the authorisation
 * id's bytes in hex written with letters (a-p), so the fake needs no table of them and the synthetic events can carry it.
 */
public final class StripeWire {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern PAYMENT_INTENT = Pattern.compile("pi_((?:[a-p]{2}){1,125})");
    /** Hex written with the letters a-p for 0-f: an id of digits would become a run of digits that may pass Luhn's check, which ingestion refuses as a card number. */
    private static final String NIBBLES = "abcdefghijklmnop";
    /** Stripe's documented values of {@code cancellation_reason}. */
    static final Set<String> CANCELLATION_REASONS = Set.of("duplicate", "fraudulent", "requested_by_customer", "abandoned");

    private StripeWire() {
    }

    /** The PaymentIntent id the synthetic authorisation {@code authorisationId} carries as its providerReference. */
    public static String paymentIntentFor(String authorisationId) {
        StringBuilder id = new StringBuilder("pi_");
        for (byte b : authorisationId.getBytes(StandardCharsets.UTF_8)) {
            id.append(NIBBLES.charAt((b >> 4) & 0xf)).append(NIBBLES.charAt(b & 0xf));
        }
        return id.toString();
    }

    /** The authorisation a PaymentIntent id of this fake stands for; empty for an id it never made (Stripe's 404). */
    public static Optional<String> authorisationOf(String paymentIntent) {
        var matcher = PAYMENT_INTENT.matcher(paymentIntent);
        if (!matcher.matches()) {
            return Optional.empty();
        }
        String letters = matcher.group(1);
        byte[] bytes = new byte[letters.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (NIBBLES.indexOf(letters.charAt(2 * i)) << 4 | NIBBLES.indexOf(letters.charAt(2 * i + 1)));
        }
        return Optional.of(new String(bytes, StandardCharsets.UTF_8));
    }

    /** A PaymentIntent object in {@code status}; a cancelled one with its reason and time (Unix seconds). */
    static ObjectNode paymentIntent(String id, String status, String cancellationReason, Long canceledAtSeconds) {
        // The fake knows no amounts or currencies (the commands carry them, not the events it was started with): the amount
        // fields and currency are left out, and the adapter compares them only when present, as Stripe always sends them.
        ObjectNode intent = JSON.createObjectNode().put("id", id).put("object", "payment_intent")
                .put("capture_method", "manual")
                .put("livemode", false)
                .put("status", status);
        if (canceledAtSeconds == null) {
            intent.putNull("canceled_at").putNull("cancellation_reason");
        } else {
            intent.put("canceled_at", canceledAtSeconds).put("cancellation_reason", cancellationReason);
        }
        intent.putObject("metadata");
        return intent;
    }

    /** Stripe's error envelope. */
    static ObjectNode error(String type, String code, String message) {
        ObjectNode body = JSON.createObjectNode();
        ObjectNode error = body.putObject("error").put("type", type);
        if (code != null) {
            error.put("code", code);
        }
        error.put("message", message);
        return body;
    }

    /** The cancel of a PaymentIntent in {@code intent}'s state, which cannot be cancelled: 400, the PaymentIntent attached. */
    static ObjectNode unexpectedState(ObjectNode intent) {
        ObjectNode body = error("invalid_request_error", "payment_intent_unexpected_state",
                "You cannot cancel this PaymentIntent because it has a status of " + intent.get("status").asText()
                        + ". Only a PaymentIntent with one of the following statuses may be canceled: requires_payment_method, "
                        + "requires_capture, requires_confirmation, requires_action, processing.");
        ((ObjectNode) body.get("error")).set("payment_intent", intent);
        return body;
    }

    static ObjectNode resourceMissing(String paymentIntent) {
        ObjectNode body = error("invalid_request_error", "resource_missing", "No such payment_intent: '" + paymentIntent + "'");
        ((ObjectNode) body.get("error")).put("param", "intent");
        return body;
    }

    static ObjectNode idempotencyError(String key) {
        return error("idempotency_error", null, "Keys for idempotent requests can only be used with the same parameters they were "
                + "first used with. Try using a key other than '" + key + "' if you meant to execute a different request.");
    }

    /** A form-encoded body as its parameters, in order; a malformed pair is refused by the caller. */
    static Map<String, String> form(byte[] body) {
        Map<String, String> params = new LinkedHashMap<>();
        String text = new String(body, StandardCharsets.UTF_8);
        if (text.isEmpty()) {
            return params;
        }
        for (String pair : text.split("&")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(pair);
            }
            params.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return params;
    }
}
