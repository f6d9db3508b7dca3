package com.payments.reconciler.harness.aws;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One resolved IAM policy statement (no intrinsics left), with where it came from.
 *
 * @param origin the policy's logical id and the statement's position, e.g. {@code FunctionsLeasesRolePolicy#2}
 * @param sid the statement's Sid, if any
 * @param effect Allow or Deny
 * @param actions Action, or NotAction when {@code notAction}
 * @param resources Resource, or NotResource when {@code notResource}
 * @param principals the AWS principals of a resource-based policy ("*" for everyone); empty for identity policies
 * @param conditions operator → condition key → values; operators are checked when the statement is read
 */
public record PolicyStatement(String origin, Optional<String> sid, Effect effect, List<String> actions, boolean notAction,
                              List<String> resources, boolean notResource, List<String> principals,
                              Map<String, Map<String, List<String>>> conditions) {

    public enum Effect { ALLOW, DENY }

    public PolicyStatement {
        actions = List.copyOf(actions);
        resources = List.copyOf(resources);
        principals = List.copyOf(principals);
        Map<String, Map<String, List<String>>> copy = new LinkedHashMap<>();
        conditions.forEach((op, keys) -> {
            IamConditions.requireKnown(op, origin);
            Map<String, List<String>> k = new LinkedHashMap<>();
            keys.forEach((key, values) -> k.put(key, List.copyOf(values)));
            copy.put(op, java.util.Collections.unmodifiableMap(k));
        });
        conditions = java.util.Collections.unmodifiableMap(copy);
    }

    /** A short label for reports: the Sid, or the origin when the statement has none (CDK's X-Ray statement). */
    public String label() {
        return sid.map(s -> origin + " (" + s + ")").orElse(origin);
    }

    /**
     * Reads a statement whose intrinsics are already resolved. Elements this evaluator does not implement
     * ({@code NotPrincipal}, a non-AWS principal in a resource policy is kept as-is) fail here, loudly.
     */
    public static PolicyStatement parse(String origin, JsonNode statement) {
        if (statement.has("NotPrincipal")) {
            throw new UnsupportedPolicy(origin + ": NotPrincipal is not implemented by the local evaluator");
        }
        String effectText = statement.path("Effect").asText();
        Effect effect = switch (effectText) {
            case "Allow" -> Effect.ALLOW;
            case "Deny" -> Effect.DENY;
            default -> throw new UnsupportedPolicy(origin + ": Effect must be Allow or Deny, was '" + effectText + "'");
        };
        boolean notAction = statement.has("NotAction");
        boolean notResource = statement.has("NotResource");
        List<String> actions = strings(statement.path(notAction ? "NotAction" : "Action"), origin, "Action");
        List<String> resources = strings(statement.path(notResource ? "NotResource" : "Resource"), origin, "Resource");
        List<String> principals = new ArrayList<>();
        JsonNode principal = statement.path("Principal");
        if (principal.isTextual()) {
            principals.add(principal.asText());
        } else if (principal.isObject()) {
            principal.fields().forEachRemaining(e -> {
                if (!e.getKey().equals("AWS")) {
                    throw new UnsupportedPolicy(origin + ": only AWS principals are implemented, not " + e.getKey());
                }
                principals.addAll(strings(e.getValue(), origin, "Principal"));
            });
        }
        Map<String, Map<String, List<String>>> conditions = new LinkedHashMap<>();
        statement.path("Condition").fields().forEachRemaining(op -> {
            Map<String, List<String>> keys = new LinkedHashMap<>();
            op.getValue().fields().forEachRemaining(k -> keys.put(k.getKey(), strings(k.getValue(), origin, "Condition")));
            conditions.put(op.getKey(), keys);
        });
        Optional<String> sid = statement.hasNonNull("Sid") ? Optional.of(statement.get("Sid").asText()) : Optional.empty();
        return new PolicyStatement(origin, sid, effect, actions, notAction, resources, notResource, principals, conditions);
    }

    private static List<String> strings(JsonNode node, String origin, String element) {
        List<String> out = new ArrayList<>();
        if (node.isArray()) {
            node.forEach(n -> out.add(scalar(n, origin, element)));
        } else if (!node.isMissingNode()) {
            out.add(scalar(node, origin, element));
        }
        return out;
    }

    private static String scalar(JsonNode node, String origin, String element) {
        if (!node.isValueNode()) {
            throw new UnsupportedPolicy(origin + ": " + element + " holds an unresolved value " + node);
        }
        return node.asText();
    }
}
