package com.payments.reconciler.harness.bench;

import com.payments.reconciler.local.LocalClients;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The benchmark's own DynamoDB clients (loading data, the fence and contention measurements): the
 * handlers' client configuration, except that a call may wait minutes. The local engine serves one
 * request at a time and, on a shared build machine, can be starved for seconds; the benchmark measures
 * what it gets and is under no Lambda deadline, so a slow answer must not end the run.
 */
final class BenchClients {

    private static final Duration CALL_TIMEOUT = Duration.ofMinutes(5);
    private static final Duration ATTEMPT_TIMEOUT = Duration.ofMinutes(2);

    private BenchClients() {
    }

    static DynamoDbClient dynamo(URI endpoint, List<ExecutionInterceptor> interceptors) {
        return LocalClients.dynamo(endpoint, LocalClients.http(Duration.ofSeconds(10), ATTEMPT_TIMEOUT))
                .overrideConfiguration(ClientOverrideConfiguration.builder().apiCallTimeout(CALL_TIMEOUT)
                        .apiCallAttemptTimeout(ATTEMPT_TIMEOUT).executionInterceptors(List.copyOf(interceptors)).build())
                .build();
    }
}
