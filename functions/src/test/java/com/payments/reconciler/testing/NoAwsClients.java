package com.payments.reconciler.testing;

import com.payments.reconciler.store.AwsClients;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sqs.SqsClient;

import java.util.List;

/** Clients for code that must read only its environment: any AWS call fails the test, naming what was under test. */
public record NoAwsClients(String underTest) implements AwsClients {

    @Override
    public DynamoDbClient dynamo(List<ExecutionInterceptor> extraInterceptors) {
        throw new AssertionError(underTest + " reads no AWS service");
    }

    @Override
    public SfnClient sfn() {
        throw new AssertionError(underTest + " reads no AWS service");
    }

    @Override
    public SecretsManagerClient secrets() {
        throw new AssertionError(underTest + " reads no AWS service");
    }

    @Override
    public SqsClient sqs() {
        throw new AssertionError(underTest + " reads no AWS service");
    }
}
