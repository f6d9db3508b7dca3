package com.payments.reconciler.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.reconcile.Candidate;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The internal {@code provider.outcome} event (docs/integration.md): what a verified Adyen CANCELLATION notification
 * says about one release command, as the webhook receiver puts it on the ingestion queue. Only ids, a boolean, a bounded
 * reason and an instant: nothing else of the notification is carried.
 */
public final class ProviderOutcome {

    public static final String TYPE = "provider.outcome";
    public static final String PROVIDER_ADYEN = "adyen";
    /** Adyen's refusal reason is free text: kept to this many printable characters. */
    public static final int REASON_LIMIT = 120;
    private static final String OPERATION_PREFIX = Candidate.operationIdFor("");
    private static final Pattern REFERENCE = Pattern.compile("[A-Za-z0-9]{1,64}");
    private static final ObjectMapper JSON = new ObjectMapper();

    private ProviderOutcome() {
    }

    /**
     * The event for a verified CANCELLATION item, or empty when it is not about one of our commands (its
     * {@code merchantReference} is not an operation id this job issued, or its {@code pspReference} is not Adyen's form):
     * such a notification is acknowledged and dropped.
     */
    public static Optional<String> fromCancellation(JsonNode item) {
        String operationId = item.path("merchantReference").asText("");
        String reference = item.path("pspReference").asText("");
        if (!operationId.startsWith(OPERATION_PREFIX) || operationId.length() == OPERATION_PREFIX.length()
                || !REFERENCE.matcher(reference).matches()) {
            return Optional.empty();
        }
        String authorisationId = operationId.substring(OPERATION_PREFIX.length());
        boolean success = "true".equals(item.path("success").asText());
        ObjectNode event = JSON.createObjectNode()
                .put("version", 2)
                .put("type", TYPE)
                // One event per cancel and outcome: Adyen's retries of the same notification carry the same id.
                .put("eventId", "adyen-" + reference + "-" + (success ? "success" : "failure"))
                .put("authorisationId", authorisationId)
                .put("operationId", operationId)
                .put("provider", PROVIDER_ADYEN)
                .put("requestReference", reference)
                .put("success", success);
        if (!success) {
            event.put("reason", bounded(item.path("reason").asText("")));
        }
        String eventDate = item.path("eventDate").asText("");
        if (!eventDate.isEmpty()) {
            event.put("occurredAt", eventDate);
        }
        return Optional.of(event.toString());
    }

    static String bounded(String reason) {
        String printable = reason.replaceAll("[^\\x20-\\x7E]", "?");
        String shown = printable.length() <= REASON_LIMIT ? printable : printable.substring(0, REASON_LIMIT);
        return shown.isBlank() ? "(Adyen gave no reason)" : shown;
    }
}
