package com.payments.reconciler.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.workflow.Timing;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The webhook secret from Secrets Manager ({@code {"hmacKey": "<hex>", "previousHmacKey": "<hex>", "basicAuthUsername":
 * "...", "basicAuthPassword": "..."}}; {@code previousHmacKey} only during a rotation), kept for
 * {@link Timing#WEBHOOK_KEY_TTL} and read again after that, so a rotation is picked up within a minute without a deploy.
 * Never logged, never in a message: a refusal names the field only.
 */
public final class WebhookKey implements Supplier<WebhookSecret> {

    public static final String SECRET_FIELD = "hmacKey";
    /** The key Adyen signed with before the current one: accepted too while it is in the secret (a rotation). */
    public static final String PREVIOUS_FIELD = "previousHmacKey";
    public static final String USERNAME_FIELD = "basicAuthUsername";
    public static final String PASSWORD_FIELD = "basicAuthPassword";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Supplier<String> source;
    private final Clock clock;
    private final Duration ttl;
    private WebhookSecret cached;
    private Instant readAt;

    public WebhookKey(Supplier<String> secretString, Clock clock, Duration ttl) {
        this.source = secretString;
        this.clock = clock;
        this.ttl = ttl;
    }

    public static WebhookKey fromSecretsManager(SecretsManagerClient secrets, String secretId, Clock clock) {
        return new WebhookKey(() -> secrets.getSecretValue(b -> b.secretId(secretId)).secretString(), clock, Timing.WEBHOOK_KEY_TTL);
    }

    @Override
    public synchronized WebhookSecret get() {
        Instant now = clock.instant();
        if (cached == null || !now.isBefore(readAt.plus(ttl))) {
            cached = parse(source.get());
            readAt = now;
        }
        return cached;
    }

    /** The secret string, parsed; a missing or malformed field is named, never quoted. */
    public static WebhookSecret parse(String secret) {
        JsonNode json;
        try {
            json = secret == null ? null : JSON.readTree(secret);
        } catch (IOException e) {
            json = null;
        }
        if (json == null || !json.isObject()) {
            throw new IllegalStateException("the webhook secret is not a JSON object; expected {\"" + SECRET_FIELD + "\": \"<hex>\", \""
                    + USERNAME_FIELD + "\": \"...\", \"" + PASSWORD_FIELD + "\": \"...\"} (and \"" + PREVIOUS_FIELD + "\" during a rotation)");
        }
        List<AdyenSignature> keys = new ArrayList<>();
        keys.add(new AdyenSignature(text(json, SECRET_FIELD, "the hex HMAC key from Adyen's Customer Area")));
        if (json.has(PREVIOUS_FIELD)) {
            keys.add(new AdyenSignature(text(json, PREVIOUS_FIELD, "the hex HMAC key Adyen signed with before the current one")));
        }
        return new WebhookSecret(AdyenSignature.anyOf(keys),
                new BasicAuth(text(json, USERNAME_FIELD, "the webhook's basic-auth username"),
                        text(json, PASSWORD_FIELD, "the webhook's basic-auth password")));
    }

    private static String text(JsonNode json, String field, String what) {
        JsonNode value = json.get(field);
        if (value == null || !value.isTextual() || value.asText().isBlank()) {
            throw new IllegalStateException("the webhook secret: field " + field + " is required, " + what);
        }
        return value.asText();
    }
}
