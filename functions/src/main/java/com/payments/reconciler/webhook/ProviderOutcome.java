package com.payments.reconciler.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.reconcile.Candidate;

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

    /** What a verified CANCELLATION item is for this deployment. */
    public sealed interface Reading {
        /** About one of our commands: the {@code provider.outcome} event to queue. */
        record Outcome(String event) implements Reading {
        }

        /** Not about one of our operations (another reference scheme): acknowledged and dropped. */
        record NotOurs() implements Reading {
        }

        /** Names one of our operations but breaks what it must carry (field named): refused, nothing queued. */
        record Mismatch(String field, String why) implements Reading {
        }
    }

    /**
     * Reads a verified CANCELLATION item. Ours when its {@code merchantReference} is an operation id this job issued; then
     * it must also name this deployment's merchant account ({@code merchantAccountCode}: a company-level webhook signs
     * every merchant account's notifications with the same key) and carry the payment it cancels
     * ({@code originalReference}, checked against the command's {@code providerReference} by ingestion's condition) and the
     * cancel's own {@code pspReference}, else it is a {@link Reading.Mismatch}, and nothing is queued.
     */
    public static Reading read(JsonNode item, String merchantAccount) {
        String operationId = item.path("merchantReference").asText("");
        if (!operationId.startsWith(OPERATION_PREFIX) || operationId.length() == OPERATION_PREFIX.length()) {
            return new Reading.NotOurs();
        }
        if (!merchantAccount.equals(item.path("merchantAccountCode").asText(""))) {
            return new Reading.Mismatch("merchantAccountCode", "not this deployment's merchant account");
        }
        String reference = item.path("pspReference").asText("");
        if (!REFERENCE.matcher(reference).matches()) {
            return new Reading.Mismatch("pspReference", "required, 1-64 characters of A-Z a-z 0-9");
        }
        String payment = item.path("originalReference").asText("");
        if (!REFERENCE.matcher(payment).matches()) {
            return new Reading.Mismatch("originalReference", "required, the payment's pspReference (1-64 characters of A-Z a-z 0-9)");
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
                .put("paymentReference", payment)
                .put("success", success);
        if (!success) {
            event.put("reason", bounded(item.path("reason").asText("")));
        }
        String eventDate = item.path("eventDate").asText("");
        if (!eventDate.isEmpty()) {
            event.put("occurredAt", eventDate);
        }
        return new Reading.Outcome(event.toString());
    }

    static String bounded(String reason) {
        String printable = reason.replaceAll("[^\\x20-\\x7E]", "?");
        String shown = printable.length() <= REASON_LIMIT ? printable : printable.substring(0, REASON_LIMIT);
        return shown.isBlank() ? "(Adyen gave no reason)" : shown;
    }
}
