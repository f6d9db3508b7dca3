package com.payments.reconciler.store;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.payments.reconciler.workflow.StoreContention;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProviderChain;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** A function without credentials is a deployment fault, not contention: it must not be retried as one. */
class StoreErrorsTest {

    @Test
    void noCredentialsIsAConfigurationErrorNamingTheCause() {
        // A chain that finds nothing fails with the SDK's own message, as the default chain does in a misconfigured sandbox.
        try (DynamoDbClient blind = DynamoDbClient.builder().region(Region.EU_WEST_1)
                .credentialsProvider(AwsCredentialsProviderChain.builder().credentialsProviders(() -> {
                    throw SdkClientException.create("no credentials here");
                }).build()).build()) {
            assertThatThrownBy(() -> StoreErrors.call("reading the lease", () -> blind.describeLimits(b -> { })))
                    .isInstanceOf(IllegalStateException.class).isNotInstanceOf(StoreContention.class)
                    .hasMessageStartingWith("reading the lease: could not obtain AWS credentials (missing, or the credentials endpoint failed): "
                            + "Unable to load credentials");
        }
    }

    @Test
    void noAnswerIsStillContention() {
        Supplier<Object> unreachable = () -> {
            throw SdkClientException.create("Unable to execute HTTP request: Connect timed out");
        };
        assertThatThrownBy(() -> StoreErrors.call("reading the lease", unreachable)).isInstanceOf(StoreContention.class)
                .hasMessageContaining("no answer from DynamoDB");
    }
}
