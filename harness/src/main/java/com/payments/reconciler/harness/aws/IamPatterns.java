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

    /**
     * ASCII patterns and values (every action, ARN and condition value the local stack evaluates) are matched by
     * {@link #wildcard} without building a regex, which compiling one per pattern and ARN component on every AWS request
     * made a visible part of the harness's CPU in a profiled local night; anything else by {@link #regexGlob}, the
     * definition. {@code IamPatternsTest} pins that both answer alike.
     */
    static boolean glob(String pattern, String value, boolean ignoreCase) {
        return ascii(pattern) && ascii(value) ? wildcard(pattern, value, ignoreCase) : regexGlob(pattern, value, ignoreCase);
    }

    /** The wildcard match on characters: {@code *} any run (backtracking to the last star), {@code ?} one character. */
    static boolean wildcard(String pattern, String value, boolean ignoreCase) {
        int p = 0;
        int v = 0;
        int star = -1;
        int resume = 0;
        while (v < value.length()) {
            if (p < pattern.length() && pattern.charAt(p) == '*') {
                star = p++;
                resume = v;
            } else if (p < pattern.length() && (pattern.charAt(p) == '?' || same(pattern.charAt(p), value.charAt(v), ignoreCase))) {
                p++;
                v++;
            } else if (star >= 0) {
                p = star + 1;
                v = ++resume;
            } else {
                return false;
            }
        }
        while (p < pattern.length() && pattern.charAt(p) == '*') {
            p++;
        }
        return p == pattern.length();
    }

    /** ASCII only: the one case pair of a letter is its only case-insensitive match, as the regex's Unicode case has it. */
    private static boolean same(char a, char b, boolean ignoreCase) {
        return a == b || ignoreCase && lower(a) == lower(b);
    }

    private static char lower(char c) {
        return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
    }

    private static boolean ascii(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) > 0x7F) {
                return false;
            }
        }
        return true;
    }

    /** The definition: the pattern as a regex, its literal runs quoted. */
    static boolean regexGlob(String pattern, String value, boolean ignoreCase) {
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
