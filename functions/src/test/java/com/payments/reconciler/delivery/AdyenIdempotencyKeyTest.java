package com.payments.reconciler.delivery;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Adyen Idempotency-Key: deterministic, within Adyen's 64 characters for the longest operation id the contract
 * allows, and distinct for distinct operations. Known-bad proof: truncating the operation id to 64 characters (the
 * obvious shortcut) gives two long ids one key ({@link #truncationWouldCollide}).
 */
class AdyenIdempotencyKeyTest {

    private static final String LONGEST = "release-hold:" + "a".repeat(127) + "1";

    @Test
    void theSameOperationAlwaysHasTheSameKeyWithinSixtyFourCharacters() {
        assertThat(AdyenIdempotencyKey.of("release-hold:auth-1")).isEqualTo(AdyenIdempotencyKey.of("release-hold:auth-1"));
        assertThat(AdyenIdempotencyKey.of(LONGEST)).hasSizeLessThanOrEqualTo(AdyenIdempotencyKey.MAX_LENGTH)
                .startsWith("rh1-").matches("[A-Za-z0-9_-]+");
        // A fixed vector, so a change of the derivation (which would resend every in-flight cancel under a new key) fails here.
        assertThat(AdyenIdempotencyKey.of("release-hold:auth-1")).isEqualTo("rh1-" + java.util.Base64.getUrlEncoder().withoutPadding()
                .encodeToString(sha256("release-hold:auth-1")));
    }

    @Test
    void distinctOperationsHaveDistinctKeys() {
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < 20_000; i++) {
            keys.add(AdyenIdempotencyKey.of(LONGEST.substring(0, LONGEST.length() - 6) + String.format("%06d", i)));
        }
        assertThat(keys).hasSize(20_000);
    }

    @Test
    void truncationWouldCollide() {
        String a = LONGEST.substring(0, LONGEST.length() - 1) + "1";
        String b = LONGEST.substring(0, LONGEST.length() - 1) + "2";
        assertThat(a.substring(0, 64)).isEqualTo(b.substring(0, 64));
        assertThat(AdyenIdempotencyKey.of(a)).isNotEqualTo(AdyenIdempotencyKey.of(b));
    }

    private static byte[] sha256(String s) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256").digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
