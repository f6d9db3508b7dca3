package com.payments.reconciler.webhook;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Optional;

/**
 * The webhook's basic-authentication credentials (docs.adyen.com, "Webhooks best practices": Adyen sends the username and
 * password set in the Customer Area in the {@code Authorization} header of every webhook request). A second check beside
 * the HMAC: the HMAC proves an item came from Adyen unchanged, basic auth that the request came from the webhook this
 * deployment configured. Compared in constant time on SHA-256 digests of {@code username:password}, so neither the time
 * taken nor the length says how much of a guess was right. Never logged: {@link #toString} hides both.
 */
public record BasicAuth(String username, String password) {

    private static final String SCHEME = "Basic ";

    public BasicAuth {
        if (username == null || username.isEmpty() || username.contains(":")) {
            throw new IllegalStateException("the webhook secret: field " + WebhookKey.USERNAME_FIELD
                    + " is required, a non-empty username without ':' (the webhook's basic-auth username in Adyen's Customer Area)");
        }
        if (password == null || password.isEmpty()) {
            throw new IllegalStateException("the webhook secret: field " + WebhookKey.PASSWORD_FIELD
                    + " is required, the webhook's basic-auth password in Adyen's Customer Area");
        }
    }

    /** Whether an {@code Authorization} header value carries exactly these credentials. */
    public boolean admits(Optional<String> authorization) {
        byte[] expected = digest(username + ":" + password);
        byte[] given = digest(authorization.flatMap(BasicAuth::decoded).orElse(""));
        // Both sides are always digested and compared: an absent or malformed header costs the same as a wrong one.
        return MessageDigest.isEqual(expected, given) & authorization.flatMap(BasicAuth::decoded).isPresent();
    }

    private static Optional<String> decoded(String header) {
        if (header.length() <= SCHEME.length() || !header.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return Optional.empty();
        }
        try {
            return Optional.of(new String(Base64.getDecoder().decode(header.substring(SCHEME.length()).trim()), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static byte[] digest(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is on every Java platform", e);
        }
    }

    @Override
    public String toString() {
        return "BasicAuth[hidden]";
    }
}
