package com.payments.reconciler.local.moto;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins the launcher's Lambda routing patch (moto_launcher.py): moto's Step Functions executor must call
 * the Lambda Invoke API on our endpoint, with the payload the ASL built, and use its answer — and a
 * function error must surface as the errorType that Retry and Catch match. If a moto upgrade moves the
 * client factory the patch replaces, the launcher refuses to start and this test fails first, by name.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LambdaRoutingPatchTest {

    private static final String DEFINITION = """
            {"StartAt": "Call", "States": {
              "Call": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "TimeoutSeconds": 30,
                       "Parameters": {"FunctionName": "arn:aws:lambda:eu-west-1:123456789012:function:echo:live",
                                      "Payload": {"greeting.$": "$.greeting"}},
                       "ResultSelector": {"answer.$": "$.Payload.answer"},
                       "Catch": [{"ErrorEquals": ["Fenced"], "Next": "Superseded"}],
                       "End": true},
              "Superseded": {"Type": "Fail", "Error": "Superseded", "Cause": "caught"}}}
            """;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<String> invokedPaths = new CopyOnWriteArrayList<>();
    private final List<String> payloads = new CopyOnWriteArrayList<>();
    private HttpServer lambda;
    private MotoServer moto;
    private SfnClient sfn;
    private String stateMachineArn;

    @BeforeAll
    void start() throws IOException {
        lambda = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        lambda.createContext("/2015-03-31/functions/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            invokedPaths.add(URLDecoder.decode(exchange.getRequestURI().getRawPath(), StandardCharsets.UTF_8));
            payloads.add(body);
            byte[] answer;
            if (body.contains("fence me")) {
                exchange.getResponseHeaders().add("X-Amz-Function-Error", "Unhandled");
                answer = "{\"errorType\":\"Fenced\",\"errorMessage\":\"epoch 1 is stale\"}".getBytes(StandardCharsets.UTF_8);
            } else {
                answer = "{\"answer\":\"hello back\"}".getBytes(StandardCharsets.UTF_8);
            }
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        lambda.start();
        URI endpoint = URI.create("http://127.0.0.1:" + lambda.getAddress().getPort());
        Path work = Path.of(System.getProperty("reconciler.target", "target")).resolve("lambda-routing-moto");
        moto = MotoServer.start(work, Optional.of(endpoint));
        sfn = SfnClient.builder().region(Region.EU_WEST_1).endpointOverride(moto.endpoint())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.create()).build();
        stateMachineArn = sfn.createStateMachine(b -> b.name("routing-pin").definition(DEFINITION)
                .roleArn("arn:aws:iam::123456789012:role/routing-pin")).stateMachineArn();
    }

    @AfterAll
    void stop() {
        if (sfn != null) {
            sfn.close();
        }
        if (moto != null) {
            moto.close();
        }
        if (lambda != null) {
            lambda.stop(0);
        }
    }

    @Test
    void lambdaTasksCallOurInvokeEndpointAndUseItsAnswer() throws Exception {
        String arn = sfn.startExecution(b -> b.stateMachineArn(stateMachineArn).name("hello").input("{\"greeting\":\"hi\"}")).executionArn();

        DescribeExecutionResponse done = awaitClosed(arn);

        assertThat(done.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(JSON.readTree(done.output())).isEqualTo(JSON.readTree("{\"answer\":\"hello back\"}"));
        assertThat(invokedPaths).anySatisfy(path -> assertThat(path).contains("function:echo"));
        assertThat(payloads).extracting(JSON::readTree).contains(JSON.readTree("{\"greeting\":\"hi\"}"));
    }

    @Test
    void aFunctionErrorSurfacesAsItsErrorTypeForCatch() throws InterruptedException {
        String arn = sfn.startExecution(b -> b.stateMachineArn(stateMachineArn).name("fenced").input("{\"greeting\":\"fence me\"}")).executionArn();

        DescribeExecutionResponse done = awaitClosed(arn);

        assertThat(done.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(done.error()).isEqualTo("Superseded");
        List<HistoryEvent> history = sfn.getExecutionHistory(b -> b.executionArn(arn)).events();
        assertThat(history).anySatisfy(e -> assertThat(e.taskFailedEventDetails() != null
                && "Fenced".equals(e.taskFailedEventDetails().error())).isTrue());
    }

    /** Executions run in moto's background thread, as on AWS: poll DescribeExecution (bounded), as a client would. */
    private DescribeExecutionResponse awaitClosed(String executionArn) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (true) {
            DescribeExecutionResponse d = sfn.describeExecution(b -> b.executionArn(executionArn));
            if (d.status() != ExecutionStatus.RUNNING || System.nanoTime() > deadline) {
                return d;
            }
            Thread.sleep(50);
        }
    }
}
