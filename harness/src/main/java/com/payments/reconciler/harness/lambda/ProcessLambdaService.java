package com.payments.reconciler.harness.lambda;

import com.payments.reconciler.harness.local.InvocationHook;
import com.payments.reconciler.harness.local.LambdaService;
import com.payments.reconciler.workflow.LambdaFunction;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local Lambda service that runs each function the way Lambda runs a Java function: in JVM processes
 * (sandboxes) of their own, started from the deployment package with Lambda's Runtime Interface Client,
 * which poll a Runtime API. Serves the Invoke API on loopback with Lambda's wire behaviour (see
 * {@link LambdaService}), scales each function out to one sandbox per concurrent invocation up to a cap
 * (its reserved concurrency, else the service's) and throttles beyond it, enforces the function's timeout, and gives each function its own container
 * credentials, as SnapStart functions get them.
 *
 * <p>Start it with {@link #start(Config, List)}; {@link #close()} (also run by a shutdown hook) ends every
 * sandbox process.
 */
public final class ProcessLambdaService implements LambdaService {

    private static final Logger LOG = LoggerFactory.getLogger(ProcessLambdaService.class);
    private static final String PATH = "/2015-03-31/functions/";
    private static final String RUNTIME_MAIN = "com.amazonaws.services.lambda.runtime.api.client.AWSLambda";

    /**
     * @param workDir                 sandbox logs ({@code sandboxes/<function>-<n>.log}) and task roots go here
     * @param code                    the functions' code (the shaded jar the stack uploads)
     * @param region                  {@code AWS_REGION} of every sandbox and the region in function ARNs
     * @param accountId               the account in function ARNs
     * @param maxSandboxesPerFunction each function's concurrency: invocations beyond it get 429
     * @param initTimeout             how long a new sandbox may take to initialise (Lambda: 10 s for on-demand)
     * @param shutdownGrace           how long {@link #close()} waits after destroy before destroyForcibly
     */
    public record Config(Path workDir, FunctionCode code, String region, String accountId, int maxSandboxesPerFunction,
                         Duration initTimeout, Duration shutdownGrace) {

        public Config {
            Objects.requireNonNull(workDir, "workDir");
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(region, "region");
            Objects.requireNonNull(accountId, "accountId");
            Objects.requireNonNull(initTimeout, "initTimeout");
            Objects.requireNonNull(shutdownGrace, "shutdownGrace");
        }

        /** us-east-1 (the local region), moto's account, 10 sandboxes per function, Lambda's 10 s init limit, 5 s grace. */
        public static Config defaults(Path workDir, FunctionCode code) {
            return new Config(workDir, code, "us-east-1", "123456789012", 10, Duration.ofSeconds(10), Duration.ofSeconds(5));
        }

        public Config withMaxSandboxesPerFunction(int max) {
            return new Config(workDir, code, region, accountId, max, initTimeout, shutdownGrace);
        }

        public Config withInitTimeout(Duration timeout) {
            return new Config(workDir, code, region, accountId, maxSandboxesPerFunction, timeout, shutdownGrace);
        }

        public Config withRegion(String newRegion) {
            return new Config(workDir, code, newRegion, accountId, maxSandboxesPerFunction, initTimeout, shutdownGrace);
        }
    }

    private final Config config;
    private final Map<String, FunctionSpec> specs = new ConcurrentHashMap<>();
    private final Map<String, SandboxPool> pools = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> invocations = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> sandboxNumbers = new ConcurrentHashMap<>();
    private final AtomicReference<InvocationHook> hook = new AtomicReference<>(InvocationHook.NONE);
    private final AtomicReference<Duration> invocationTimeLimit = new AtomicReference<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ContainerCredentialsEndpoint credentials;
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "lambda-sandbox-timers");
        thread.setDaemon(true);
        return thread;
    });
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final String javaExecutable;
    private final List<Path> runtimeClasspath;
    private final Path nativeLibrary;
    private final HttpServer server;
    private final Thread shutdownHook = new Thread(this::close, "lambda-sandboxes-shutdown");

    private ProcessLambdaService(Config config) throws IOException {
        this.config = config;
        this.javaExecutable = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        this.runtimeClasspath = FunctionCode.runtimeClientJars();
        this.nativeLibrary = RuntimeNativeLibrary.unpack(runtimeClasspath, config.workDir().resolve("lambda-runtime-native"));
        Files.createDirectories(config.workDir().resolve("sandboxes"));
        this.credentials = new ContainerCredentialsEndpoint(new SecureRandom(), Clock.systemUTC());
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    }

    /** Starts the service with these functions deployed; more can be deployed later ({@link #deploy}). */
    public static ProcessLambdaService start(Config config, List<FunctionSpec> functions) {
        Set<String> names = new HashSet<>();
        for (FunctionSpec spec : functions) {
            if (!names.add(spec.logicalName())) {
                throw new IllegalArgumentException("function " + spec.logicalName() + " is given twice");
            }
        }
        ProcessLambdaService service;
        try {
            service = new ProcessLambdaService(config);
        } catch (IOException e) {
            throw new UncheckedIOException("could not prepare the local Lambda service in " + config.workDir(), e);
        }
        service.server.createContext(PATH, service::serve);
        service.server.setExecutor(service.executor);
        service.server.start();
        // No orphan JVMs when the CLI exits without closing us (Ctrl-C, System.exit).
        Runtime.getRuntime().addShutdownHook(service.shutdownHook);
        try {
            functions.forEach(service::deploy);
        } catch (RuntimeException e) {
            service.close();
            throw e;
        }
        return service;
    }

    /**
     * Creates a function, or replaces its configuration as UpdateFunctionConfiguration does: the old
     * configuration's sandboxes are shut down (an invocation still running in one ends with a
     * {@code ServiceException}) and the next invocation starts one with the new configuration. Lets the
     * integrator start the Invoke API first (moto needs its address) and deploy the functions once their
     * environment (table names, the state machine's ARN) is known. A function keeps its access key id.
     */
    public void deploy(FunctionSpec spec) {
        if (closed.get()) {
            throw new IllegalStateException("the local Lambda service is closed");
        }
        credentials.register(spec.logicalName());
        Path taskRoot;
        try {
            taskRoot = Files.createDirectories(config.workDir().resolve("task").resolve(spec.logicalName()));
        } catch (IOException e) {
            throw new UncheckedIOException("could not create the task root of " + spec.logicalName(), e);
        }
        invocations.putIfAbsent(spec.logicalName(), new AtomicInteger());
        sandboxNumbers.putIfAbsent(spec.logicalName(), new AtomicInteger());
        SandboxPool previous;
        synchronized (this) {
            if (closed.get()) {
                throw new IllegalStateException("the local Lambda service is closed");
            }
            specs.put(spec.logicalName(), spec);
            int limit = spec.reservedConcurrency().orElse(config.maxSandboxesPerFunction());
            previous = pools.put(spec.logicalName(), new SandboxPool(limit, () -> startSandbox(spec, taskRoot)));
        }
        if (previous != null) {
            shutDown(previous.close());
        }
    }

    /** The most sandboxes the function runs at once: its reserved concurrency, else the service's cap. */
    public int concurrencyLimit(String logicalName) {
        SandboxPool pool = pools.get(logicalName);
        if (pool == null) {
            throw new IllegalArgumentException("no function " + logicalName + " is deployed");
        }
        return pool.limit();
    }

    @Override
    public URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @Override
    public void hook(InvocationHook newHook) {
        hook.set(newHook == null ? InvocationHook.NONE : newHook);
    }

    @Override
    public Map<LambdaFunction, Integer> invocationCounts() {
        Map<LambdaFunction, Integer> counts = new EnumMap<>(LambdaFunction.class);
        for (LambdaFunction function : LambdaFunction.values()) {
            AtomicInteger n = invocations.get(function.logicalName());
            if (n != null) {
                counts.put(function, n.get());
            }
        }
        return counts;
    }

    /** Invocations so far of the function with this logical name (throttled ones included, as Lambda counts requests). */
    public int invocationCount(String logicalName) {
        AtomicInteger n = invocations.get(logicalName);
        if (n == null) {
            throw new IllegalArgumentException("no function " + logicalName);
        }
        return n.get();
    }

    @Override
    public void resetCounts() {
        invocations.values().forEach(n -> n.set(0));
    }

    @Override
    public void limitInvocationTime(Duration limit) {
        invocationTimeLimit.set(limit);
    }

    /** Access key id → the logical name of the function whose sandboxes sign with it. */
    public Map<String, String> functionsByAccessKeyId() {
        return credentials.functionsByAccessKeyId();
    }

    public Optional<String> functionOfAccessKeyId(String accessKeyId) {
        return credentials.functionOf(accessKeyId);
    }

    /** The access key id the function's sandboxes get. */
    public String accessKeyIdOf(String logicalName) {
        return credentials.of(logicalName).accessKeyId();
    }

    /** The container credentials endpoint (what {@code AWS_CONTAINER_CREDENTIALS_FULL_URI} holds). */
    public URI credentialsUri() {
        return credentials.uri();
    }

    /** The function's current sandboxes (dead ones drop out once they are no longer busy). */
    public List<SandboxInfo> sandboxes(String logicalName) {
        SandboxPool pool = pools.get(logicalName);
        if (pool == null) {
            throw new IllegalArgumentException("no function " + logicalName);
        }
        return pool.infos();
    }

    /** Where the sandbox's stdout and stderr go. */
    public Path logOf(String sandboxId) {
        return config.workDir().resolve("sandboxes").resolve(sandboxId + ".log");
    }

    private Sandbox startSandbox(FunctionSpec spec, Path taskRoot) {
        String id = spec.logicalName() + "-" + sandboxNumbers.get(spec.logicalName()).incrementAndGet();
        FunctionCredentials functionCredentials = credentials.of(spec.logicalName());
        byte[] stream = new byte[16];
        new SecureRandom().nextBytes(stream);
        String logStream = HexFormat.of().formatHex(stream);
        File log = logOf(id).toFile();
        return new Sandbox(id, spec, config.initTimeout(), timers, runtimeApi -> {
            SandboxEnvironment env = SandboxEnvironment.of(spec, config.region(), runtimeApi, taskRoot,
                    credentials.uri(), functionCredentials.authorizationToken(), logStream);
            ProcessBuilder builder = new ProcessBuilder(command(spec))
                    .directory(taskRoot.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log));
            builder.environment().clear();
            builder.environment().putAll(env.variables());
            LOG.debug("starting sandbox {} ({})", id, spec.handler());
            return builder.start();
        });
    }

    /** The JVM as Lambda's java runtimes start it (their command line, minus the paths of /var/runtime). */
    private List<String> command(FunctionSpec spec) {
        List<Path> classpath = new ArrayList<>(runtimeClasspath);
        classpath.addAll(config.code().classpath());
        return List.of(javaExecutable,
                HeapSize.forMemory(spec.memoryMb()).jvmOption(),
                "-XX:+UseSerialGC",
                "-XX:+TieredCompilation", "-XX:TieredStopAtLevel=1",
                "-Xshare:auto",
                "--add-opens=java.base/java.io=ALL-UNNAMED",
                "-Dorg.crac.Core.Compat=com.amazonaws.services.lambda.crac",
                "-Djava.net.preferIPv4Stack=true",
                "-XX:+ErrorFileToStderr",
                "-D" + RuntimeNativeLibrary.PROPERTY + "=" + nativeLibrary,
                "-classpath", String.join(File.pathSeparator, classpath.stream().map(Path::toString).toList()),
                RUNTIME_MAIN,
                spec.handler());
    }

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            String rest = exchange.getRequestURI().getRawPath().substring(PATH.length());
            if (!"POST".equals(exchange.getRequestMethod()) || !rest.endsWith("/invocations")) {
                refuse(exchange, null, 404, "ResourceNotFoundException", "no such route");
                return;
            }
            String named = URLDecoder.decode(rest.substring(0, rest.length() - "/invocations".length()), StandardCharsets.UTF_8);
            FunctionName name = FunctionName.parse(named);
            FunctionSpec spec = specs.get(name.function());
            if (spec == null) {
                refuse(exchange, null, 404, "ResourceNotFoundException", "Function not found: " + name.arn(config.region(), config.accountId()));
                return;
            }
            byte[] payload = exchange.getRequestBody().readAllBytes();
            int invocation = invocations.get(spec.logicalName()).incrementAndGet();
            LambdaFunction known = known(spec.logicalName());
            InvocationHook current = hook.get();
            if (known != null) {
                InvocationHook.InjectedFailure before = current.before(known, invocation, payload);
                if (before != null) {
                    inject(exchange, before);
                    return;
                }
            }
            Invocation running = Invocation.of(payload, name.arn(config.region(), config.accountId()), advertised(spec));
            InvocationOutcome outcome = run(spec, running);
            switch (outcome) {
                case InvocationOutcome.Succeeded succeeded -> {
                    if (known != null) {
                        InvocationHook.InjectedFailure after = current.afterSuccess(known, invocation, payload, succeeded.payload());
                        if (after != null) {
                            inject(exchange, after);
                            return;
                        }
                    }
                    reply(exchange, running.requestId(), 200, Map.of(), succeeded.payload());
                }
                case InvocationOutcome.FunctionFailed failed ->
                        reply(exchange, running.requestId(), 200, Map.of("X-Amz-Function-Error", "Unhandled"), failed.errorJson());
                case InvocationOutcome.Refused refused ->
                        reply(exchange, running.requestId(), refused.httpStatus(), Map.of("x-amzn-ErrorType", refused.errorType()), refused.body());
            }
        }
    }

    private InvocationOutcome run(FunctionSpec spec, Invocation invocation) {
        if (closed.get()) {
            return new InvocationOutcome.Refused(500, "ServiceException", LambdaErrors.serviceError("shutting down"));
        }
        SandboxPool pool = pools.get(spec.logicalName());
        Optional<Sandbox> sandbox;
        try {
            sandbox = pool.acquire();
        } catch (RuntimeException e) {
            LOG.warn("{}: could not start a sandbox: {}", spec.logicalName(), e.toString());
            return new InvocationOutcome.Refused(500, "ServiceException", LambdaErrors.serviceError(
                    "could not start a sandbox: " + e.getMessage()));
        }
        if (sandbox.isEmpty()) {
            return new InvocationOutcome.Refused(429, "TooManyRequestsException", LambdaErrors.throttled());
        }
        try {
            return sandbox.get().invoke(invocation).join();
        } finally {
            pool.release(sandbox.get());
        }
    }

    private Duration advertised(FunctionSpec spec) {
        Duration limit = invocationTimeLimit.get();
        return limit != null && limit.compareTo(spec.timeout()) < 0 ? limit : spec.timeout();
    }

    private static LambdaFunction known(String logicalName) {
        for (LambdaFunction function : LambdaFunction.values()) {
            if (function.logicalName().equals(logicalName)) {
                return function;
            }
        }
        return null;
    }

    private void inject(HttpExchange exchange, InvocationHook.InjectedFailure failure) throws IOException {
        String body = com.payments.reconciler.workflow.Json.mapper().createObjectNode()
                .put("errorType", failure.code()).put("errorMessage", failure.message()).toString();
        if (failure.serviceError()) {
            reply(exchange, null, failure.httpStatus(), Map.of("x-amzn-ErrorType", failure.code()), body.getBytes(StandardCharsets.UTF_8));
        } else {
            reply(exchange, null, 200, Map.of("X-Amz-Function-Error", "Unhandled"), body.getBytes(StandardCharsets.UTF_8));
        }
    }

    private void refuse(HttpExchange exchange, String requestId, int status, String type, String message) throws IOException {
        String body = com.payments.reconciler.workflow.Json.mapper().createObjectNode()
                .put("Type", "User").put("message", message).toString();
        reply(exchange, requestId, status, Map.of("x-amzn-ErrorType", type), body.getBytes(StandardCharsets.UTF_8));
    }

    private static void reply(HttpExchange exchange, String requestId, int status, Map<String, String> headers, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.getResponseHeaders().set("X-Amz-Executed-Version", "$LATEST");
        // Callers (botocore in moto's executor) read the request id of every response, errors included.
        exchange.getResponseHeaders().set("x-amzn-RequestId", requestId != null ? requestId : java.util.UUID.randomUUID().toString());
        headers.forEach((k, v) -> exchange.getResponseHeaders().set(k, v));
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        exchange.getResponseBody().write(body);
    }

    private void shutDown(List<Sandbox> sandboxes) {
        sandboxes.forEach(Sandbox::beginShutdown);
        for (Sandbox sandbox : sandboxes) {
            if (!sandbox.awaitShutdown(config.shutdownGrace())) {
                LOG.warn("sandbox {} (pid {}) did not end", sandbox.id(), sandbox.pid());
            }
        }
    }

    /** Ends every sandbox: destroy, then destroyForcibly after {@link Config#shutdownGrace()}. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // called from the hook itself
        }
        server.stop(0);
        List<Sandbox> all = new ArrayList<>();
        synchronized (this) {
            pools.values().forEach(pool -> all.addAll(pool.close()));
        }
        shutDown(all);
        credentials.close();
        timers.shutdownNow();
        executor.shutdownNow();
    }
}
