package com.payments.reconciler.harness.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.store.AwsClients;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sfn.SfnClient;

class HandlerClientsTest {

    /** A client that only knows whether it was closed. */
    static final class Recorded implements DynamoDbClient {
        boolean closed;

        @Override
        public String serviceName() {
            return "dynamodb";
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    final List<Recorded> made = new ArrayList<>();
    final AwsClients factory = new AwsClients() {
        @Override
        public DynamoDbClient dynamo(List<ExecutionInterceptor> extraInterceptors) {
            Recorded r = new Recorded();
            made.add(r);
            return r;
        }

        @Override
        public SfnClient sfn() {
            throw new UnsupportedOperationException();
        }

        @Override
        public SecretsManagerClient secrets() {
            throw new UnsupportedOperationException();
        }

        @Override
        public software.amazon.awssdk.services.sqs.SqsClient sqs() {
            throw new UnsupportedOperationException();
        }
    };

    @Test
    void retiringAGenerationOfHandlersClosesEveryClientItWasGivenAndNoneOfTheNextGenerations() {
        HandlerClients clients = new HandlerClients(factory);
        clients.dynamo();
        clients.dynamo(List.of());
        clients.retireAll();
        clients.dynamo();

        assertThat(made).extracting(r -> r.closed).containsExactly(true, true, false);
        assertThat(clients.open()).isEqualTo(1);
    }

    @Test
    void aPipelineResetForEachScheduleKeepsOneGenerationOfClientsOpen() {
        try (PipelineFixture fixture = new PipelineFixture("handler-clients")) {
            int oneGeneration = fixture.pipeline.openHandlerClients();
            fixture.pipeline.reset();
            fixture.pipeline.reset();
            assertThat(fixture.pipeline.openHandlerClients()).isEqualTo(oneGeneration).isPositive();
        }
    }
}
