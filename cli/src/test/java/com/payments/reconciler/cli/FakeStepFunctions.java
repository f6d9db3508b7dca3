package com.payments.reconciler.cli;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Recorded Step Functions answers on loopback, for what moto cannot do: {@code RedriveExecution}
 * (moto answers HTTP 500), the redrive fields of {@code DescribeExecution} (moto has none) and AWS's
 * refusals (access denied, throttling, not redrivable). Each operation (the
 * {@code X-Amz-Target} after the dot) gets a recorded status and JSON body.
 */
final class FakeStepFunctions implements AutoCloseable {

    record Answer(int status, String body) {
    }

    private final HttpServer server;
    private final Map<String, Answer> answers = new ConcurrentHashMap<>();
    private final Map<String, Integer> calls = new ConcurrentHashMap<>();
    private final Map<String, String> lastRequests = new ConcurrentHashMap<>();

    FakeStepFunctions() {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", exchange -> {
            try (exchange) {
                String target = exchange.getRequestHeaders().getFirst("X-Amz-Target");
                String operation = target == null ? "" : target.substring(target.indexOf('.') + 1);
                String request = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                if (target == null && request.contains("Action=DescribeStacks") && stackXml != null) {
                    // CloudFormation's query protocol: the operator's stack lookup, answered with the recorded outputs.
                    calls.merge("DescribeStacks", 1, Integer::sum);
                    byte[] xml = stackXml.getBytes(StandardCharsets.UTF_8);
                    exchange.getResponseHeaders().set("Content-Type", "text/xml");
                    exchange.sendResponseHeaders(200, xml.length);
                    exchange.getResponseBody().write(xml);
                    return;
                }
                calls.merge(operation, 1, Integer::sum);
                lastRequests.put(operation, request);
                Answer answer = answers.getOrDefault(operation, new Answer(400,
                        "{\"__type\":\"UnknownOperationException\",\"message\":\"no recorded answer for " + operation + "\"}"));
                byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "application/x-amz-json-1.0");
                exchange.getResponseHeaders().set("x-amzn-RequestId", "recorded");
                exchange.sendResponseHeaders(answer.status(), body.length);
                exchange.getResponseBody().write(body);
            }
        });
        server.start();
    }

    private volatile String stackXml;

    /** Answers CloudFormation DescribeStacks for {@link TestStacks#NAME} with a reconciler stack's outputs naming this state machine. */
    FakeStepFunctions stack(String stateMachineArn) {
        StringBuilder outputs = new StringBuilder();
        TestStacks.outputs(stateMachineArn).forEach((k, v) -> outputs.append("<member><OutputKey>").append(k)
                .append("</OutputKey><OutputValue>").append(v).append("</OutputValue></member>"));
        stackXml = "<DescribeStacksResponse xmlns=\"http://cloudformation.amazonaws.com/doc/2010-05-15/\"><DescribeStacksResult><Stacks><member>"
                + "<StackName>" + TestStacks.NAME + "</StackName><StackId>arn:aws:cloudformation:eu-west-1:123456789012:stack/" + TestStacks.NAME
                + "/1</StackId><CreationTime>2026-01-01T00:00:00Z</CreationTime><StackStatus>CREATE_COMPLETE</StackStatus><Outputs>"
                + outputs + "</Outputs></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>recorded</RequestId>"
                + "</ResponseMetadata></DescribeStacksResponse>";
        return this;
    }

    FakeStepFunctions answer(String operation, int status, String body) {
        answers.put(operation, new Answer(status, body));
        return this;
    }

    int calls(String operation) {
        return calls.getOrDefault(operation, 0);
    }

    /** Every Step Functions request received, whatever its operation (the stack lookup, a read, is not one). */
    int allCalls() {
        return calls.entrySet().stream().filter(e -> !e.getKey().equals("DescribeStacks")).mapToInt(Map.Entry::getValue).sum();
    }

    /** The JSON body of the last request for an operation, as the SDK sent it (null if none). */
    String lastRequest(String operation) {
        return lastRequests.get(operation);
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
