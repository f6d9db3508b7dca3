package com.payments.reconciler.delivery;

import com.payments.reconciler.testing.LocalAwsClients;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.local.provider.SimulatedProvider;
import com.payments.reconciler.store.AwsClients;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.HandlerEnvironment;
import com.payments.reconciler.workflow.Timing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The handler built the way Lambda and the local runner build it: from the environment alone. */
@ExtendWith(LocalDynamo.class)
class DeliverCommandsWiringTest {

    @Test
    void theEnvironmentConstructorDeliversThroughTheConfiguredProvider(LocalDynamo.Engine engine) {
        try (DeliveryWorld w = new DeliveryWorld(engine, SimulatedProvider.builder(), 1)) {
            LeaseToken lease = w.acquire("worker-A", Timing.LEASE_DURATION);
            List<String> ops = w.command(lease, "auth-1", "auth-2");
            // The feed is complete: the deployed gate reads this watermark before any provider call.
            w.ingestion.watermark("wm-1", w.clock.instant());
            Map<String, String> env = new HashMap<>();
            TableNames.ENV_VARS.forEach((schema, variable) -> env.put(variable, engine.tables().nameOf(schema)));
            env.put(EnvVars.PROVIDER_BASE_URL, w.provider.baseUrl().toString());
            LocalAwsClients aws = new LocalAwsClients(engine.moto().endpoint());
            env.put(EnvVars.PROVIDER_SECRET_ID, providerSecret(aws, w.provider.apiKey()));
            env.put(EnvVars.PROVIDER_REQUESTS_PER_SECOND, "40");
            env.put(EnvVars.PROVIDER_MAX_CONCURRENT_REQUESTS, "32");
            // The ingestion dead-letter queue it counts before any provider call: empty, so the night delivers.
            try (var sqs = aws.sqs()) {
                env.put(EnvVars.INGEST_DEAD_LETTER_QUEUE_URL, sqs.createQueue(b -> b.queueName("dlq-" + UUID.randomUUID())).queueUrl());
            }

            DeliverCommandsHandler handler = new DeliverCommandsHandler(new HandlerEnvironment(env, aws, w.clock));
            DeliveryBatch result = w.invoke(handler, lease, 0, null, new TestContext(Timing.DELIVER_COMMANDS_TIMEOUT));

            assertThat(result).usingRecursiveComparison().ignoringFields("plan").isEqualTo(new DeliveryBatch(false, new DeliveryTotals(1, 2, 0, 2)));
            ops.forEach(op -> assertThat(w.status(op)).isEqualTo(ReleaseCommands.STATUS_DELIVERED));
            assertThat(w.effects()).allSatisfy(effect -> assertThat(effect.performed()).isEqualTo(1));
        }
    }

    @Test
    void aMissingOrMalformedProviderUrlIsAClearConfigurationError(LocalDynamo.Engine engine) {
        Map<String, String> env = new HashMap<>();
        TableNames.ENV_VARS.forEach((schema, variable) -> env.put(variable, engine.tables().nameOf(schema)));
        AwsClients aws = new LocalAwsClients(engine.moto().endpoint());
        env.put(EnvVars.PROVIDER_SECRET_ID, providerSecret(aws, "k"));
        env.put(EnvVars.PROVIDER_REQUESTS_PER_SECOND, "40");
        env.put(EnvVars.PROVIDER_MAX_CONCURRENT_REQUESTS, "32");

        assertThatThrownBy(() -> new DeliverCommandsHandler(new HandlerEnvironment(env, aws, java.time.Clock.systemUTC())))
                .hasMessageContaining(EnvVars.PROVIDER_BASE_URL);
        env.put(EnvVars.PROVIDER_BASE_URL, "not a url");
        assertThatThrownBy(() -> new DeliverCommandsHandler(new HandlerEnvironment(env, aws, java.time.Clock.systemUTC())))
                .hasMessageContaining(EnvVars.PROVIDER_BASE_URL).hasMessageContaining("not a url");
    }

    private static String providerSecret(AwsClients aws, String apiKey) {
        try (var secrets = aws.secrets()) {
            return secrets.createSecret(b -> b.name("provider-" + UUID.randomUUID()).secretString("{\"apiKey\":\"" + apiKey + "\"}")).arn();
        }
    }
}
