package com.payments.reconciler.harness.lambda;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One execution environment: a JVM running Lambda's Runtime Interface Client with the function's
 * handler, and the Runtime API it polls, on a loopback port of its own (so the runtime's requests need
 * no sandbox id). It serves one invocation at a time; the pool decides which sandbox gets which.
 *
 * <p>Life cycle as Lambda's: the process initialises (loads and constructs the handler) and then asks
 * for {@code next}; each invocation gets a deadline of the function's timeout from the moment it is
 * handed over. A timed-out sandbox is killed (Lambda resets the environment); one whose process exited,
 * or whose init failed, is dead, and the pool starts a fresh one for the next invocation.
 */
final class Sandbox {

    private static final Logger LOG = LoggerFactory.getLogger(Sandbox.class);
    private static final String RUNTIME = "/2018-06-01/runtime/";

    /** How a sandbox is started; the service builds the command and environment. */
    interface Launcher {
        Process launch(String runtimeApi) throws IOException;
    }

    private final String id;
    private final FunctionSpec spec;
    private final Duration initTimeout;
    private final ScheduledExecutorService timers;
    private final HttpServer runtimeApi;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final LinkedBlockingQueue<Invocation> handoff = new LinkedBlockingQueue<>();
    private final AtomicReference<Invocation> current = new AtomicReference<>();
    private final AtomicReference<byte[]> initError = new AtomicReference<>();
    private final AtomicInteger invocations = new AtomicInteger();
    private final long startedNanos;
    private final CompletableFuture<Duration> coldStart = new CompletableFuture<>();
    private final Process process;
    private volatile boolean dead;

    Sandbox(String id, FunctionSpec spec, Duration initTimeout, ScheduledExecutorService timers, Launcher launcher) {
        this.id = id;
        this.spec = spec;
        this.initTimeout = initTimeout;
        this.timers = timers;
        try {
            runtimeApi = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        } catch (IOException e) {
            throw new UncheckedIOException("could not open a Runtime API on loopback", e);
        }
        runtimeApi.createContext(RUNTIME, this::serve);
        runtimeApi.setExecutor(executor);
        runtimeApi.start();
        startedNanos = System.nanoTime();
        try {
            process = launcher.launch("127.0.0.1:" + runtimeApi.getAddress().getPort());
        } catch (IOException e) {
            runtimeApi.stop(0);
            executor.shutdownNow();
            throw new UncheckedIOException("could not start sandbox " + id, e);
        }
        process.onExit().thenAccept(this::exited);
    }

    String id() {
        return id;
    }

    long pid() {
        return process.pid();
    }

    boolean dead() {
        return dead;
    }

    SandboxInfo info() {
        return new SandboxInfo(id, process.pid(), Optional.ofNullable(coldStart.getNow(null)), invocations.get(), !dead && process.isAlive());
    }

    CompletableFuture<Void> exit() {
        return process.onExit().thenApply(p -> null);
    }

    /**
     * Gives the sandbox an invocation; the returned future completes when it ends, however it ends. A
     * sandbox still initialising has {@code initTimeout} (Lambda's 10 s init limit by default) to ask
     * for it; the function's timeout starts when it does.
     */
    CompletableFuture<InvocationOutcome> invoke(Invocation invocation) {
        invocations.incrementAndGet();
        current.set(invocation);
        if (!coldStart.isDone()) {
            invocation.replaceTimer(timers.schedule(() -> initTimedOut(invocation), initTimeout.toMillis(), TimeUnit.MILLISECONDS));
        }
        handoff.add(invocation);
        // The process may have failed before this invocation was registered: settle it from what is known.
        if (initError.get() != null) {
            invocation.finish(new InvocationOutcome.FunctionFailed(initError.get()));
        } else if (!process.isAlive()) {
            invocation.finish(new InvocationOutcome.FunctionFailed(LambdaErrors.exited(invocation.requestId(), process.exitValue())));
        }
        return invocation.outcome();
    }

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath().substring(RUNTIME.length());
            String method = exchange.getRequestMethod();
            if ("GET".equals(method) && path.equals("invocation/next")) {
                next(exchange);
            } else if ("POST".equals(method) && path.equals("init/error")) {
                byte[] body = exchange.getRequestBody().readAllBytes();
                initFailed(body);
                accepted(exchange);
            } else if ("POST".equals(method) && path.startsWith("invocation/") && (path.endsWith("/response") || path.endsWith("/error"))) {
                String rest = path.substring("invocation/".length());
                String requestId = rest.substring(0, rest.lastIndexOf('/'));
                byte[] body = exchange.getRequestBody().readAllBytes();
                Invocation invocation = current.get();
                if (invocation == null || !invocation.requestId().equals(requestId)) {
                    reply(exchange, 400, "{\"errorMessage\":\"Invalid request ID\",\"errorType\":\"InvalidRequestID\"}".getBytes(StandardCharsets.UTF_8));
                    return;
                }
                current.compareAndSet(invocation, null);
                invocation.finish(path.endsWith("/response")
                        ? new InvocationOutcome.Succeeded(body)
                        : new InvocationOutcome.FunctionFailed(body));
                accepted(exchange);
            } else {
                reply(exchange, 404, "{\"errorMessage\":\"no such Runtime API route\",\"errorType\":\"NotFound\"}".getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    /** The runtime's long poll: blocks until the pool hands this sandbox an invocation. */
    private void next(HttpExchange exchange) throws IOException {
        coldStart.complete(Duration.ofNanos(System.nanoTime() - startedNanos));
        Invocation invocation;
        try {
            do {
                invocation = handoff.take();
            } while (invocation.outcome().isDone()); // ended while queued (init timeout, shutdown): never run it
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        Invocation running = invocation;
        running.replaceTimer(timers.schedule(() -> timedOut(running), spec.timeout().toMillis(), TimeUnit.MILLISECONDS));
        long deadline = System.currentTimeMillis() + running.advertised().toMillis();
        var headers = exchange.getResponseHeaders();
        headers.set("Content-Type", "application/json");
        headers.set("Lambda-Runtime-Aws-Request-Id", running.requestId());
        headers.set("Lambda-Runtime-Deadline-Ms", Long.toString(deadline));
        headers.set("Lambda-Runtime-Invoked-Function-Arn", running.invokedArn());
        headers.set("Lambda-Runtime-Trace-Id", running.traceId());
        // The native client dereferences both without checking (SIGSEGV when absent): always sent, empty.
        headers.set("Lambda-Runtime-Client-Context", "");
        headers.set("Lambda-Runtime-Cognito-Identity", "");
        byte[] payload = running.payload();
        exchange.sendResponseHeaders(200, payload.length == 0 ? -1 : payload.length);
        exchange.getResponseBody().write(payload);
    }

    private void initFailed(byte[] body) {
        LOG.debug("sandbox {}: init error {}", id, new String(body, StandardCharsets.UTF_8));
        initError.set(body);
        dead = true;
        Invocation invocation = current.get();
        if (invocation != null) {
            invocation.finish(new InvocationOutcome.FunctionFailed(body));
        }
    }

    private void initTimedOut(Invocation invocation) {
        if (invocation.finish(new InvocationOutcome.FunctionFailed(LambdaErrors.timedOut(invocation.requestId(), initTimeout)))) {
            LOG.debug("sandbox {}: init took longer than {}", id, initTimeout);
            kill();
        }
    }

    private void timedOut(Invocation invocation) {
        if (invocation.finish(new InvocationOutcome.FunctionFailed(LambdaErrors.timedOut(invocation.requestId(), spec.timeout())))) {
            LOG.debug("sandbox {}: {} timed out after {}", id, invocation.requestId(), spec.timeout());
            kill();
        }
    }

    private void exited(Process exitedProcess) {
        dead = true;
        Invocation invocation = current.get();
        if (invocation != null) {
            byte[] reason = initError.get() != null ? initError.get() : LambdaErrors.exited(invocation.requestId(), exitedProcess.exitValue());
            invocation.finish(new InvocationOutcome.FunctionFailed(reason));
        }
        runtimeApi.stop(0);
        executor.shutdownNow();
    }

    /** Lambda resets a timed-out environment: the process goes, the next invocation gets a fresh one. */
    void kill() {
        dead = true;
        process.destroyForcibly();
    }

    /** The first step of shutting down: ends any invocation and asks the process to stop. */
    void beginShutdown() {
        dead = true;
        Invocation invocation = current.get();
        if (invocation != null) {
            invocation.finish(new InvocationOutcome.Refused(500, "ServiceException",
                    LambdaErrors.serviceError("the local Lambda service is shutting down")));
        }
        process.destroy();
    }

    /** Waits for the process to end within {@code grace}, then kills it and waits as long again. */
    boolean awaitShutdown(Duration grace) {
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                return process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS);
            }
            return true;
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            return false;
        } finally {
            runtimeApi.stop(0);
            executor.shutdownNow();
        }
    }

    private static void accepted(HttpExchange exchange) throws IOException {
        reply(exchange, 202, "{\"status\":\"OK\"}".getBytes(StandardCharsets.UTF_8));
    }

    private static void reply(HttpExchange exchange, int status, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
    }
}
