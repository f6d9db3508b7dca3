package com.payments.reconciler.harness.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Request bodies → the IAM actions and resources they are authorised as; and the wire's caller and operation. */
class ServiceAuthorizationTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String T = "arn:aws:dynamodb:eu-west-1:123456789012:table/";
    private static final String SECRET = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:key-AbCdEf";
    private final ServiceAuthorization authorization = new ServiceAuthorization(ArnScope.of("123456789012", Map.of("key", SECRET)));

    static Stream<Arguments> rows() {
        return Stream.of(
                Arguments.of("dynamodb:UpdateItem", "{\"TableName\": \"Leases\"}", List.of("dynamodb:UpdateItem on " + T + "Leases")),
                Arguments.of("dynamodb:Query", "{\"TableName\": \"Auth\", \"IndexName\": \"pending-by-age\"}",
                        List.of("dynamodb:Query on " + T + "Auth/index/pending-by-age")),
                Arguments.of("dynamodb:Query", "{\"TableName\": \"Auth\"}", List.of("dynamodb:Query on " + T + "Auth")),
                Arguments.of("dynamodb:GetItem", "{\"TableName\": \"" + T + "ByArn\"}", List.of("dynamodb:GetItem on " + T + "ByArn")),
                Arguments.of("dynamodb:BatchGetItem", "{\"RequestItems\": {\"Settlements\": {}, \"Other\": {}}}",
                        List.of("dynamodb:BatchGetItem on " + T + "Settlements", "dynamodb:BatchGetItem on " + T + "Other")),
                Arguments.of("dynamodb:TransactWriteItems", "{\"TransactItems\": ["
                                + "{\"ConditionCheck\": {\"TableName\": \"Leases\"}}, {\"Update\": {\"TableName\": \"Auth\"}},"
                                + "{\"ConditionCheck\": {\"TableName\": \"Settlements\"}}, {\"Put\": {\"TableName\": \"Commands\"}},"
                                + "{\"Update\": {\"TableName\": \"Auth\"}}, {\"Delete\": {\"TableName\": \"Gone\"}}]}",
                        List.of("dynamodb:ConditionCheckItem on " + T + "Leases", "dynamodb:UpdateItem on " + T + "Auth",
                                "dynamodb:ConditionCheckItem on " + T + "Settlements", "dynamodb:PutItem on " + T + "Commands",
                                "dynamodb:DeleteItem on " + T + "Gone")),
                Arguments.of("dynamodb:TransactGetItems", "{\"TransactItems\": [{\"Get\": {\"TableName\": \"Leases\"}}]}",
                        List.of("dynamodb:GetItem on " + T + "Leases")),
                Arguments.of("states:StartExecution", "{\"stateMachineArn\": \"arn:aws:states:eu-west-1:1:stateMachine:sm\", \"name\": \"n\"}",
                        List.of("states:StartExecution on arn:aws:states:eu-west-1:1:stateMachine:sm")),
                Arguments.of("states:DescribeExecution", "{\"executionArn\": \"arn:aws:states:eu-west-1:1:execution:sm:n\"}",
                        List.of("states:DescribeExecution on arn:aws:states:eu-west-1:1:execution:sm:n")),
                Arguments.of("secretsmanager:GetSecretValue", "{\"SecretId\": \"key\"}", List.of("secretsmanager:GetSecretValue on " + SECRET)),
                Arguments.of("secretsmanager:GetSecretValue", "{\"SecretId\": \"" + SECRET + "\"}", List.of("secretsmanager:GetSecretValue on " + SECRET)),
                Arguments.of("sqs:SendMessage", "{\"QueueUrl\": \"https://sqs.eu-west-1.amazonaws.com/123456789012/p-ingest-events-dlq\", \"MessageBody\": \"x\"}",
                        List.of("sqs:SendMessage on arn:aws:sqs:eu-west-1:123456789012:p-ingest-events-dlq")),
                Arguments.of("sqs:GetQueueAttributes", "{\"QueueUrl\": \"https://sqs.eu-west-1.amazonaws.com/123456789012/p-ingest-events-dlq\", "
                                + "\"AttributeNames\": [\"ApproximateNumberOfMessages\"]}",
                        List.of("sqs:GetQueueAttributes on arn:aws:sqs:eu-west-1:123456789012:p-ingest-events-dlq")));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("rows")
    void eachOperationIsAuthorisedAsTheDocumentedActionsOnTheDocumentedResources(String operation, String body, List<String> expected) throws Exception {
        assertThat(authorization.authorize(operation, "eu-west-1", JSON.readTree(body))).map(AuthorizedAction::toString)
                .containsExactlyElementsOf(expected);
    }

    @Test
    void unmappedOperationsAndUnreadableRequestsAreRefused() {
        assertThatThrownBy(() -> authorization.authorize("dynamodb:ExecuteStatement", "eu-west-1", JSON.createObjectNode()))
                .isInstanceOf(ServiceAuthorization.Unmapped.class).hasMessageContaining("not in ServiceAuthorization.TABLE");
        assertThatThrownBy(() -> authorization.authorize("secretsmanager:GetSecretValue", "eu-west-1", JSON.createObjectNode().put("SecretId", "unknown")))
                .isInstanceOf(ServiceAuthorization.Unmapped.class).hasMessageContaining("unknown");
        assertThatThrownBy(() -> authorization.authorize("dynamodb:PutItem", "eu-west-1", JSON.createObjectNode()))
                .isInstanceOf(ServiceAuthorization.Unmapped.class).hasMessageContaining("TableName");
    }

    @Test
    void everyRowCitesItsSource() {
        assertThat(ServiceAuthorization.TABLE.values()).allSatisfy(r -> assertThat(r.source()).startsWith("https://docs.aws.amazon.com/"));
    }

    static Stream<Arguments> targets() {
        return Stream.of(
                Arguments.of("DynamoDB_20120810.TransactWriteItems", "dynamodb", "dynamodb:TransactWriteItems"),
                Arguments.of("AWSStepFunctions.StartExecution", "states", "states:StartExecution"),
                Arguments.of("secretsmanager.GetSecretValue", "secretsmanager", "secretsmanager:GetSecretValue"),
                Arguments.of("GraniteServiceVersion20100801.PutMetricData", "monitoring", "monitoring:PutMetricData"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void theOperationComesFromXAmzTarget(String target, String scopeService, String operation) {
        var credential = AwsWire.credential("AWS4-HMAC-SHA256 Credential=AKIAFUNCTION1/20261201/eu-west-1/" + scopeService
                + "/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=abc");
        assertThat(credential).contains(new AwsWire.Credential("AKIAFUNCTION1", "eu-west-1", scopeService));
        assertThat(AwsWire.operation(target, credential)).contains(operation);
    }

    @Test
    void unsignedRequestsAndErrorBodies() {
        assertThat(AwsWire.credential(null)).isEmpty();
        assertThat(AwsWire.credential("Bearer x")).isEmpty();
        assertThat(AwsWire.operation(null, Optional.empty())).isEmpty();
        assertThat(AwsWire.errorType("{\"__type\": \"com.amazonaws.dynamodb.v20120810#TransactionCanceledException\", \"message\": \"x\"}"))
                .contains("TransactionCanceledException");
    }
}
