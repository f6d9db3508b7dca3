package com.payments.reconciler.store;

import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.cloudwatch.CloudWatchClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sfn.SfnClient;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Builds the SDK clients the same way for AWS and for the local engines: one light HTTP client,
 * explicit timeouts, and, locally, an endpoint override with dummy credentials. Handlers build
 * their clients once per container (in the constructor), which SnapStart snapshots.
 *
 * @param region the AWS region
 * @param endpoint an endpoint override (the local engines); empty on AWS
 * @param interceptors extra interceptors (the local fault layer); empty on AWS
 */
public record AwsClients(Region region, Optional<URI> endpoint, List<ExecutionInterceptor> interceptors) {

    /** Set by the local runner so the same handler code reaches the local engines. */
    public static final String ENV_ENDPOINT = "RECONCILER_AWS_ENDPOINT";
    private static final Duration API_CALL_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration API_CALL_ATTEMPT_TIMEOUT = Duration.ofSeconds(3);
    private static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(5);
    /**
     * Against an endpoint override (the local engines), a request's latency is mostly its wait in the
     * queue: moto serves one request at a time for every function, the CLI and the tests together, and a
     * busy 2-core machine stretches that wait well past AWS's latencies. Timeouts sized for AWS would turn
     * that queueing into spurious failures and retries there.
     */
    private static final Duration ENDPOINT_OVERRIDE_API_CALL_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration ENDPOINT_OVERRIDE_ATTEMPT_TIMEOUT = Duration.ofSeconds(90);

    public AwsClients {
        interceptors = List.copyOf(interceptors);
    }

    public static AwsClients fromEnvironment(Map<String, String> env) {
        String region = Optional.ofNullable(env.get("AWS_REGION")).orElse("eu-west-1");
        return new AwsClients(Region.of(region), Optional.ofNullable(env.get(ENV_ENDPOINT)).map(URI::create), List.of());
    }

    public static AwsClients local(URI endpoint, List<ExecutionInterceptor> interceptors) {
        return new AwsClients(Region.EU_WEST_1, Optional.of(endpoint), interceptors);
    }

    public DynamoDbClient dynamo() {
        var builder = DynamoDbClient.builder().region(region).httpClient(http())
                .credentialsProvider(credentials()).overrideConfiguration(override());
        endpoint.ifPresent(builder::endpointOverride);
        return builder.build();
    }

    public SfnClient sfn() {
        var builder = SfnClient.builder().region(region).httpClient(http())
                .credentialsProvider(credentials()).overrideConfiguration(override());
        endpoint.ifPresent(builder::endpointOverride);
        return builder.build();
    }

    public SecretsManagerClient secrets() {
        var builder = SecretsManagerClient.builder().region(region).httpClient(http())
                .credentialsProvider(credentials()).overrideConfiguration(override());
        endpoint.ifPresent(builder::endpointOverride);
        return builder.build();
    }

    public CloudWatchClient cloudWatch() {
        var builder = CloudWatchClient.builder().region(region).httpClient(http())
                .credentialsProvider(credentials()).overrideConfiguration(override());
        endpoint.ifPresent(builder::endpointOverride);
        return builder.build();
    }

    private ClientOverrideConfiguration override() {
        return ClientOverrideConfiguration.builder()
                .apiCallTimeout(endpoint.isPresent() ? ENDPOINT_OVERRIDE_API_CALL_TIMEOUT : API_CALL_TIMEOUT)
                .apiCallAttemptTimeout(endpoint.isPresent() ? ENDPOINT_OVERRIDE_ATTEMPT_TIMEOUT : API_CALL_ATTEMPT_TIMEOUT)
                .executionInterceptors(interceptors)
                .build();
    }

    private SdkHttpClient http() {
        return UrlConnectionHttpClient.builder()
                .connectionTimeout(Duration.ofSeconds(2))
                .socketTimeout(endpoint.isPresent() ? ENDPOINT_OVERRIDE_ATTEMPT_TIMEOUT : SOCKET_TIMEOUT)
                .build();
    }

    private AwsCredentialsProvider credentials() {
        if (endpoint.isPresent()) {
            return StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"));
        }
        // In Lambda the environment carries the role's credentials; the default chain covers the CLI.
        return System.getenv("AWS_LAMBDA_FUNCTION_NAME") != null
                ? EnvironmentVariableCredentialsProvider.create()
                : DefaultCredentialsProvider.builder().build();
    }
}
