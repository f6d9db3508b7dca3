package com.payments.reconciler.harness.lambda.handlers;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A test function whose payload says what to do: {@code {"exit": n}} ends the process, {@code
 * {"blockOnPort": p}} connects to the test's loopback port, writes its pid and waits for one byte back,
 * {@code {"blockForever": true}} never answers; anything else is echoed with what the context says.
 */
public final class ScriptedHandler implements RequestStreamHandler {

    @Override
    public void handleRequest(InputStream input, OutputStream output, Context context) throws IOException {
        String payload = new String(input.readAllBytes(), StandardCharsets.UTF_8);
        long exit = TinyJson.number(payload, "exit");
        if (exit >= 0) {
            System.exit((int) exit);
        }
        long port = TinyJson.number(payload, "blockOnPort");
        if (port > 0) {
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), (int) port)) {
                socket.getOutputStream().write((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.UTF_8));
                socket.getOutputStream().flush();
                socket.getInputStream().read();
            }
        }
        if (TinyJson.flag(payload, "blockForever")) {
            try {
                new java.util.concurrent.CountDownLatch(1).await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("echo", payload);
        answer.put("pid", ProcessHandle.current().pid());
        answer.put("requestId", context.getAwsRequestId());
        answer.put("invokedFunctionArn", context.getInvokedFunctionArn());
        answer.put("functionName", context.getFunctionName());
        answer.put("memoryLimitInMB", context.getMemoryLimitInMB());
        answer.put("remainingTimeInMillis", context.getRemainingTimeInMillis());
        answer.put("logStreamName", context.getLogStreamName());
        System.out.println("ScriptedHandler answered " + context.getAwsRequestId());
        output.write(TinyJson.object(answer).getBytes(StandardCharsets.UTF_8));
    }
}
