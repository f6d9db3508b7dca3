package com.payments.reconciler.delivery;

import com.payments.reconciler.testing.LocalAwsClients;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.testing.MutableClock;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.HandlerEnvironment;
import com.payments.reconciler.workflow.Timing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The provider key from Secrets Manager (moto's, over the real API), cached and rotated; never shown. */
@ExtendWith(LocalDynamo.class)
class ProviderCredentialsTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T02:00:00Z"));

    @Test
    void theKeyIsReadFromTheSecretCachedForTheTtlAndReadAgainAfterARotation(LocalDynamo.Engine engine) {
        try (SecretsManagerClient secrets = new LocalAwsClients(engine.moto().endpoint(), List.of()).secrets()) {
            String name = "provider-" + UUID.randomUUID();
            secrets.createSecret(b -> b.name(name).secretString("{\"apiKey\":\"key-one\"}"));
            ProviderCredentials credentials = ProviderCredentials.fromSecretsManager(secrets, name, clock);

            assertThat(credentials.apiKey()).isEqualTo("key-one");
            secrets.putSecretValue(b -> b.secretId(name).secretString("{\"apiKey\":\"key-two\"}"));
            clock.advance(Timing.PROVIDER_SECRET_TTL.minusSeconds(1));
            assertThat(credentials.apiKey()).as("cached within the TTL").isEqualTo("key-one");
            clock.advance(Duration.ofSeconds(1));
            assertThat(credentials.apiKey()).as("read again after the TTL").isEqualTo("key-two");

            secrets.putSecretValue(b -> b.secretId(name).secretString("{\"apiKey\":\"key-three\"}"));
            assertThat(credentials.replacedAfterRefusal("key-two")).as("read again when the provider refused the key").isTrue();
            assertThat(credentials.apiKey()).isEqualTo("key-three");
            assertThat(credentials.replacedAfterRefusal("key-three")).as("the same key again: nothing newer to send").isFalse();
            assertThat(credentials.toString()).contains(name).doesNotContain("key-");
        }
    }

    @Test
    void aMalformedOrMissingSecretIsAnErrorThatNeverQuotesIt(LocalDynamo.Engine engine) {
        try (SecretsManagerClient secrets = new LocalAwsClients(engine.moto().endpoint(), List.of()).secrets()) {
            String plain = "plain-" + UUID.randomUUID();
            secrets.createSecret(b -> b.name(plain).secretString("sup3r-secret-value"));
            String noField = "nofield-" + UUID.randomUUID();
            secrets.createSecret(b -> b.name(noField).secretString("{\"key\":\"sup3r-secret-value\"}"));

            assertThatThrownBy(() -> ProviderCredentials.fromSecretsManager(secrets, plain, clock).apiKey())
                    .hasMessageContaining("is not JSON").hasMessageNotContaining("sup3r");
            assertThatThrownBy(() -> ProviderCredentials.fromSecretsManager(secrets, noField, clock).apiKey())
                    .hasMessageContaining("field apiKey is required").hasMessageNotContaining("sup3r");
            assertThatThrownBy(() -> ProviderCredentials.fromSecretsManager(secrets, "absent-" + UUID.randomUUID(), clock).apiKey())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("ResourceNotFoundException");
        }
    }

    @Test
    void theKeyComesOnlyFromTheSecretTheEnvironmentNames(LocalDynamo.Engine engine) {
        HandlerEnvironment unnamed = new HandlerEnvironment(Map.of("PROVIDER_API_KEY_LOCAL", "local-key"),
                new LocalAwsClients(engine.moto().endpoint(), List.of()), clock);

        assertThatThrownBy(() -> ProviderCredentials.fromEnvironment(unnamed)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(EnvVars.PROVIDER_SECRET_ID).hasMessageNotContaining("local-key");
    }
}
