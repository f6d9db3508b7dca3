package com.payments.reconciler.store;

import com.payments.reconciler.testing.LocalDynamo;
import com.payments.reconciler.testing.PatchReference;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins {@code dispatch_patch.py}: with moto's module names and each response class's method names listed once instead
 * of per request, every request is routed and dispatched as by moto's own code — the same answer (status and body) for
 * DynamoDB, SQS and Step Functions actions, signed (routed by the credential scope's service) and unsigned (routed by
 * the target header), including actions a service does not have and resources that do not exist. Each request goes
 * to the tests' (patched) engine and to a reference engine started with {@code RECONCILER_DISPATCH_PATCH=off}.
 */
@ExtendWith(LocalDynamo.class)
class DispatchPatchTest {

    @RegisterExtension
    static final PatchReference REFERENCE = new PatchReference("moto-dispatch-reference", "RECONCILER_DISPATCH_PATCH");

    /** What differs between two engines' answers by design: request ids, message ids, creation times, each engine's port. */
    private static final Pattern VARYING = Pattern.compile("127\\.0\\.0\\.1:\\d+|"
            + "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|\\d{9,}(\\.\\d+)?(E\\d+)?|\"RequestId\"\\s*:\\s*\"[^\"]*\"");

    private final HttpClient http = HttpClient.newHttpClient();

    /** One request: the service it is signed for (null: unsigned), its target header and its JSON body. */
    private record Call(String service, String target, String contentType, String body) {
    }

    @Test
    void theTestsEngineHasThePatchAndTheReferenceHasNot(LocalDynamo.Engine engine) throws Exception {
        assertThat(Files.readString(REFERENCE.log(engine.moto()))).contains("dispatch_patch: moto's");
        assertThat(Files.readString(REFERENCE.ownLog())).contains("dispatch_patch: disabled (RECONCILER_DISPATCH_PATCH=off)");
    }

    @Test
    void requestsOfThreeServicesAnswerAsMotoItself(LocalDynamo.Engine engine) throws Exception {
        REFERENCE.reset();
        List<Call> calls = calls("test-dispatch-a");
        assertThat(differences(engine.moto().endpoint(), calls, calls)).isEmpty();
    }

    @Test
    void theComparisonFindsAnAnswerThatWentDifferently(LocalDynamo.Engine engine) throws Exception {
        // The known-bad input: the patched engine is asked for another item than the reference.
        REFERENCE.reset();
        List<Call> calls = calls("test-dispatch-b");
        List<Call> altered = new ArrayList<>(calls);
        altered.set(2, new Call("dynamodb", "DynamoDB_20120810.GetItem", DYNAMO,
                "{\"TableName\":\"test-dispatch-b\",\"Key\":{\"pk\":{\"S\":\"other\"}},\"ConsistentRead\":true}"));

        assertThat(differences(engine.moto().endpoint(), altered, calls)).hasSize(1);
    }

    private static final String DYNAMO = "application/x-amz-json-1.0";

    private static List<Call> calls(String name) {
        String table = "{\"TableName\":\"" + name + "\"";
        return List.of(
                new Call("dynamodb", "DynamoDB_20120810.CreateTable", DYNAMO, table + ",\"BillingMode\":\"PAY_PER_REQUEST\","
                        + "\"KeySchema\":[{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"}],"
                        + "\"AttributeDefinitions\":[{\"AttributeName\":\"pk\",\"AttributeType\":\"S\"}]}"),
                new Call("dynamodb", "DynamoDB_20120810.PutItem", DYNAMO, table + ",\"Item\":{\"pk\":{\"S\":\"a\"},\"v\":{\"N\":\"1\"}}}"),
                new Call("dynamodb", "DynamoDB_20120810.GetItem", DYNAMO, table + ",\"Key\":{\"pk\":{\"S\":\"a\"}},\"ConsistentRead\":true}"),
                new Call(null, "DynamoDB_20120810.UpdateItem", DYNAMO, table + ",\"Key\":{\"pk\":{\"S\":\"a\"}},"
                        + "\"UpdateExpression\":\"ADD v :one\",\"ExpressionAttributeValues\":{\":one\":{\"N\":\"1\"}},\"ReturnValues\":\"ALL_NEW\"}"),
                new Call("dynamodb", "DynamoDB_20120810.GetItem", DYNAMO, "{\"TableName\":\"" + name + "-none\",\"Key\":{\"pk\":{\"S\":\"a\"}}}"),
                new Call("dynamodb", "DynamoDB_20120810.NoSuchAction", DYNAMO, table + "}"),
                new Call("sqs", "AmazonSQS.CreateQueue", DYNAMO, "{\"QueueName\":\"" + name + "\"}"),
                new Call("sqs", "AmazonSQS.GetQueueUrl", DYNAMO, "{\"QueueName\":\"" + name + "\"}"),
                new Call("sqs", "AmazonSQS.GetQueueUrl", DYNAMO, "{\"QueueName\":\"" + name + "-none\"}"),
                new Call("sqs", "AmazonSQS.NoSuchAction", DYNAMO, "{}"),
                new Call("states", "AWSStepFunctions.DescribeStateMachine", "application/x-amz-json-1.0",
                        "{\"stateMachineArn\":\"arn:aws:states:us-east-1:123456789012:stateMachine:" + name + "\"}"),
                new Call("dynamodb", "DynamoDB_20120810.DeleteTable", DYNAMO, table + "}"));
    }

    /** Sends each call to the patched engine and its counterpart to the reference; lists every answer that differs. */
    private List<String> differences(URI patched, List<Call> onPatched, List<Call> onReference) throws IOException, InterruptedException {
        List<String> found = new ArrayList<>();
        for (int i = 0; i < onPatched.size(); i++) {
            String mine = answer(patched, onPatched.get(i));
            String theirs = answer(REFERENCE.endpoint(), onReference.get(i));
            if (!mine.equals(theirs)) {
                found.add("request " + i + ": patched " + mine + " / moto " + theirs);
            }
        }
        return found;
    }

    private String answer(URI endpoint, Call call) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(endpoint + "/"))
                .header("Content-Type", call.contentType())
                .header("X-Amz-Target", call.target())
                .POST(HttpRequest.BodyPublishers.ofString(call.body()));
        if (call.service() != null) {
            request.header("Authorization", "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/" + call.service()
                    + "/aws4_request, SignedHeaders=host;x-amz-target, Signature=0");
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return response.statusCode() + " " + VARYING.matcher(response.body()).replaceAll("#");
    }
}
