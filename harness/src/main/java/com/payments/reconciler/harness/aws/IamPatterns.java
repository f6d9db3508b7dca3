package com.payments.reconciler.harness.aws;

import java.util.regex.Pattern;

/**
 * IAM's wildcard matching: {@code *} any run of characters, {@code ?} one character. Actions match
 * case-insensitively, resources and ARN conditions case-sensitively and one ARN component at a time
 * (IAM User Guide, "IAM JSON policy elements: Resource" and "Condition operators: ARN").
 */
final class IamPatterns {

    private IamPatterns() {
    }

    static boolean glob(String pattern, String value, boolean ignoreCase) {
        StringBuilder regex = new StringBuilder();
        StringBuilder literal = new StringBuilder();
        for (char c : pattern.toCharArray()) {
            if (c == '*' || c == '?') {
                if (!literal.isEmpty()) {
                    regex.append(Pattern.quote(literal.toString()));
                    literal.setLength(0);
                }
                regex.append(c == '*' ? ".*" : ".");
            } else {
                literal.append(c);
            }
        }
        if (!literal.isEmpty()) {
            regex.append(Pattern.quote(literal.toString()));
        }
        int flags = Pattern.DOTALL | (ignoreCase ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0);
        return Pattern.compile(regex.toString(), flags).matcher(value).matches();
    }

    static boolean action(String pattern, String action) {
        return glob(pattern, action, true);
    }

    /**
     * An ARN against an ARN pattern: "*" matches everything; otherwise each of the six colon-separated
     * components (arn, partition, service, region, account, resource) is matched on its own, the resource
     * component keeping any further colons.
     */
    static boolean arn(String pattern, String arn) {
        if (pattern.equals("*")) {
            return true;
        }
        String[] p = pattern.split(":", 6);
        String[] a = arn.split(":", 6);
        if (p.length != 6 || a.length != 6) {
            return glob(pattern, arn, false);
        }
        for (int i = 0; i < 6; i++) {
            if (!glob(p[i], a[i], false)) {
                return false;
            }
        }
        return true;
    }
}
