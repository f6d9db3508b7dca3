package com.payments.reconciler.harness.aws;

import java.util.Map;

/**
 * One authorisation question: may this principal perform this action on this resource?
 *
 * @param action e.g. {@code dynamodb:UpdateItem}
 * @param resource the resource ARN the action is authorised against (a table, an index, a state machine, ...)
 * @param principalArn the role's ARN (what resource policies name and {@code aws:PrincipalArn} holds)
 * @param context the request context keys ({@code aws:PrincipalArn}, {@code aws:SecureTransport}, ...), single-valued
 */
public record IamRequest(String action, String resource, String principalArn, Map<String, String> context) {
    public IamRequest {
        context = Map.copyOf(context);
    }

    /** The context every request from a role session carries: its principal and TLS (the SDK always uses HTTPS on AWS). */
    public static IamRequest of(String action, String resource, String principalArn) {
        return new IamRequest(action, resource, principalArn, Map.of("aws:PrincipalArn", principalArn, "aws:SecureTransport", "true"));
    }

    public IamRequest withContext(String key, String value) {
        Map<String, String> more = new java.util.HashMap<>(context);
        more.put(key, value);
        return new IamRequest(action, resource, principalArn, more);
    }
}
