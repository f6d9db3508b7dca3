package com.payments.reconciler.delivery;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * The {@code Idempotency-Key} an Adyen cancel carries, derived from the business operation id. Adyen takes at most
 * {@link #MAX_LENGTH} characters, and an operation id ({@code release-hold:} and an authorisation id of up to 128
 * characters) can be longer, so the key is {@code rh1-} followed by the unpadded base64url SHA-256 of the operation id's
 * UTF-8 bytes: always 47 characters, the same for every attempt at the same operation (every night, every worker, after
 * a redrive) and computable by a person from the operation id alone.
 *
 * <p>Two operations share a key only if their ids collide under SHA-256; with 2<sup>256</sup> values, the chance of any
 * collision among even 10<sup>12</sup> operation ids is below 10<sup>-53</sup> (birthday bound n²/2<sup>257</sup>), so it
 * cannot happen in practice. {@code rh1} names this derivation: a different one would take another prefix, so keys of two
 * derivations never meet.
 */
public final class AdyenIdempotencyKey {

    /** Adyen's documented limit (Checkout API, header {@code Idempotency-Key}). */
    public static final int MAX_LENGTH = 64;
    static final String PREFIX = "rh1-";

    private AdyenIdempotencyKey() {
    }

    public static String of(String operationId) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(operationId.getBytes(StandardCharsets.UTF_8));
            return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
