package com.payments.reconciler.harness.aws;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One authorisation question: may this principal perform this action on this resource?
 *
 * @param action e.g. {@code dynamodb:UpdateItem}
 * @param resource the resource ARN the action is authorised against (a table, an index, a state machine, ...)
 * @param principalArn the role's ARN (what resource policies name and {@code aws:PrincipalArn} holds)
 * @param context the single-valued request context keys ({@code aws:PrincipalArn}, {@code aws:SecureTransport}, ...)
 * @param multivalued the multivalued keys present in the request ({@code dynamodb:LeadingKeys}), each with its values
 * @param undetermined keys AWS would carry that this harness could not read: a condition on one never allows
 */
public record IamRequest(String action, String resource, String principalArn, Map<String, String> context,
                         Map<String, List<String>> multivalued, Set<String> undetermined) {
    public IamRequest {
        context = Map.copyOf(context);
        multivalued = Map.copyOf(multivalued);
        undetermined = Set.copyOf(undetermined);
    }

    /** The context every request from a role session carries: its principal and TLS (the SDK always uses HTTPS on AWS). */
    public static IamRequest of(String action, String resource, String principalArn) {
        return new IamRequest(action, resource, principalArn, Map.of("aws:PrincipalArn", principalArn, "aws:SecureTransport", "true"),
                Map.of(), Set.of());
    }

    /** As {@link #of}, with the partition key values the action touches ({@link AuthorizedAction#leadingKeys()}). */
    public static IamRequest of(AuthorizedAction action, String principalArn) {
        return action.leadingKeys().applyTo(of(action.action(), action.resource(), principalArn));
    }

    public IamRequest withContext(String key, String value) {
        Map<String, String> more = new HashMap<>(context);
        more.put(key, value);
        return new IamRequest(action, resource, principalArn, more, multivalued, undetermined);
    }

    public IamRequest withValues(String key, List<String> values) {
        Map<String, List<String>> more = new HashMap<>(multivalued);
        more.put(key, List.copyOf(values));
        return new IamRequest(action, resource, principalArn, context, more, undetermined);
    }

    public IamRequest withUndetermined(String key) {
        Set<String> more = new HashSet<>(undetermined);
        more.add(key);
        return new IamRequest(action, resource, principalArn, context, multivalued, more);
    }
}
