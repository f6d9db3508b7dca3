package com.payments.reconciler.harness.aws;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins {@link IamPatterns#wildcard}, the regex-free match of ASCII patterns, to {@link IamPatterns#regexGlob}, IAM's
 * wildcards as a regex: for seeded random patterns and values over letters of both cases, the ARN separators, {@code *}
 * and {@code ?} (as literal characters in values too), case-sensitive and not, both give the same answer; non-ASCII
 * input still goes to the regex.
 */
class IamPatternsTest {

    private static final String ALPHABET = "aAbBkK:/-*?.";

    /** A matcher under test, compared with the regex. */
    private interface Matcher {
        boolean matches(String pattern, String value, boolean ignoreCase);
    }

    @Test
    void theWildcardMatchAnswersAsTheRegexOnSeededPatterns() {
        assertThat(differences(IamPatterns::wildcard, 20_000)).isEmpty();
    }

    @Test
    void theComparisonFindsAMatcherThatTreatsCaseWrongly() {
        // The known-bad input: a matcher that ignores case even when asked not to (resources and ARNs are case-sensitive).
        Matcher caseBlind = (pattern, value, ignoreCase) -> IamPatterns.wildcard(pattern, value, true);
        assertThat(differences(caseBlind, 2_000)).isNotEmpty();
    }

    @Test
    void theComparisonFindsAStarThatMatchesOnlyOneRun() {
        // The known-bad input: no backtracking, the first star takes everything up to the next literal's first match.
        Matcher noBacktracking = (pattern, value, ignoreCase) -> {
            int star = pattern.indexOf('*');
            if (star < 0 || star == pattern.length() - 1) {
                return IamPatterns.wildcard(pattern, value, ignoreCase);
            }
            String head = pattern.substring(0, star);
            String rest = pattern.substring(star + 1);
            if (value.length() < head.length() || !IamPatterns.wildcard(head, value.substring(0, head.length()), ignoreCase)) {
                return false;
            }
            int at = rest.isEmpty() || rest.charAt(0) == '*' || rest.charAt(0) == '?' ? head.length()
                    : value.indexOf(rest.charAt(0), head.length());
            return at >= 0 && IamPatterns.wildcard(rest, value.substring(at), ignoreCase);
        };
        assertThat(differences(noBacktracking, 20_000)).isNotEmpty();
    }

    @Test
    void theProjectsPatternsMatchAsIamHasThem() {
        assertThat(IamPatterns.glob("dynamodb:UpdateItem", "DynamoDB:updateitem", true)).isTrue();
        assertThat(IamPatterns.glob("dynamodb:Get*", "dynamodb:GetItem", true)).isTrue();
        assertThat(IamPatterns.glob("dynamodb:Get*", "dynamodb:BatchGetItem", true)).isFalse();
        assertThat(IamPatterns.arn("arn:aws:dynamodb:*:*:table/reconciler-*", "arn:aws:dynamodb:eu-west-1:123456789012:table/reconciler-leases")).isTrue();
        assertThat(IamPatterns.arn("arn:aws:dynamodb:*:*:table/reconciler-*", "arn:aws:dynamodb:eu-west-1:123456789012:table/Reconciler-leases")).isFalse();
        assertThat(IamPatterns.arn("arn:aws:dynamodb:*:*:table/x/index/*", "arn:aws:dynamodb:eu-west-1:1:table/x/index/pending-delivery")).isTrue();
        // Non-ASCII goes to the regex: the Kelvin sign is a case variant of k there.
        assertThat(IamPatterns.glob("k", "\u212A", true)).isEqualTo(IamPatterns.regexGlob("k", "\u212A", true));
    }

    private static List<String> differences(Matcher matcher, int cases) {
        Random random = new Random(42);
        List<String> found = new ArrayList<>();
        for (int i = 0; i < cases; i++) {
            String pattern = text(random, 6);
            String value = random.nextInt(3) == 0 ? instanceOf(random, pattern) : text(random, 8).replace("*", "x");
            boolean ignoreCase = random.nextBoolean();
            boolean expected = IamPatterns.regexGlob(pattern, value, ignoreCase);
            if (matcher.matches(pattern, value, ignoreCase) != expected) {
                found.add("'" + pattern + "' ~ '" + value + "' (ignoreCase " + ignoreCase + "): regex says " + expected);
            }
        }
        return found;
    }

    private static String text(Random random, int maxLength) {
        StringBuilder out = new StringBuilder();
        int length = random.nextInt(maxLength + 1);
        for (int i = 0; i < length; i++) {
            out.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return out.toString();
    }

    /** A value the pattern should match (stars filled with random runs, ? with one character, letters maybe re-cased). */
    private static String instanceOf(Random random, String pattern) {
        StringBuilder out = new StringBuilder();
        for (char c : pattern.toCharArray()) {
            if (c == '*') {
                out.append(text(random, 3));
            } else if (c == '?') {
                out.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
            } else {
                out.append(random.nextInt(4) == 0 ? Character.toUpperCase(c) : c);
            }
        }
        return out.toString();
    }
}
