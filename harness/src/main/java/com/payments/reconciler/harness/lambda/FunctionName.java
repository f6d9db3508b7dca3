package com.payments.reconciler.harness.lambda;

/**
 * A function as the Invoke API path names it: a bare name, a partial ARN ({@code 123456789012:function:Name})
 * or a full ARN, each with or without a qualifier ({@code :live}, {@code :$LATEST}, a version).
 */
public record FunctionName(String function, String qualifier, String region, String account) {

    public static FunctionName parse(String named) {
        String region = null;
        String account = null;
        String rest = named;
        int marker = named.indexOf(":function:");
        if (marker >= 0) {
            String[] head = named.substring(0, marker).split(":");
            account = head[head.length - 1];
            if (head.length >= 4) { // arn:aws:lambda:region:account
                region = head[3];
            }
            rest = named.substring(marker + ":function:".length());
        }
        int colon = rest.indexOf(':');
        String function = colon >= 0 ? rest.substring(0, colon) : rest;
        String qualifier = colon >= 0 ? rest.substring(colon + 1) : null;
        return new FunctionName(function, qualifier, region, account);
    }

    /** The ARN the function was invoked by, as {@code Lambda-Runtime-Invoked-Function-Arn} carries it. */
    String arn(String defaultRegion, String defaultAccount) {
        return "arn:aws:lambda:" + (region != null ? region : defaultRegion) + ":" + (account != null ? account : defaultAccount)
                + ":function:" + function + (qualifier != null ? ":" + qualifier : "");
    }
}
