package com.payments.reconciler.harness.lambda;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.workflow.InvalidInput;
import com.payments.reconciler.workflow.LambdaFunction;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real handler from the shaded jar the stack uploads, run as Lambda runs it, and the service's
 * shutdown: no sandbox JVM outlives {@code close()}.
 */
class RealHandlerSandboxTest {

    @Test
    void startWindowFromTheShadedJarReportsABadEventAsItsInvalidInputError(@TempDir Path workDir) throws Exception {
        LambdaFunction function = LambdaFunction.START_WINDOW;
        FunctionSpec spec = new FunctionSpec(function.logicalName(), function.handler(), function.memoryMb(), function.timeout(),
                Map.of("STATE_MACHINE_ARN", "arn:aws:states:us-east-1:123456789012:stateMachine:reconciler"));
        List<Long> pids = new ArrayList<>();
        ProcessLambdaService service = ProcessLambdaService.start(ProcessLambdaService.Config.defaults(workDir,
                FunctionCode.shadedJar(ProcessLambdaServiceTest.lambdaJar())).withInitTimeout(Invoker.ANSWER_WITHIN), List.of(spec));
        try {
            Invoker lambda = Invoker.of(service.uri());

            Invoker.Answer answer = lambda.invoke("StartWindow", "{\"scheduledTime\":\"2026-12-02T02:00:00Z\",\"unexpected\":true}");

            assertThat(answer.status()).as(answer.body()).isEqualTo(200);
            assertThat(answer.functionError()).isEqualTo("Unhandled");
            assertThat(answer.json().get("errorType").asText()).isEqualTo(InvalidInput.class.getName());
            assertThat(answer.json().get("errorMessage").asText()).contains("unexpected");
            service.sandboxes("StartWindow").forEach(s -> pids.add(s.pid()));
            assertThat(pids).hasSize(1);
            assertThat(ProcessHandle.of(pids.getFirst())).map(ProcessHandle::isAlive).contains(true);
            System.out.printf("StartWindow sandbox cold start (JVM + runtime client + handler init): %d ms%n",
                    service.sandboxes("StartWindow").getFirst().coldStart().orElseThrow().toMillis());
        } finally {
            long closing = System.nanoTime();
            service.close();
            System.out.printf("close() took %d ms%n", (System.nanoTime() - closing) / 1_000_000);
        }
        for (long pid : pids) {
            ProcessHandle process = ProcessHandle.of(pid).orElse(null);
            if (process != null) {
                process.onExit().get(30, TimeUnit.SECONDS);
                assertThat(process.isAlive()).as("sandbox %d after close()", pid).isFalse();
            }
        }
        assertThat(new Invoker(service.uri(), java.net.http.HttpClient.newHttpClient()).invokeAsync("StartWindow", "{}"))
                .as("the Invoke API is closed too").failsWithin(java.time.Duration.ofSeconds(30))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class);
    }

    /**
     * After main's "AwsClients: the SDK's default chain", a deployed handler names no credential or
     * endpoint: in a sandbox it signs with its function's container credentials and sends to
     * {@code AWS_ENDPOINT_URL}. A recorder standing in for Step Functions sees StartWindow's own key id.
     */
    @Test
    void aRealHandlerSignsItsCallsWithItsOwnFunctionsAccessKeyId(@TempDir Path workDir) throws Exception {
        List<Map<String, String>> recorded = new java.util.concurrent.CopyOnWriteArrayList<>();
        com.sun.net.httpserver.HttpServer stepFunctions = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 8);
        String stateMachine = "arn:aws:states:us-east-1:123456789012:stateMachine:reconciler";
        stepFunctions.createContext("/", exchange -> {
            try (exchange) {
                exchange.getRequestBody().readAllBytes();
                recorded.add(Map.of(
                        "target", String.valueOf(exchange.getRequestHeaders().getFirst("X-Amz-Target")),
                        "authorization", String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")),
                        "token", String.valueOf(exchange.getRequestHeaders().getFirst("X-Amz-Security-Token"))));
                // An execution of the window exists already: StartWindow suppresses the duplicate and succeeds.
                byte[] body = ("{\"executionArn\":\"arn:aws:states:us-east-1:123456789012:execution:reconciler:x\","
                        + "\"stateMachineArn\":\"" + stateMachine + "\",\"name\":\"x\",\"status\":\"SUCCEEDED\","
                        + "\"startDate\":1764640800,\"input\":\"{}\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "application/x-amz-json-1.0");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            }
        });
        stepFunctions.start();
        LambdaFunction function = LambdaFunction.START_WINDOW;
        FunctionSpec spec = new FunctionSpec(function.logicalName(), function.handler(), function.memoryMb(), function.timeout(),
                Map.of("STATE_MACHINE_ARN", stateMachine,
                        "AWS_ENDPOINT_URL", "http://127.0.0.1:" + stepFunctions.getAddress().getPort()));
        ProcessLambdaService service = ProcessLambdaService.start(ProcessLambdaService.Config.defaults(workDir,
                FunctionCode.shadedJar(ProcessLambdaServiceTest.lambdaJar())).withInitTimeout(Invoker.ANSWER_WITHIN), List.of(spec));
        try {
            String yesterday = java.time.LocalDate.now(java.time.ZoneOffset.UTC).minusDays(1) + "T02:00:00Z";

            Invoker.Answer answer = Invoker.of(service.uri()).invoke("StartWindow", "{\"scheduledTime\":\"" + yesterday + "\"}");

            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.functionError()).as(answer.body()).isNull();
            assertThat(recorded).isNotEmpty();
            assertThat(recorded.getFirst().get("target")).isEqualTo("AWSStepFunctions.DescribeExecution");
            String key = service.accessKeyIdOf("StartWindow");
            assertThat(recorded).allSatisfy(request -> {
                assertThat(request.get("authorization")).contains("Credential=" + key + "/");
                assertThat(request.get("token")).isNotEqualTo("null").isNotBlank();
            });
            assertThat(service.functionOfAccessKeyId(key)).contains("StartWindow");
        } finally {
            service.close();
            stepFunctions.stop(0);
        }
    }
}
