package com.payments.reconciler.delivery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.HandlerEnvironment;
import com.payments.reconciler.workflow.ProviderUnavailable;
import com.payments.reconciler.workflow.Timing;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.secretsmanager.model.GetSecretValueResponse;
import software.amazon.awssdk.services.secretsmanager.model.SecretsManagerException;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * The provider API key. In AWS it is read from Secrets Manager ({@link EnvVars#PROVIDER_SECRET_ID};
 * the secret string is {@code {"apiKey": "..."}}), kept for {@link Timing#PROVIDER_SECRET_TTL} and
 * read again after that or when the provider refuses it, so a rotation is picked up without a deploy.
 * Local runs put the simulated provider's key in the local engine's Secrets Manager: there is no other
 * source. The key is never logged, never part of any input or output, and never in an error message.
 */
public final class ProviderCredentials {

    static final String SECRET_FIELD = "apiKey";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String description;
    private final Supplier<String> source;
    private final Clock clock;
    private final Duration ttl;
    private String cached;
    private Instant fetchedAt;

    private ProviderCredentials(String description, Supplier<String> source, Clock clock, Duration ttl) {
        this.description = description;
        this.source = source;
        this.clock = clock;
        this.ttl = ttl;
    }

    public static ProviderCredentials fromSecretsManager(SecretsManagerClient secrets, String secretId, Clock clock) {
        return new ProviderCredentials("Secrets Manager secret " + secretId,
                () -> readSecret(secrets, secretId), clock, Timing.PROVIDER_SECRET_TTL);
    }

    /** A key that never changes: for the provider client's own tests, which have no Secrets Manager. */
    static ProviderCredentials fixedKey(String apiKey) {
        return fromSource("a fixed key", () -> apiKey);
    }

    /** Keys from {@code source}, read once and again only after a refusal: for tests of a rotation. */
    static ProviderCredentials fromSource(String description, Supplier<String> source) {
        return new ProviderCredentials(description, source, Clock.systemUTC(), Duration.ofDays(365_000));
    }

    /** The secret named by {@link EnvVars#PROVIDER_SECRET_ID}. */
    public static ProviderCredentials fromEnvironment(HandlerEnvironment env) {
        String secretId = env.optional(EnvVars.PROVIDER_SECRET_ID, null);
        if (secretId != null) {
            return fromSecretsManager(env.aws().secrets(), secretId, env.clock());
        }
        throw new IllegalStateException("environment variable " + EnvVars.PROVIDER_SECRET_ID
                + " must name the Secrets Manager secret holding the provider API key");
    }

    /** The current key, read again once the cached one is older than the TTL. */
    public synchronized String apiKey() {
        Instant now = clock.instant();
        if (cached == null || !now.isBefore(fetchedAt.plus(ttl))) {
            cached = source.get();
            fetchedAt = now;
        }
        return cached;
    }

    /** The key as cached, read only when there is none: a request's own read, after {@link #apiKey()} refreshed it. */
    public synchronized String current() {
        return cached != null ? cached : apiKey();
    }

    /**
     * The provider refused {@code refused}: whether the secret now holds another key (it was rotated), read again
     * unless another request already did. False means the same key would be refused again.
     */
    public synchronized boolean replacedAfterRefusal(String refused) {
        if (cached != null && !cached.equals(refused)) {
            return true;
        }
        cached = null;
        return !apiKey().equals(refused);
    }

    @Override
    public String toString() {
        return "ProviderCredentials[" + description + "]";
    }

    private static String readSecret(SecretsManagerClient secrets, String secretId) {
        GetSecretValueResponse response;
        try {
            response = secrets.getSecretValue(b -> b.secretId(secretId));
        } catch (SdkClientException e) {
            throw new ProviderUnavailable("cannot read the provider API key from secret " + secretId
                    + ": no answer from Secrets Manager (" + e.getClass().getSimpleName() + ")", e);
        } catch (SecretsManagerException e) {
            if (e.isThrottlingException() || e.statusCode() >= 500) {
                throw new ProviderUnavailable("cannot read the provider API key from secret " + secretId
                        + ": Secrets Manager " + e.awsErrorDetails().errorCode(), e);
            }
            throw new IllegalStateException("cannot read the provider API key from secret " + secretId
                    + ": " + e.awsErrorDetails().errorCode() + " (does it exist, and may this function read it?)");
        }
        String secret = response.secretString();
        if (secret == null) {
            throw new IllegalStateException("secret " + secretId + " has no SecretString; expected {\"" + SECRET_FIELD + "\": \"...\"}");
        }
        JsonNode json;
        try {
            json = JSON.readTree(secret);
        } catch (IOException e) {
            // The parser's message could quote the secret: only say what shape was expected.
            throw new IllegalStateException("secret " + secretId + " is not JSON; expected {\"" + SECRET_FIELD + "\": \"...\"}");
        }
        JsonNode key = json == null ? null : json.get(SECRET_FIELD);
        if (key == null || !key.isTextual() || key.asText().isBlank()) {
            throw new IllegalStateException("secret " + secretId + ": field " + SECRET_FIELD + " is required, a non-empty string");
        }
        return key.asText();
    }
}
