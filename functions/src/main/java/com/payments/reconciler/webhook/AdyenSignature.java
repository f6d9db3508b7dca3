package com.payments.reconciler.webhook;

import com.fasterxml.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Adyen's HMAC signature of one standard notification item (docs.adyen.com, "Verify HMAC signatures"; the order is the
 * one Adyen's own libraries sign): HMAC-SHA256, keyed with the hex-decoded HMAC key, over
 * {@code pspReference:originalReference:merchantAccountCode:merchantReference:amount.value:amount.currency:eventCode:success}
 * (an absent field is the empty string), base64-encoded in {@code additionalData.hmacSignature}. Compared in constant
 * time ({@link MessageDigest#isEqual}) on the decoded bytes, so the time taken says nothing about how much of a forged
 * signature was right.
 */
public final class AdyenSignature implements NotificationVerifier {

    public static final String SIGNATURE_FIELD = "hmacSignature";
    private static final String ALGORITHM = "HmacSHA256";

    /** What the signature check found for one item. */
    public enum Verdict {
        /** Signed with our key over exactly these fields. */
        VALID,
        /** No {@code additionalData.hmacSignature}. */
        UNSIGNED,
        /** A signature that is not ours over these fields (a forgery, a changed field, or another key). */
        FORGED
    }

    private final SecretKeySpec key;

    /** @param hexKey the HMAC key as Adyen's Customer Area shows it: hexadecimal */
    public AdyenSignature(String hexKey) {
        byte[] raw;
        try {
            raw = HexFormat.of().parseHex(hexKey);
        } catch (IllegalArgumentException e) {
            // Never quote the key, not even its malformed part.
            throw new IllegalStateException("the webhook HMAC key must be hexadecimal (as Adyen's Customer Area shows it), of an even length");
        }
        if (raw.length == 0) {
            throw new IllegalStateException("the webhook HMAC key is empty");
        }
        this.key = new SecretKeySpec(raw, ALGORITHM);
    }

    /** The signed text of a {@code NotificationRequestItem}. */
    public static String dataToSign(JsonNode item) {
        JsonNode amount = item.path("amount");
        return String.join(":", field(item, "pspReference"), field(item, "originalReference"), field(item, "merchantAccountCode"),
                field(item, "merchantReference"), field(amount, "value"), field(amount, "currency"), field(item, "eventCode"),
                field(item, "success"));
    }

    /** The base64 signature of {@code item} with this key (what Adyen would send; the local fake signs with it). */
    public String sign(JsonNode item) {
        return Base64.getEncoder().encodeToString(mac(dataToSign(item)));
    }

    @Override
    public Verdict verify(JsonNode item) {
        return anyOf(java.util.List.of(this)).verify(item);
    }

    /**
     * A verifier that accepts an item signed with any of {@code keys}: during a rotation the secret holds the new key and
     * the previous one, since Adyen documents that a new key takes time to propagate and notifications signed with the
     * previous one keep arriving meanwhile. Every key's HMAC is computed and compared in constant time, and the results
     * are combined without stopping at the first match, so the time taken says neither which key matched nor how much.
     */
    public static NotificationVerifier anyOf(java.util.List<AdyenSignature> keys) {
        if (keys.isEmpty()) {
            throw new IllegalStateException("the webhook secret holds no HMAC key");
        }
        java.util.List<AdyenSignature> accepted = java.util.List.copyOf(keys);
        return item -> {
            JsonNode sent = item.path("additionalData").path(SIGNATURE_FIELD);
            if (!sent.isTextual() || sent.textValue().isEmpty()) {
                return Verdict.UNSIGNED;
            }
            byte[] claimed;
            try {
                claimed = Base64.getDecoder().decode(sent.textValue());
            } catch (IllegalArgumentException e) {
                return Verdict.FORGED;
            }
            String data = dataToSign(item);
            boolean valid = false;
            for (AdyenSignature key : accepted) {
                valid |= MessageDigest.isEqual(key.mac(data), claimed);
            }
            return valid ? Verdict.VALID : Verdict.FORGED;
        };
    }

    private byte[] mac(String data) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is on every Java platform", e);
        }
    }

    private static String field(JsonNode node, String name) {
        JsonNode value = node.get(name);
        return value == null || value.isNull() ? "" : value.asText();
    }

    @Override
    public String toString() {
        return "AdyenSignature[key hidden]";
    }
}
