package com.payments.reconciler.store;

import java.time.Duration;
import java.util.List;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The deployed functions' clients. Nothing here names a credential, a region or an endpoint: the SDK's
 * default chains find them. In Lambda with SnapStart that is the container-credentials endpoint
 * ({@code AWS_CONTAINER_CREDENTIALS_FULL_URI} + {@code AWS_CONTAINER_AUTHORIZATION_TOKEN}), re-read after
 * a restore, and {@code AWS_REGION}; an endpoint override only ever arrives through the SDK's standard
 * {@code AWS_ENDPOINT_URL} / {@code AWS_ENDPOINT_URL_<SERVICE>} settings. Handlers build their clients
 * once per sandbox (in the constructor), which SnapStart snapshots.
 */
public final class SdkDefaultClients implements AwsClients {

    /**
     * One call, retries included, stays well inside the shortest task's deadline margin
     * ({@code Timing.DEADLINE_MARGIN}); one attempt is a few DynamoDB latencies' worth of patience.
     */
    static final Duration API_CALL_TIMEOUT = Duration.ofSeconds(10);
    static final Duration API_CALL_ATTEMPT_TIMEOUT = Duration.ofSeconds(3);
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(5);

    @Override
    public DynamoDbClient dynamo(List<ExecutionInterceptor> extraInterceptors) {
        return DynamoDbClient.builder().httpClient(http()).overrideConfiguration(override(extraInterceptors)).build();
    }

    @Override
    public SfnClient sfn() {
        return SfnClient.builder().httpClient(http()).overrideConfiguration(override(List.of())).build();
    }

    @Override
    public SecretsManagerClient secrets() {
        return SecretsManagerClient.builder().httpClient(http()).overrideConfiguration(override(List.of())).build();
    }

    @Override
    public SqsClient sqs() {
        return SqsClient.builder().httpClient(http()).overrideConfiguration(override(List.of())).build();
    }

    private static ClientOverrideConfiguration override(List<ExecutionInterceptor> interceptors) {
        return ClientOverrideConfiguration.builder()
                .apiCallTimeout(API_CALL_TIMEOUT)
                .apiCallAttemptTimeout(API_CALL_ATTEMPT_TIMEOUT)
                .executionInterceptors(List.copyOf(interceptors))
                .build();
    }

    // The URL-connection client: the lightest start-up and snapshot of the SDK's HTTP clients.
    private static SdkHttpClient http() {
        return UrlConnectionHttpClient.builder().connectionTimeout(CONNECT_TIMEOUT).socketTimeout(SOCKET_TIMEOUT).build();
    }
}
