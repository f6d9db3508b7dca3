package com.payments.reconciler.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.workflow.Timing;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * The webhook HMAC key from its Secrets Manager secret ({@code {"hmacKey": "<hex>"}}), kept for
 * {@link Timing#WEBHOOK_KEY_TTL} and read again after that, so a rotation is picked up within a minute without a deploy.
 * Never logged, never in a message.
 */
public final class WebhookKey implements Supplier<AdyenSignature> {

    public static final String SECRET_FIELD = "hmacKey";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Supplier<String> source;
    private final Clock clock;
    private final Duration ttl;
    private AdyenSignature cached;
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
    public synchronized AdyenSignature get() {
        Instant now = clock.instant();
        if (cached == null || !now.isBefore(readAt.plus(ttl))) {
            cached = new AdyenSignature(hexKey(source.get()));
            readAt = now;
        }
        return cached;
    }

    private static String hexKey(String secret) {
        JsonNode json;
        try {
            json = secret == null ? null : JSON.readTree(secret);
        } catch (IOException e) {
            throw new IllegalStateException("the webhook HMAC secret is not JSON; expected {\"" + SECRET_FIELD + "\": \"<hex>\"}");
        }
        JsonNode key = json == null ? null : json.get(SECRET_FIELD);
        if (key == null || !key.isTextual() || key.asText().isBlank()) {
            throw new IllegalStateException("the webhook HMAC secret: field " + SECRET_FIELD + " is required, the hex key from Adyen's Customer Area");
        }
        return key.asText();
    }
}
