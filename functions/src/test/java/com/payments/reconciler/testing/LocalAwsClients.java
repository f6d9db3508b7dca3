package com.payments.reconciler.testing;

import com.payments.reconciler.local.LocalClients;
import com.payments.reconciler.store.AwsClients;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Clients for handlers hosted in-process against the local engines (tests, chaos, bench): one endpoint,
 * fixed credentials, the harness's fault interceptors. Timeouts fit the serial local engine's queueing,
 * not AWS latency: moto serves one request at a time for every function, the CLI and the tests together,
 * and a busy 2-core machine stretches that wait well past AWS's latencies.
 *
 * @param endpoint the local engine (or a front door to it)
 * @param interceptors the harness's interceptors, before any a handler adds
 */
public record LocalAwsClients(URI endpoint, List<ExecutionInterceptor> interceptors) implements AwsClients {

    public static final Region REGION = LocalClients.REGION;
    private static final Duration API_CALL_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(90);

    public LocalAwsClients {
        interceptors = List.copyOf(interceptors);
    }

    public LocalAwsClients(URI endpoint) {
        this(endpoint, List.of());
    }

    @Override
    public DynamoDbClient dynamo(List<ExecutionInterceptor> extraInterceptors) {
        return LocalClients.dynamo(endpoint, http()).overrideConfiguration(override(extraInterceptors)).build();
    }

    @Override
    public SfnClient sfn() {
        return LocalClients.local(SfnClient.builder(), endpoint).httpClient(http()).overrideConfiguration(override(List.of())).build();
    }

    @Override
    public SecretsManagerClient secrets() {
        return LocalClients.local(SecretsManagerClient.builder(), endpoint).httpClient(http()).overrideConfiguration(override(List.of())).build();
    }

    @Override
    public SqsClient sqs() {
        return LocalClients.local(SqsClient.builder(), endpoint).httpClient(http()).overrideConfiguration(override(List.of())).build();
    }

    private ClientOverrideConfiguration override(List<ExecutionInterceptor> extra) {
        List<ExecutionInterceptor> all = new ArrayList<>(interceptors);
        all.addAll(extra);
        return ClientOverrideConfiguration.builder().apiCallTimeout(API_CALL_TIMEOUT)
                .apiCallAttemptTimeout(ATTEMPT_TIMEOUT).executionInterceptors(all).build();
    }

    private static SdkHttpClient http() {
        return LocalClients.http(Duration.ofSeconds(2), ATTEMPT_TIMEOUT);
    }
}
