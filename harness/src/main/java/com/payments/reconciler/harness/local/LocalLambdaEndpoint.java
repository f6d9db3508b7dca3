package com.payments.reconciler.harness.local;

import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.harness.lambda.FunctionName;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.LambdaFunction;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Lambda Invoke API on loopback, dispatching to the real handler classes: what moto's Step
 * Functions executor calls for {@code arn:aws:states:::lambda:invoke} tasks. Errors are reported as
 * the Lambda service and the Java runtime report them: a thrown exception is HTTP 200 with
 * {@code X-Amz-Function-Error: Unhandled} and {@code errorType = getClass().getName()} (as
 * {@code UserFault.makeUserFault} does), a service error is a 5xx/429 with {@code x-amzn-ErrorType}.
 */
public final class LocalLambdaEndpoint implements LambdaService {

    private static final Logger LOG = LoggerFactory.getLogger(LocalLambdaEndpoint.class);
    private static final String PATH = "/2015-03-31/functions/";
    private static final ObjectMapper JSON = Json.mapper();

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Map<LambdaFunction, RequestStreamHandler> handlers = new ConcurrentHashMap<>();
    private final Map<LambdaFunction, AtomicInteger> invocations = new EnumMap<>(LambdaFunction.class);
    private final AtomicReference<InvocationHook> hook = new AtomicReference<>(InvocationHook.NONE);
    private final AtomicReference<Duration> invocationTimeLimit = new AtomicReference<>();

    private LocalLambdaEndpoint(HttpServer server) {
        this.server = server;
        for (LambdaFunction function : LambdaFunction.values()) {
            invocations.put(function, new AtomicInteger());
        }
    }

    public static LocalLambdaEndpoint start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
            LocalLambdaEndpoint endpoint = new LocalLambdaEndpoint(server);
            server.createContext(PATH, endpoint::serve);
            server.setExecutor(endpoint.executor);
            server.start();
            return endpoint;
        } catch (IOException e) {
            throw new UncheckedIOException("could not open the local Lambda endpoint on loopback", e);
        }
    }

    /**
     * Caps the time each invocation is given (its context's remaining time) below the deployed timeout:
     * a shorter-lived function, e.g. so Powertools' in-progress window (the invocation's remaining time)
     * passes in seconds in the chaos campaign. Null: the deployed timeout.
     */
    @Override
    public void limitInvocationTime(Duration limit) {
        invocationTimeLimit.set(limit);
    }

    @Override
    public URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    public void register(LambdaFunction function, RequestStreamHandler handler) {
        handlers.put(function, handler);
    }

    @Override
    public void hook(InvocationHook newHook) {
        hook.set(newHook == null ? InvocationHook.NONE : newHook);
    }

    /** Invocations so far per function (the Lambda requests a window cost). */
    @Override
    public Map<LambdaFunction, Integer> invocationCounts() {
        Map<LambdaFunction, Integer> counts = new EnumMap<>(LambdaFunction.class);
        invocations.forEach((f, n) -> counts.put(f, n.get()));
        return counts;
    }

    @Override
    public void resetCounts() {
        invocations.values().forEach(n -> n.set(0));
    }

    /** The function named in an Invoke path: a bare name, a (partial) ARN, with or without a qualifier. */
    static LambdaFunction functionNamed(String rawPathName) {
        String name = FunctionName.parse(URLDecoder.decode(rawPathName, StandardCharsets.UTF_8)).function();
        for (LambdaFunction function : LambdaFunction.values()) {
            if (function.logicalName().equals(name)) {
                return function;
            }
        }
        return null;
    }

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            String rest = exchange.getRequestURI().getRawPath().substring(PATH.length());
            if (!"POST".equals(exchange.getRequestMethod()) || !rest.endsWith("/invocations")) {
                reply(exchange, 404, Map.of("x-amzn-ErrorType", "ResourceNotFoundException"), error("ResourceNotFoundException", "no such route"));
                return;
            }
            LambdaFunction function = functionNamed(rest.substring(0, rest.length() - "/invocations".length()));
            RequestStreamHandler handler = function == null ? null : handlers.get(function);
            if (handler == null) {
                reply(exchange, 404, Map.of("x-amzn-ErrorType", "ResourceNotFoundException"),
                        error("ResourceNotFoundException", "Function not found: " + rest));
                return;
            }
            byte[] payload = exchange.getRequestBody().readAllBytes();
            int invocation = invocations.get(function).incrementAndGet();
            InvocationHook current = hook.get();
            InvocationHook.InjectedFailure before = current.before(function, invocation, payload);
            if (before != null) {
                fail(exchange, function, before);
                return;
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try {
                handler.handleRequest(new ByteArrayInputStream(payload), out, new LocalContext(function, invocationTimeLimit.get()));
            } catch (Exception | StackOverflowError thrown) {
                LOG.debug("{} failed: {}", function.logicalName(), thrown.toString());
                String message = thrown.getMessage() == null ? thrown.getClass().getName() : thrown.getMessage();
                reply(exchange, 200, Map.of("X-Amz-Function-Error", "Unhandled"), error(thrown.getClass().getName(), message));
                return;
            }
            byte[] result = out.toByteArray();
            InvocationHook.InjectedFailure after = current.afterSuccess(function, invocation, payload, result);
            if (after != null) {
                fail(exchange, function, after);
                return;
            }
            reply(exchange, 200, Map.of(), result);
        }
    }

    private void fail(HttpExchange exchange, LambdaFunction function, InvocationHook.InjectedFailure failure) throws IOException {
        LOG.debug("{}: injected {}", function.logicalName(), failure);
        if (failure.serviceError()) {
            reply(exchange, failure.httpStatus(), Map.of("x-amzn-ErrorType", failure.code()), error(failure.code(), failure.message()));
        } else {
            reply(exchange, 200, Map.of("X-Amz-Function-Error", "Unhandled"), error(failure.code(), failure.message()));
        }
    }

    private static byte[] error(String type, String message) {
        ObjectNode body = JSON.createObjectNode().put("errorType", type).put("errorMessage", message);
        return body.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void reply(HttpExchange exchange, int status, Map<String, String> headers, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.getResponseHeaders().set("X-Amz-Executed-Version", "$LATEST");
        // Callers (botocore in moto's executor) read the request id of every response, errors included.
        exchange.getResponseHeaders().set("x-amzn-RequestId", java.util.UUID.randomUUID().toString());
        headers.forEach((k, v) -> exchange.getResponseHeaders().set(k, v));
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
