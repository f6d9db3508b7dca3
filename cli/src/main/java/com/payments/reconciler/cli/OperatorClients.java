package com.payments.reconciler.cli;

import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

/** How every operator command builds its AWS clients: the operator's own credentials, or a local engine. */
final class OperatorClients {

    /** What a local engine is addressed in when no region is given (moto checks none). */
    static final Region LOCAL_DEFAULT_REGION = Region.US_EAST_1;

    private OperatorClients() {
    }

    static <B extends AwsClientBuilder<B, C> & AwsSyncClientBuilder<B, C>, C> C build(B builder, String region, URI endpointUrl) {
        builder.httpClient(UrlConnectionHttpClient.builder().connectionTimeout(Duration.ofSeconds(5)).socketTimeout(Duration.ofSeconds(30)).build());
        // The operator's own credentials: the SDK's default chain (profile, SSO, environment, instance role).
        if (region != null) {
            builder.region(Region.of(region));
        }
        if (endpointUrl != null) {
            // A local engine (moto) checks no signature, and an operator's machine may have no AWS credentials at all.
            builder.endpointOverride(endpointUrl)
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")));
            if (region == null) {
                builder.region(LOCAL_DEFAULT_REGION);
            }
        }
        return builder.build();
    }
}
