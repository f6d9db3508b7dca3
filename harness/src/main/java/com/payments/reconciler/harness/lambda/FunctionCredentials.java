package com.payments.reconciler.harness.lambda;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Locale;

/**
 * The temporary credentials one function's role would get, and the token its sandboxes present to read
 * them. The access key id names the function ({@code ASIA} + up to 8 letters of its name + 8 characters
 * of a hash of the whole name: 20 upper-case letters and digits, as AWS's temporary key ids are), so a
 * recorder downstream can tell which function signed a request.
 */
record FunctionCredentials(String function, String accessKeyId, String secretAccessKey, String sessionToken,
                           String authorizationToken) {

    private static final String BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

    static FunctionCredentials issue(String function, SecureRandom random) {
        return new FunctionCredentials(function, accessKeyIdFor(function), randomText(random, 40), randomText(random, 64),
                HexFormat.of().formatHex(randomBytes(random, 32)));
    }

    static String accessKeyIdFor(String function) {
        String letters = function.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "");
        String readable = (letters + "XXXXXXXX").substring(0, 8);
        byte[] digest = sha256(function);
        StringBuilder id = new StringBuilder("ASIA").append(readable);
        for (int i = 0; i < 8; i++) {
            id.append(BASE32.charAt((digest[i] & 0xff) % 32));
        }
        return id.toString();
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String randomText(SecureRandom random, int length) {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return text.toString();
    }

    private static byte[] randomBytes(SecureRandom random, int n) {
        byte[] bytes = new byte[n];
        random.nextBytes(bytes);
        return bytes;
    }
}
