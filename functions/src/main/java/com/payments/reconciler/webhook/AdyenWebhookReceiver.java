package com.payments.reconciler.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.Metrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Receives one Adyen standard webhook request (a {@code NotificationRequest}: {@code notificationItems}, each a
 * {@code NotificationRequestItem}). Every item's HMAC signature is checked first ({@link AdyenSignature}); if any item is
 * unsigned or forged the whole request is refused with 401 and nothing is sent (Adyen signs every item, so such a
 * request is not Adyen's). Otherwise each CANCELLATION about one of our commands becomes a {@code provider.outcome}
 * event on the ingestion queue ({@link ProviderOutcome}), other event codes are acknowledged and dropped, and the answer
 * is Adyen's expected {@code [accepted]}. A failed send answers 500, and Adyen sends the request again.
 *
 * <p>A replay of a genuine notification (Adyen's own at-least-once retry, or anyone re-posting a captured one) cannot be
 * told from the first delivery here without state this receiver deliberately does not have (its role reads one secret
 * and sends to one queue); it carries the same event id, and ingestion's conditional write applies an outcome once
 * (docs/integration.md, "provider.outcome").
 *
 * <p>Bodies are never logged, neither a refused one nor an accepted one: only counts and verdicts.
 */
public final class AdyenWebhookReceiver {

    private static final Logger LOG = LoggerFactory.getLogger(AdyenWebhookReceiver.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    public static final String ACCEPTED = "[accepted]";
    /** A standard notification request holds a handful of items; anything far larger is not one. */
    public static final int MAX_BODY_CHARS = 256 * 1024;
    public static final String CANCELLATION = "CANCELLATION";

    /** The answer to the HTTP request. */
    public record Response(int status, String body) {
    }

    /** Where outcome events go: the ingestion queue. */
    @FunctionalInterface
    public interface OutcomeQueue {
        void send(String eventBody);
    }

    private final Supplier<? extends NotificationVerifier> signature;
    private final OutcomeQueue queue;
    private final EmfMetrics metrics;
    private final String merchantAccount;

    /**
     * @param signature       the current keys' verifier (read from its secret with a short cache)
     * @param merchantAccount this deployment's Adyen merchant account: an outcome naming another is refused
     */
    public AdyenWebhookReceiver(Supplier<? extends NotificationVerifier> signature, OutcomeQueue queue, EmfMetrics metrics,
                                String merchantAccount) {
        if (merchantAccount == null || merchantAccount.isBlank()) {
            throw new IllegalArgumentException("merchantAccount must name the Adyen merchant account, was empty");
        }
        this.signature = signature;
        this.queue = queue;
        this.metrics = metrics;
        this.merchantAccount = merchantAccount;
    }

    public Response receive(String body) {
        if (body == null || body.isEmpty() || body.length() > MAX_BODY_CHARS) {
            return refused(400, "body: required, a JSON NotificationRequest of at most " + MAX_BODY_CHARS + " characters");
        }
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (IOException e) {
            return refused(400, "body: not JSON (a NotificationRequest)");
        }
        JsonNode items = root == null ? null : root.get("notificationItems");
        if (items == null || !items.isArray() || items.isEmpty()) {
            return refused(400, "notificationItems: required, a non-empty array");
        }
        List<JsonNode> verified = new ArrayList<>();
        NotificationVerifier verifier = signature.get();
        for (JsonNode wrapper : items) {
            JsonNode item = wrapper.get("NotificationRequestItem");
            if (item == null || !item.isObject()) {
                return refused(400, "notificationItems[].NotificationRequestItem: required, an object");
            }
            AdyenSignature.Verdict verdict = verifier.verify(item);
            if (verdict != AdyenSignature.Verdict.VALID) {
                return refused(401, "notificationItems[" + verified.size() + "]: " + verdict
                        + " (additionalData.hmacSignature must be the HMAC of the item with the webhook key)");
            }
            verified.add(item);
        }
        List<String> events = new ArrayList<>();
        int dropped = 0;
        for (int i = 0; i < verified.size(); i++) {
            JsonNode item = verified.get(i);
            ProviderOutcome.Reading reading = CANCELLATION.equals(item.path("eventCode").asText())
                    ? ProviderOutcome.read(item, merchantAccount) : new ProviderOutcome.Reading.NotOurs();
            switch (reading) {
                case ProviderOutcome.Reading.Outcome outcome -> events.add(outcome.event());
                case ProviderOutcome.Reading.NotOurs notOurs -> dropped++;
                case ProviderOutcome.Reading.Mismatch mismatch -> {
                    // Signed, so Adyen's; but not an outcome this deployment may apply. 422: nothing is queued from the
                    // request, Adyen keeps it and retries, and the refusal shows in the webhook's delivery log there.
                    return refused(422, "notificationItems[" + i + "]." + mismatch.field() + ": " + mismatch.why());
                }
            }
        }
        int outcomes = 0;
        for (String event : events) {
            try {
                queue.send(event);
            } catch (RuntimeException e) {
                LOG.warn("could not put a provider outcome on the ingestion queue ({}); answered 500 so that Adyen sends again",
                        e.getClass().getSimpleName());
                return new Response(500, "not accepted: try again");
            }
            outcomes++;
        }
        metrics.count(Map.of(Metrics.WEBHOOK_OUTCOMES, (long) outcomes));
        LOG.info("webhook accepted: {} items, {} provider outcomes queued, {} not about our cancels", verified.size(), outcomes, dropped);
        return new Response(200, ACCEPTED);
    }

    /** The answer to a request without this deployment's basic-auth credentials: counted and logged like any refusal. */
    Response unauthenticated() {
        return refused(401, "Authorization: required, the webhook's basic-auth credentials");
    }

    private Response refused(int status, String why) {
        metrics.count(Map.of(Metrics.WEBHOOK_REFUSED, 1L));
        // The reason names the field and the verdict only: never the body, a signature or a reference from it.
        LOG.warn("webhook refused ({}): {}", status, why);
        return new Response(status, "refused: " + why);
    }
}
