package com.payments.reconciler.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Finds what looks like cardholder data in an event before any field is read (docs/integration.md): a run of
 * 12-19 digits, with or without single spaces or dashes between digits, that passes the Luhn check (a longer run
 * is checked in every 12-19-digit stretch, so a card number glued to other digits is still found), in any value
 * or field name; and field names only cardholder data uses. It answers with where, never with the value.
 *
 * <p>One exemption, as narrow as the provider's format: Adyen's pspReference is "a 16-character reference", often all
 * digits, and one in ten such references passes Luhn. A top-level field that holds a provider reference by contract
 * ({@link #PROVIDER_REFERENCE_FIELDS}: the event type, the field name and the exact form) is not screened when its whole
 * value has that form. Anywhere else (another field, a nested one, another event type, another length or a value with
 * separators) the same 16 digits are refused as before.
 */
public final class CardDataScreen {

    static final int MIN_DIGITS = 12;
    static final int MAX_DIGITS = 19;

    /** Field names that carry cardholder data (compared lower-case, without '_' and '-'). */
    static final Set<String> CARDHOLDER_FIELD_NAMES = Set.of("pan", "cardnumber", "card", "primaryaccountnumber",
            "accountnumber", "cvv", "cvv2", "cvc", "cvc2", "cid", "securitycode", "expiry", "expirydate", "expirationdate",
            "exp", "expmonth", "expyear", "cardholder", "cardholdername", "nameoncard", "track", "track1", "track2",
            "trackdata", "pin", "pinblock");

    /** Adyen's pspReference: exactly 16 characters of upper-case letters and digits (the Checkout and Webhooks APIs). */
    public static final String ADYEN_PSP_REFERENCE = "[A-Z0-9]{16}";

    /** A top-level field of one event type that holds a provider's reference, and the exact form it is exempt in. */
    record ProviderReferenceField(String eventType, String field, Pattern form) {
        boolean exempts(String type, String name, JsonNode value) {
            return eventType.equals(type) && field.equals(name) && value.isTextual() && form.matcher(value.textValue()).matches();
        }
    }

    /**
     * The only values not screened: an Adyen pspReference where the contract puts one. {@code authorisation.created}'s
     * {@code providerReference} (the payment's pspReference), and the internal {@code provider.outcome}'s
     * {@code requestReference} (the cancel's), {@code paymentReference} (the payment's) and {@code eventId} (derived from
     * the cancel's). A Stripe PaymentIntent id needs none: its letters break any run of digits long enough to matter.
     */
    static final List<ProviderReferenceField> PROVIDER_REFERENCE_FIELDS = List.of(
            new ProviderReferenceField("authorisation.created", "providerReference", Pattern.compile(ADYEN_PSP_REFERENCE)),
            new ProviderReferenceField("provider.outcome", "requestReference", Pattern.compile(ADYEN_PSP_REFERENCE)),
            new ProviderReferenceField("provider.outcome", "paymentReference", Pattern.compile(ADYEN_PSP_REFERENCE)),
            new ProviderReferenceField("provider.outcome", "eventId",
                    Pattern.compile("adyen-" + ADYEN_PSP_REFERENCE + "-(success|failure)")));

    private CardDataScreen() {
    }

    /** The path of the first field whose name or value looks like cardholder data, if any. */
    public static Optional<String> find(JsonNode node) {
        if (!node.isObject()) {
            return find(node, "");
        }
        JsonNode typeNode = node.get("type");
        String type = typeNode != null && typeNode.isTextual() ? typeNode.textValue() : "";
        Iterator<Map.Entry<String, JsonNode>> fields = node.properties().iterator();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            String name = field.getKey();
            if (containsCardNumber(name)) {
                return Optional.of("(a field name)");
            }
            if (isCardholderFieldName(name)) {
                return Optional.of(name);
            }
            if (exempt(type, name, field.getValue())) {
                continue;
            }
            Optional<String> inside = find(field.getValue(), name);
            if (inside.isPresent()) {
                return inside;
            }
        }
        return Optional.empty();
    }

    static boolean exempt(String type, String name, JsonNode value) {
        return PROVIDER_REFERENCE_FIELDS.stream().anyMatch(f -> f.exempts(type, name, value));
    }

    /** The screen without the provider-reference exemption: every name and value. */
    static Optional<String> find(JsonNode node, String path) {
        if (node.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> fields = node.properties().iterator();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> field = fields.next();
                String name = field.getKey();
                String at = path.isEmpty() ? name : path + "." + name;
                if (containsCardNumber(name)) {
                    return Optional.of(path.isEmpty() ? "(a field name)" : path + ".(a field name)");
                }
                if (isCardholderFieldName(name)) {
                    return Optional.of(at); // the name is a kind of data, not the data: safe to say
                }
                Optional<String> inside = find(field.getValue(), at);
                if (inside.isPresent()) {
                    return inside;
                }
            }
            return Optional.empty();
        }
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                Optional<String> inside = find(node.get(i), path + "[" + i + "]");
                if (inside.isPresent()) {
                    return inside;
                }
            }
            return Optional.empty();
        }
        if (node.isTextual() || node.isNumber()) {
            // A number's own digits: 4111111111111111 sent as a JSON number is a card number all the same.
            String text = node.isTextual() ? node.textValue() : node.numberValue().toString();
            return containsCardNumber(text) ? Optional.of(path.isEmpty() ? "(the event)" : path) : Optional.empty();
        }
        return Optional.empty();
    }

    static boolean isCardholderFieldName(String name) {
        return CARDHOLDER_FIELD_NAMES.contains(name.toLowerCase(java.util.Locale.ROOT).replace("_", "").replace("-", ""));
    }

    /** Whether {@code text} holds a Luhn-valid run of 12-19 digits, single spaces or dashes allowed between digits. */
    public static boolean containsCardNumber(String text) {
        int i = 0;
        int n = text.length();
        int[] digits = new int[n];
        while (i < n) {
            if (!isDigit(text.charAt(i))) {
                i++;
                continue;
            }
            int count = 0;
            int j = i;
            while (j < n) {
                char c = text.charAt(j);
                if (isDigit(c)) {
                    digits[count++] = c - '0';
                    j++;
                } else if ((c == ' ' || c == '-') && j + 1 < n && isDigit(text.charAt(j + 1)) && j > i) {
                    j++;
                } else {
                    break;
                }
            }
            if (anyLuhnStretch(digits, count)) {
                return true;
            }
            i = j;
        }
        return false;
    }

    private static boolean anyLuhnStretch(int[] digits, int count) {
        if (count < MIN_DIGITS) {
            return false;
        }
        if (count <= MAX_DIGITS) {
            return luhnValid(digits, 0, count);
        }
        for (int start = 0; start + MIN_DIGITS <= count; start++) {
            for (int length = MIN_DIGITS; length <= MAX_DIGITS && start + length <= count; length++) {
                if (luhnValid(digits, start, length)) {
                    return true;
                }
            }
        }
        return false;
    }

    static boolean luhnValid(int[] digits, int start, int length) {
        int sum = 0;
        for (int k = 0; k < length; k++) {
            int d = digits[start + length - 1 - k];
            if (k % 2 == 1) {
                d *= 2;
                if (d > 9) {
                    d -= 9;
                }
            }
            sum += d;
        }
        return sum % 10 == 0;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
