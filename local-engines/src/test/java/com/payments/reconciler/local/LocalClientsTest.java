package com.payments.reconciler.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** A local client is aimed at the engine it is given, in the local region, signing with the local credentials. */
class LocalClientsTest {

    @Test
    void aDynamoClientPointsAtTheEngineWithTheLocalRegionAndCredentials() {
        URI engine = URI.create("http://127.0.0.1:4566");
        try (DynamoDbClient client = LocalClients.dynamo(engine).build()) {
            var config = client.serviceClientConfiguration();
            assertThat(config.region()).isEqualTo(LocalClients.REGION);
            assertThat(config.endpointOverride()).contains(engine);
            AwsCredentialsIdentity identity = config.credentialsProvider().resolveIdentity().join();
            assertThat(identity.accessKeyId()).isEqualTo("local");
        }
    }
}
