package com.payments.reconciler.local;

import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

/**
 * The one way the harness points an SDK client at a local engine: its region, its endpoint and fixed local
 * credentials, over the URL-connection HTTP client the functions use. Each user adds what it tunes (timeouts,
 * retries, interceptors) to the builder it gets; none builds a local client by hand.
 */
public final class LocalClients {

    /** The region of every local resource (the engine accepts any; the local ARNs name this one). */
    public static final Region REGION = Region.EU_WEST_1;
    private static final AwsCredentialsProvider CREDENTIALS = StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"));

    private LocalClients() {
    }

    /** {@code builder} aimed at the local engine at {@code endpoint}, with the local region and credentials. */
    public static <B extends AwsClientBuilder<B, ?>> B local(B builder, URI endpoint) {
        return builder.region(REGION).endpointOverride(endpoint).credentialsProvider(CREDENTIALS);
    }

    /** A DynamoDB client builder for the engine at {@code endpoint}, over {@code http}. */
    public static DynamoDbClientBuilder dynamo(URI endpoint, SdkHttpClient http) {
        return local(DynamoDbClient.builder(), endpoint).httpClient(http);
    }

    /** A DynamoDB client builder for the engine at {@code endpoint}, with the HTTP client's default timeouts. */
    public static DynamoDbClientBuilder dynamo(URI endpoint) {
        return dynamo(endpoint, UrlConnectionHttpClient.create());
    }

    /** The URL-connection HTTP client with these timeouts (the local engine's queueing, not AWS latency, sets them). */
    public static SdkHttpClient http(Duration connectTimeout, Duration socketTimeout) {
        return UrlConnectionHttpClient.builder().connectionTimeout(connectTimeout).socketTimeout(socketTimeout).build();
    }
}
