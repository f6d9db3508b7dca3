package com.payments.reconciler.harness.lambda;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.harness.lambda.handlers.EnvironmentHandler;
import com.payments.reconciler.harness.lambda.handlers.FailingInitHandler;
import com.payments.reconciler.harness.lambda.handlers.ScriptedHandler;
import com.payments.reconciler.workflow.Json;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The process Lambda service with small test handlers (this module's test classes, plus the functions' shaded
 * jar for the SDK), each in JVM sandboxes of its own. No sleeps: every wait is on an HTTP answer, a
 * socket or a process exit, each bounded.
 */
class ProcessLambdaServiceTest {

    static final int CAP = 2;
    static final String SCRIPTED = ScriptedHandler.class.getName() + "::handleRequest";
    static final String ENVIRONMENT = EnvironmentHandler.class.getName() + "::handleRequest";

    /** Every variable the Env function's sandbox must have, and nothing else. */
    static final Set<String> RESERVED_AND_OWN = Set.of(
            "FUNCTION_SETTING", "_HANDLER", "AWS_EXECUTION_ENV", "AWS_LAMBDA_FUNCTION_NAME", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
            "AWS_LAMBDA_FUNCTION_VERSION", "AWS_LAMBDA_INITIALIZATION_TYPE", "AWS_LAMBDA_LOG_GROUP_NAME", "AWS_LAMBDA_LOG_STREAM_NAME",
            "AWS_LAMBDA_RUNTIME_API", "AWS_REGION", "AWS_DEFAULT_REGION", "LAMBDA_TASK_ROOT", "TZ", "LANG", "PATH",
            "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_AUTHORIZATION_TOKEN");

    @TempDir
    static Path workDir;
    static ProcessLambdaService service;
    static Invoker lambda;

    @BeforeAll
    static void start() throws Exception {
        Path testClasses = FunctionCode.codeSourceOf(ScriptedHandler.class.getName());
        FunctionCode code = new FunctionCode(List.of(testClasses, lambdaJar()));
        List<FunctionSpec> functions = List.of(
                new FunctionSpec("Echo", SCRIPTED, 256, Duration.ofSeconds(30), Map.of()),
                new FunctionSpec("Env", EnvironmentHandler.class.getName() + "::handleRequest", 512, Duration.ofSeconds(60),
                        Map.of("FUNCTION_SETTING", "on")),
                new FunctionSpec("Sleepy", SCRIPTED, 128, Duration.ofSeconds(2), Map.of()),
                new FunctionSpec("Concurrent", SCRIPTED, 128, Duration.ofSeconds(60), Map.of()),
                new FunctionSpec("ReservedOne", SCRIPTED, 128, Duration.ofSeconds(60), Map.of(), OptionalInt.of(1)),
                new FunctionSpec("Exits", SCRIPTED, 128, Duration.ofSeconds(30), Map.of()),
                new FunctionSpec("Redeployed", ENVIRONMENT, 256, Duration.ofSeconds(60), Map.of("CONFIGURATION", "1")),
                new FunctionSpec("BrokenInit", FailingInitHandler.class.getName() + "::handleRequest", 128, Duration.ofSeconds(30), Map.of()));
        service = ProcessLambdaService.start(ProcessLambdaService.Config.defaults(workDir, code)
                .withMaxSandboxesPerFunction(CAP).withInitTimeout(Invoker.ANSWER_WITHIN), functions);
        lambda = Invoker.of(service.uri());
    }

    static Path lambdaJar() {
        assertThat(System.getProperty(FunctionCode.LAMBDA_JAR_PROPERTY)).as("system property reconciler.lambdaJar (harness/pom.xml sets it)").isNotBlank();
        return FunctionCode.deploymentPackage();
    }

    @AfterAll
    static void stop() {
        if (service != null) {
            service.close();
        }
    }

    @Test
    void anEchoComesBackWithTheContextLambdaFillsFromTheNextHeaders() {
        int before = service.invocationCount("Echo");
        Invoker.Answer answer = lambda.invoke("Echo", "{\"hello\":\"world\"}");

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.functionError()).isNull();
        JsonNode body = answer.json();
        assertThat(body.get("echo").asText()).isEqualTo("{\"hello\":\"world\"}");
        assertThat(body.get("requestId").asText()).isEqualTo(answer.requestId());
        assertThat(body.get("invokedFunctionArn").asText()).isEqualTo("arn:aws:lambda:us-east-1:123456789012:function:Echo");
        assertThat(body.get("functionName").asText()).isEqualTo("Echo");
        assertThat(body.get("memoryLimitInMB").asInt()).isEqualTo(256);
        assertThat(body.get("remainingTimeInMillis").asLong()).isBetween(1L, 30_000L);
        assertThat(body.get("logStreamName").asText()).matches("\\d{4}/\\d{2}/\\d{2}/\\[\\$LATEST\\][0-9a-f]{32}");

        Invoker.Answer qualified = lambda.invoke("arn:aws:lambda:eu-west-1:111122223333:function:Echo:live", "{}");
        assertThat(qualified.json().get("invokedFunctionArn").asText()).isEqualTo("arn:aws:lambda:eu-west-1:111122223333:function:Echo:live");
        assertThat(qualified.json().get("pid").asLong()).as("the warm sandbox takes the second call").isEqualTo(body.get("pid").asLong());
        assertThat(service.sandboxes("Echo")).hasSize(1);
        assertThat(service.invocationCount("Echo")).isEqualTo(before + 2);

        long start = System.nanoTime();
        int rounds = 20;
        for (int i = 0; i < rounds; i++) {
            assertThat(lambda.invoke("Echo", "{\"round\":" + i + "}").status()).isEqualTo(200);
        }
        System.out.printf("warm round trip: %.1f ms (mean of %d); cold start: %s%n",
                (System.nanoTime() - start) / 1e6 / rounds, rounds, service.sandboxes("Echo").getFirst().coldStart().orElseThrow().toMillis() + " ms");
    }

    @Test
    void anUnknownFunctionIsResourceNotFound() {
        Invoker.Answer answer = lambda.invoke("NoSuchFunction", "{}");

        assertThat(answer.status()).isEqualTo(404);
        assertThat(answer.errorType()).isEqualTo("ResourceNotFoundException");
    }

    @Test
    void theSandboxSeesLambdasReservedVariablesAndContainerCredentialsAndNothingOfTheParentsEnvironment() throws Exception {
        Invoker.Answer answer = lambda.invoke("Env", "{}");
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        JsonNode body = answer.json();
        Map<String, String> env = Json.mapper().convertValue(body.get("env"),
                Json.mapper().getTypeFactory().constructMapType(Map.class, String.class, String.class));

        assertThat(env.keySet()).containsExactlyInAnyOrderElementsOf(RESERVED_AND_OWN);
        assertThat(env).containsEntry("FUNCTION_SETTING", "on")
                .containsEntry("_HANDLER", EnvironmentHandler.class.getName() + "::handleRequest")
                .containsEntry("AWS_EXECUTION_ENV", "AWS_Lambda_java25")
                .containsEntry("AWS_LAMBDA_FUNCTION_NAME", "Env")
                .containsEntry("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "512")
                .containsEntry("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
                .containsEntry("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand")
                .containsEntry("AWS_LAMBDA_LOG_GROUP_NAME", "/aws/lambda/Env")
                .containsEntry("AWS_REGION", "us-east-1")
                .containsEntry("AWS_DEFAULT_REGION", "us-east-1")
                .containsEntry("LAMBDA_TASK_ROOT", workDir.resolve("task").resolve("Env").toString())
                .containsEntry("TZ", ":UTC")
                .containsEntry("LANG", "en_US.UTF-8")
                .containsEntry("PATH", SandboxEnvironment.LAMBDA_PATH)
                .containsEntry("AWS_CONTAINER_CREDENTIALS_FULL_URI", service.credentialsUri().toString());
        assertThat(env.get("AWS_LAMBDA_RUNTIME_API")).matches("127\\.0\\.0\\.1:\\d+");
        assertThat(env.get("AWS_CONTAINER_AUTHORIZATION_TOKEN")).matches("[0-9a-f]{64}");
        assertThat(env).doesNotContainKeys("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "HOME", "JAVA_HOME");
        Set<String> inherited = new HashSet<>(System.getenv().keySet());
        inherited.removeAll(RESERVED_AND_OWN);
        assertThat(env.keySet()).doesNotContainAnyElementsOf(inherited);
        System.getenv().forEach((name, value) -> {
            if (RESERVED_AND_OWN.contains(name) && !Set.of("LANG", "TZ", "AWS_REGION", "AWS_DEFAULT_REGION").contains(name)) {
                assertThat(env.get(name)).as("%s is Lambda's, not the parent's", name).isNotEqualTo(value);
            }
        });

        assertThat(body.get("userDir").asText()).isEqualTo(workDir.resolve("task").resolve("Env").toString());
        List<String> jvmArgs = new ArrayList<>();
        body.get("jvmArgs").forEach(a -> jvmArgs.add(a.asText()));
        assertThat(jvmArgs).contains("-XX:MaxHeapSize=445645k", "-XX:+UseSerialGC");

        // The SDK's default chain, inside the sandbox, resolved the function's own container credentials.
        assertThat(body.get("accessKeyId").asText()).isEqualTo(service.accessKeyIdOf("Env")).matches("ASIA[A-Z0-9]{16}");
        assertThat(body.get("region").asText()).isEqualTo("us-east-1");
        assertThat(service.functionOfAccessKeyId(body.get("accessKeyId").asText())).contains("Env");
        assertThat(service.accessKeyIdOf("Echo")).isNotEqualTo(service.accessKeyIdOf("Env"));
        assertThat(service.functionsByAccessKeyId()).hasSize(8).containsEntry(service.accessKeyIdOf("Echo"), "Echo");

        // The endpoint answers only the right token.
        HttpClient http = HttpClient.newHttpClient();
        URI uri = URI.create(env.get("AWS_CONTAINER_CREDENTIALS_FULL_URI"));
        assertThat(http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
        assertThat(http.send(HttpRequest.newBuilder(uri).header("Authorization", "0".repeat(64)).GET().build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(403);
        HttpResponse<String> granted = http.send(HttpRequest.newBuilder(uri).header("Authorization", env.get("AWS_CONTAINER_AUTHORIZATION_TOKEN"))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(granted.statusCode()).isEqualTo(200);
        JsonNode credentials = Json.mapper().readTree(granted.body());
        assertThat(credentials.get("AccessKeyId").asText()).isEqualTo(service.accessKeyIdOf("Env"));
        assertThat(credentials.fieldNames()).toIterable().containsExactlyInAnyOrder("AccessKeyId", "SecretAccessKey", "Token", "Expiration");
    }

    @Test
    void anInvocationPastTheTimeoutIsSandboxTimedoutAndTheSandboxIsReplaced() throws Exception {
        long firstPid = lambda.invoke("Sleepy", "{}").json().get("pid").asLong();

        Invoker.Answer timedOut = lambda.invoke("Sleepy", "{\"blockForever\":true}");

        assertThat(timedOut.status()).isEqualTo(200);
        assertThat(timedOut.functionError()).isEqualTo("Unhandled");
        assertThat(timedOut.json().get("errorType").asText()).isEqualTo("Sandbox.Timedout");
        assertThat(timedOut.json().get("errorMessage").asText())
                .isEqualTo("RequestId: " + timedOut.requestId() + " Error: Task timed out after 2.00 seconds");
        ProcessHandle old = ProcessHandle.of(firstPid).orElse(null);
        if (old != null) {
            old.onExit().get(60, TimeUnit.SECONDS);
        }

        Invoker.Answer after = lambda.invoke("Sleepy", "{}");
        assertThat(after.status()).isEqualTo(200);
        assertThat(after.functionError()).isNull();
        assertThat(after.json().get("pid").asLong()).isNotEqualTo(firstPid);
        assertThat(service.sandboxes("Sleepy")).extracting(SandboxInfo::id).containsExactly("Sleepy-2");
    }

    /**
     * Lambda gives each execution environment its own {@code /tmp}; the runtime client unpacks its native
     * library to {@code /tmp/.libaws-lambda-jni.so} (replacing it) unless told where one is. Sandboxes sharing
     * the machine's {@code /tmp} then race: one deletes and rewrites the file while another loads it, that one
     * loads a truncated library and exits ({@code Failed to load the native runtime interface client
     * library}), which is how two concurrent cold starts sometimes left one invocation unanswered.
     */
    @Test
    void eachSandboxLoadsTheRuntimeClientsNativeLibraryFromTheServicesOwnCopyNeverTheSharedTmp() throws Exception {
        Path maps = Path.of("/proc/self/maps");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(maps), "needs Linux /proc to see what a process mapped");
        long pid = lambda.invoke("Echo", "{}").json().get("pid").asLong();

        List<String> mapped = Files.readAllLines(Path.of("/proc/" + pid + "/maps")).stream()
                .filter(line -> line.contains("libaws-lambda-jni"))
                .map(line -> line.substring(line.indexOf('/')))
                .distinct().toList();

        assertThat(mapped).as("the runtime client's native library, as the sandbox mapped it").hasSize(1);
        assertThat(Path.of(mapped.getFirst())).as("never the machine-wide /tmp copy another sandbox may be rewriting")
                .isNotEqualTo(Path.of("/tmp/.libaws-lambda-jni.so"))
                .startsWith(workDir);
    }

    @Test
    void concurrentInvocationsScaleOutToOneSandboxEachAndAreThrottledBeyondTheCap() throws Exception {
        try (ServerSocket gate = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            gate.setSoTimeout((int) Invoker.ANSWER_WITHIN.toMillis());
            String blocking = "{\"blockOnPort\":" + gate.getLocalPort() + "}";
            List<CompletableFuture<Invoker.Answer>> running = List.of(
                    lambda.invokeAsync("Concurrent", blocking), lambda.invokeAsync("Concurrent", blocking));
            List<Socket> held = new ArrayList<>();
            Set<Long> pids = new HashSet<>();
            for (int i = 0; i < CAP; i++) {
                Socket socket = gate.accept();
                held.add(socket);
                pids.add(Long.parseLong(new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8)).readLine()));
            }
            assertThat(pids).as("both handlers run at once, in two processes").hasSize(2);
            assertThat(service.sandboxes("Concurrent")).hasSize(2);

            Invoker.Answer throttled = lambda.invoke("Concurrent", "{}");
            assertThat(throttled.status()).isEqualTo(429);
            assertThat(throttled.errorType()).isEqualTo("TooManyRequestsException");
            assertThat(throttled.json().get("Reason").asText()).isEqualTo("ReservedFunctionConcurrentInvocationLimitExceeded");

            for (Socket socket : held) {
                socket.getOutputStream().write(1);
                socket.getOutputStream().flush();
            }
            Set<Long> answeredBy = new HashSet<>();
            for (CompletableFuture<Invoker.Answer> answer : running) {
                Invoker.Answer done = answer.get(Invoker.ANSWER_WITHIN.toSeconds(), TimeUnit.SECONDS);
                assertThat(done.status()).isEqualTo(200);
                answeredBy.add(done.json().get("pid").asLong());
            }
            assertThat(answeredBy).isEqualTo(pids);
            held.forEach(s -> {
                try {
                    s.close();
                } catch (java.io.IOException ignored) {
                    // closing a test socket
                }
            });
        }
        assertThat(lambda.invoke("Concurrent", "{}").status()).as("free again once they answered").isEqualTo(200);
        assertThat(service.sandboxes("Concurrent")).hasSize(2);
    }

    /** A function's reserved concurrency is its cap, below the service's: the second concurrent invocation is throttled. */
    @Test
    void aFunctionsReservedConcurrencyCapsItsSandboxesBelowTheServicesCap() throws Exception {
        assertThat(service.concurrencyLimit("ReservedOne")).isEqualTo(1);
        assertThat(service.concurrencyLimit("Concurrent")).isEqualTo(CAP);
        try (ServerSocket gate = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            gate.setSoTimeout((int) Invoker.ANSWER_WITHIN.toMillis());
            CompletableFuture<Invoker.Answer> running = lambda.invokeAsync("ReservedOne", "{\"blockOnPort\":" + gate.getLocalPort() + "}");
            try (Socket held = gate.accept()) {
                Invoker.Answer throttled = lambda.invoke("ReservedOne", "{}");
                assertThat(throttled.status()).isEqualTo(429);
                assertThat(throttled.errorType()).isEqualTo("TooManyRequestsException");
                held.getOutputStream().write(1);
                held.getOutputStream().flush();
                assertThat(running.get(Invoker.ANSWER_WITHIN.toSeconds(), TimeUnit.SECONDS).status()).isEqualTo(200);
            }
        }
        assertThat(service.sandboxes("ReservedOne")).hasSize(1);
    }

    @Test
    void aProcessThatExitsMidInvocationIsRuntimeExitError() {
        Invoker.Answer answer = lambda.invoke("Exits", "{\"exit\":3}");

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.functionError()).isEqualTo("Unhandled");
        assertThat(answer.json().get("errorType").asText()).isEqualTo("Runtime.ExitError");
        assertThat(answer.json().get("errorMessage").asText())
                .isEqualTo("RequestId: " + answer.requestId() + " Error: Runtime exited with error: exit status 3");
        assertThat(lambda.invoke("Exits", "{}").status()).as("a fresh sandbox takes the next one").isEqualTo(200);
    }

    @Test
    void aConstructorThatThrowsFailsTheInvocationWithTheInitError() {
        Invoker.Answer answer = lambda.invoke("BrokenInit", "{}");

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.functionError()).isEqualTo("Unhandled");
        assertThat(answer.json().get("errorType").asText()).isEqualTo("java.lang.IllegalStateException");
        assertThat(answer.json().get("errorMessage").asText()).isEqualTo("environment variable TABLE_NAME must be set");
        assertThat(lambda.invoke("BrokenInit", "{}").json().get("errorType").asText())
                .as("every new sandbox fails its init again").isEqualTo("java.lang.IllegalStateException");
    }

    @Test
    void redeployingAFunctionReplacesItsSandboxesWithOnesOfTheNewConfiguration() throws Exception {
        assertThat(lambda.invoke("Redeployed", "{}").json().at("/env/CONFIGURATION").asText()).isEqualTo("1");
        SandboxInfo first = service.sandboxes("Redeployed").getFirst();
        String accessKeyId = service.accessKeyIdOf("Redeployed");

        service.deploy(new FunctionSpec("Redeployed", ENVIRONMENT, 256, Duration.ofSeconds(60), Map.of("CONFIGURATION", "2")));

        ProcessHandle old = ProcessHandle.of(first.pid()).orElse(null);
        if (old != null) {
            old.onExit().get(60, TimeUnit.SECONDS);
        }
        JsonNode after = lambda.invoke("Redeployed", "{}").json();
        assertThat(after.at("/env/CONFIGURATION").asText()).isEqualTo("2");
        assertThat(after.get("accessKeyId").asText()).isEqualTo(accessKeyId);
        assertThat(service.sandboxes("Redeployed")).extracting(SandboxInfo::id).containsExactly("Redeployed-2");
    }

    @Test
    void eachSandboxLogsToItsOwnFileNotToTheCli() throws Exception {
        Invoker.Answer answer = lambda.invoke("Echo", "{\"log\":1}");

        String sandbox = service.sandboxes("Echo").getFirst().id();
        assertThat(Files.readString(service.logOf(sandbox))).contains("ScriptedHandler answered " + answer.requestId());
    }
}
