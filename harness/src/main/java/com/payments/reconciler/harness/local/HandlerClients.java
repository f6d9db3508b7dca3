package com.payments.reconciler.harness.local;

import com.payments.reconciler.store.AwsClients;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.utils.SdkAutoCloseable;

/**
 * The in-process handlers' clients, remembered so that a generation of handlers can be retired. Lambda
 * discards an execution environment with its clients; a harness that rebuilds its handlers for every
 * schedule must close the old generation's clients itself, or each leaves its SDK threads behind (a
 * 1,000-schedule campaign once ran out of threads after 773 schedules).
 */
final class HandlerClients implements AwsClients {

    private final AwsClients delegate;
    private final List<SdkAutoCloseable> built = new ArrayList<>();

    HandlerClients(AwsClients delegate) {
        this.delegate = delegate;
    }

    @Override
    public DynamoDbClient dynamo(List<ExecutionInterceptor> extraInterceptors) {
        return remember(delegate.dynamo(extraInterceptors));
    }

    @Override
    public SfnClient sfn() {
        return remember(delegate.sfn());
    }

    @Override
    public SecretsManagerClient secrets() {
        return remember(delegate.secrets());
    }

    @Override
    public SqsClient sqs() {
        return remember(delegate.sqs());
    }

    /** Closes every client built so far: their handlers are no longer registered. */
    synchronized void retireAll() {
        built.forEach(SdkAutoCloseable::close);
        built.clear();
    }

    synchronized int open() {
        return built.size();
    }

    private synchronized <T extends SdkAutoCloseable> T remember(T client) {
        built.add(client);
        return client;
    }
}
