package com.payments.reconciler.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Finds what looks like cardholder data in an event before any field is read (docs/integration.md): a run of
 * 12-19 digits, with or without single spaces or dashes between digits, that passes the Luhn check (a longer run
 * is checked in every 12-19-digit stretch, so a card number glued to other digits is still found), in any value
 * or field name; and field names only cardholder data uses. It answers with where, never with the value.
 */
public final class CardDataScreen {

    static final int MIN_DIGITS = 12;
    static final int MAX_DIGITS = 19;

    /** Field names that carry cardholder data (compared lower-case, without '_' and '-'). */
    static final Set<String> CARDHOLDER_FIELD_NAMES = Set.of("pan", "cardnumber", "card", "primaryaccountnumber",
            "accountnumber", "cvv", "cvv2", "cvc", "cvc2", "cid", "securitycode", "expiry", "expirydate", "expirationdate",
            "exp", "expmonth", "expyear", "cardholder", "cardholdername", "nameoncard", "track", "track1", "track2",
            "trackdata", "pin", "pinblock");

    private CardDataScreen() {
    }

    /** The path of the first field whose name or value looks like cardholder data, if any. */
    public static Optional<String> find(JsonNode node) {
        return find(node, "");
    }

    private static Optional<String> find(JsonNode node, String path) {
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
