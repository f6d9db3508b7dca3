package com.payments.reconciler.harness.aws;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Condition element: every operator AND every key must hold; a key's values are ORed (NORed for the
 * negated operators). A key missing from the request makes a positive operator false and a negated one
 * true; {@code ...IfExists} is true when the key is missing; {@code Null} tests presence itself (IAM User
 * Guide, "IAM JSON policy elements: Condition operators" and "Conditions with multiple context keys or
 * values"). Operators not listed here are refused when a statement is read, so they can never allow.
 *
 * <p>{@code ForAllValues:} over a base operator is read for the one use the stack makes of it (a grant limited to one
 * partition key, {@code dynamodb:LeadingKeys}): a present value must match one of the expected ones. IAM also passes it
 * when the key is absent from the request; this evaluator does not, so it never allows what IAM might deny (the local
 * context carries no {@code dynamodb:LeadingKeys}, so such a grant allows nothing here). {@code ForAnyValue:} is refused.
 */
final class IamConditions {

    private static final Set<String> BASE = Set.of("StringEquals", "StringNotEquals", "StringEqualsIgnoreCase",
            "StringNotEqualsIgnoreCase", "StringLike", "StringNotLike", "ArnEquals", "ArnLike", "ArnNotEquals", "ArnNotLike", "Bool");

    private IamConditions() {
    }

    /** The one set-operator prefix read (see the class comment). */
    static final String FOR_ALL_VALUES = "ForAllValues:";

    static void requireKnown(String operator, String origin) {
        boolean known;
        if (operator.startsWith(FOR_ALL_VALUES)) {
            // Over a plain positive operator only: negated, IfExists and Null forms of a set operator are not read.
            String base = operator.substring(FOR_ALL_VALUES.length());
            known = BASE.contains(base) && !base.contains("Not");
        } else {
            known = operator.equals("Null") || BASE.contains(stripIfExists(operator));
        }
        if (!known) {
            throw new UnsupportedPolicy(origin + ": the condition operator " + operator + " is not implemented by the local "
                    + "evaluator (set operators, numeric, date and IP operators are not); refusing rather than guessing");
        }
    }

    static boolean hold(Map<String, Map<String, List<String>>> conditions, Map<String, String> context) {
        for (Map.Entry<String, Map<String, List<String>>> operator : conditions.entrySet()) {
            for (Map.Entry<String, List<String>> key : operator.getValue().entrySet()) {
                if (!holds(operator.getKey(), context.get(key.getKey()), key.getValue())) {
                    return false;
                }
            }
        }
        return true;
    }

    static boolean holds(String operator, String value, List<String> expected) {
        if (operator.startsWith(FOR_ALL_VALUES)) {
            // Stricter than IAM on an absent key (see the class comment); a present single value is all the values.
            return value != null && holds(operator.substring(FOR_ALL_VALUES.length()), value, expected);
        }
        if (operator.equals("Null")) {
            // "Null": "true" means the key must be absent.
            return expected.stream().anyMatch(e -> Boolean.parseBoolean(e) == (value == null));
        }
        boolean ifExists = operator.endsWith("IfExists");
        String base = stripIfExists(operator);
        boolean negated = base.contains("Not");
        if (value == null) {
            return ifExists || negated;
        }
        boolean any = expected.stream().anyMatch(e -> matches(base, e, value));
        return negated ? !any : any;
    }

    private static boolean matches(String base, String expected, String value) {
        return switch (base) {
            case "StringEquals", "StringNotEquals" -> expected.equals(value);
            case "StringEqualsIgnoreCase", "StringNotEqualsIgnoreCase" -> expected.equalsIgnoreCase(value);
            case "StringLike", "StringNotLike" -> IamPatterns.glob(expected, value, false);
            case "ArnEquals", "ArnLike", "ArnNotEquals", "ArnNotLike" -> IamPatterns.arn(expected, value);
            case "Bool" -> expected.equalsIgnoreCase(value);
            default -> throw new UnsupportedPolicy("condition operator " + base);
        };
    }

    private static String stripIfExists(String operator) {
        return operator.endsWith("IfExists") ? operator.substring(0, operator.length() - "IfExists".length()) : operator;
    }
}
