package com.payments.reconciler.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The card-data screen's one exemption, as a table: an Adyen pspReference of 16 digits that passes Luhn
 * ({@value #PSP}) is let through exactly where the contract puts a provider reference, in Adyen's exact form, and refused
 * everywhere else. Known-bad twins: the screen without the exemption refuses the genuine references (the reviewer's
 * finding: one numeric pspReference in ten was dead-lettered as card data), and an exemption by field name alone lets
 * the same digits through in another event type or nested deeper ({@link #bothKnownBadScreensFailTheTable}).
 */
class ProviderReferenceScreenTest {

    /** A numeric Adyen-form pspReference that passes Luhn (so the plain screen takes it for a card number). */
    static final String PSP = "8815658961765255";
    private static final ObjectMapper JSON = new ObjectMapper();

    private record Row(String name, String event, boolean refused) {
    }

    private static String created(String extra) {
        return "{\"version\":2,\"type\":\"authorisation.created\",\"eventId\":\"evt-1\",\"authorisationId\":\"auth-1\",\"amountMinor\":100,"
                + "\"currency\":\"EUR\",\"merchantId\":\"m-1\",\"authorisedAt\":\"2026-11-20T10:00:00Z\"" + extra + "}";
    }

    private static String outcome(String eventId, String requestReference, String paymentReference) {
        return "{\"version\":2,\"type\":\"provider.outcome\",\"eventId\":\"" + eventId + "\",\"authorisationId\":\"auth-1\","
                + "\"operationId\":\"release-hold:auth-1\",\"provider\":\"adyen\",\"requestReference\":\"" + requestReference
                + "\",\"paymentReference\":\"" + paymentReference + "\",\"success\":true}";
    }

    static final List<Row> TABLE = List.of(
            new Row("created: providerReference, 16 digits (Adyen's form)", created(",\"providerReference\":\"" + PSP + "\""), false),
            new Row("created: providerReference, letters and digits", created(",\"providerReference\":\"V4HZ4RBFJGXXGN82\""), false),
            new Row("created: providerReference, a Stripe id", created(",\"providerReference\":\"pi_3MtwBwLkdIwHu7ix28a3tqPa\""), false),
            new Row("outcome: references and event id of Adyen's form", outcome("adyen-" + PSP + "-success", PSP, PSP), false),
            new Row("created: the same digits in merchantId", created(",\"merchantId\":\"" + PSP + "\"").replace("\"merchantId\":\"m-1\",", ""), true),
            new Row("created: providerReference with spaces", created(",\"providerReference\":\"8815 6589 6176 5255\""), true),
            new Row("created: providerReference with dashes", created(",\"providerReference\":\"8815-6589-6176-5255\""), true),
            new Row("created: providerReference of 15 digits (an Amex)", created(",\"providerReference\":\"378282246310005\""), true),
            new Row("created: providerReference as a JSON number", created(",\"providerReference\":" + PSP), true),
            new Row("created: providerReference, a card glued to a letter", created(",\"providerReference\":\"x" + PSP + "\""), true),
            new Row("created: nested providerReference", created(",\"meta\":{\"providerReference\":\"" + PSP + "\"}"), true),
            new Row("settlement: providerReference (not its field)", "{\"version\":2,\"type\":\"settlement.posted\",\"eventId\":\"e\","
                    + "\"providerReference\":\"" + PSP + "\"}", true),
            new Row("outcome: an event id of another form", outcome("evt-" + PSP, "C000000000000018", "PAYMENTREF000001"), true),
            new Row("outcome: authorisationId of 16 digits", outcome("adyen-" + PSP + "-success", PSP, PSP)
                    .replace("\"auth-1\"", "\"" + PSP + "\""), true),
            new Row("created: the type given as another field's value", "{\"version\":2,\"kind\":\"authorisation.created\","
                    + "\"providerReference\":\"" + PSP + "\"}", true));

    @Test
    void theExemptionIsExactlyTheProviderReferenceFieldsInAdyensForm() {
        assertThat(mismatches(CardDataScreen::find)).isEmpty();
    }

    @Test
    void bothKnownBadScreensFailTheTable() {
        // Before the fix: no exemption at all. A genuine numeric pspReference is refused as card data.
        assertThat(mismatches(node -> CardDataScreen.find(node, ""))).containsExactly(
                "created: providerReference, 16 digits (Adyen's form): expected accepted, was refused",
                "outcome: references and event id of Adyen's form: expected accepted, was refused");
        // Too broad: any field named like a reference, anywhere, in any form of 16 digits-ish.
        Function<JsonNode, Optional<String>> byNameOnly = node -> {
            com.fasterxml.jackson.databind.node.ObjectNode copy = node.deepCopy();
            stripNamed(copy);
            return CardDataScreen.find(copy, "");
        };
        assertThat(mismatches(byNameOnly)).contains(
                "created: nested providerReference: expected refused, was accepted",
                "settlement: providerReference (not its field): expected refused, was accepted");
    }

    private static void stripNamed(JsonNode node) {
        if (node instanceof com.fasterxml.jackson.databind.node.ObjectNode object) {
            object.remove(List.of("providerReference", "requestReference", "paymentReference"));
            object.properties().forEach(e -> stripNamed(e.getValue()));
        }
    }

    private static List<String> mismatches(Function<JsonNode, Optional<String>> screen) {
        List<String> out = new ArrayList<>();
        for (Row row : TABLE) {
            JsonNode node;
            try {
                node = JSON.readTree(row.event());
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new UncheckedIOException(e);
            }
            boolean refused = screen.apply(node).isPresent();
            if (refused != row.refused()) {
                out.add(row.name() + ": expected " + (row.refused() ? "refused" : "accepted") + ", was " + (refused ? "refused" : "accepted"));
            }
        }
        return out;
    }
}
