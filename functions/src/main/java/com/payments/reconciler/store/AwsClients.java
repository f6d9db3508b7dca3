package com.payments.reconciler.store;

import java.util.List;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Where a handler gets its SDK clients. Deployed functions use {@link SdkDefaultClients}: credentials,
 * region and endpoint come from the SDK's own configuration chain, as Lambda provides it. Harnesses that
 * host handlers in-process inject another implementation; the deployed code has no branch for them.
 */
public interface AwsClients {

    /** A DynamoDB client with these interceptors after the factory's own (Powertools' store adds its fix). */
    DynamoDbClient dynamo(List<ExecutionInterceptor> extraInterceptors);

    default DynamoDbClient dynamo() {
        return dynamo(List.of());
    }

    SfnClient sfn();

    SecretsManagerClient secrets();

    /** SQS: IngestEvents sends refusals to the refused-events queue; ReconcilePage and DeliverCommands read the dead-letter queue's depth. */
    SqsClient sqs();
}
