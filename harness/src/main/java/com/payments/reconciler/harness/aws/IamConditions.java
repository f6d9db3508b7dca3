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
 * partition key, {@code dynamodb:LeadingKeys}): every value of the key in the request must match one of the expected
 * ones. IAM also passes it when the key is absent from the request (a Scan carries none); this evaluator does not, so it
 * never allows what IAM might deny. {@code ForAnyValue:} is refused.
 *
 * <p>A key the request would carry on AWS but the harness could not read ({@link IamRequest#undetermined()}) decides every
 * condition on it the safe way: false in an Allow, true in a Deny, so an undetermined key never widens access.
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

    /**
     * @param deny the statement is a Deny: an undetermined key then makes its condition hold (it applies), in an Allow it
     *             fails (it does not): either way the request gets no more than IAM would give it
     */
    static boolean hold(Map<String, Map<String, List<String>>> conditions, IamRequest request, boolean deny) {
        for (Map.Entry<String, Map<String, List<String>>> operator : conditions.entrySet()) {
            for (Map.Entry<String, List<String>> key : operator.getValue().entrySet()) {
                if (!holds(operator.getKey(), key.getKey(), key.getValue(), request, deny)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean holds(String operator, String key, List<String> expected, IamRequest request, boolean deny) {
        if (request.undetermined().contains(key)) {
            return deny;
        }
        List<String> values = request.multivalued().get(key);
        String single = request.context().get(key);
        if (operator.startsWith(FOR_ALL_VALUES)) {
            List<String> all = values != null ? values : single != null ? List.of(single) : List.of();
            // Stricter than IAM on an absent key (see the class comment).
            String base = operator.substring(FOR_ALL_VALUES.length());
            return !all.isEmpty() && all.stream().allMatch(v -> holds(base, v, expected));
        }
        if (single == null && values != null) {
            if (values.size() != 1) {
                // A single-valued operator over several values: IAM's answer is not modelled here, so the safe way.
                return deny;
            }
            single = values.getFirst();
        }
        return holds(operator, single, expected);
    }

    static boolean holds(String operator, String value, List<String> expected) {
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
