package com.payments.reconciler.harness.lambda;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.harness.lambda.handlers.ScriptedHandler;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** close() ends a sandbox that is in the middle of an invocation too: no JVM outlives the service. */
class SandboxShutdownTest {

    @Test
    void closingTheServiceEndsABusySandboxAndItsInvocation(@TempDir Path workDir) throws Exception {
        FunctionCode code = new FunctionCode(List.of(FunctionCode.codeSourceOf(ScriptedHandler.class.getName()),
                ProcessLambdaServiceTest.lambdaJar()));
        ProcessLambdaService service = ProcessLambdaService.start(ProcessLambdaService.Config.defaults(
                        workDir, code).withInitTimeout(Invoker.ANSWER_WITHIN),
                List.of(new FunctionSpec("Busy", ProcessLambdaServiceTest.SCRIPTED, 128, Duration.ofSeconds(300), Map.of())));
        long pid;
        try (ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            gate.setSoTimeout((int) Invoker.ANSWER_WITHIN.toMillis());
            CompletableFuture<Invoker.Answer> running = Invoker.of(service.uri())
                    .invokeAsync("Busy", "{\"blockOnPort\":" + gate.getLocalPort() + "}");
            try (Socket handler = gate.accept()) {
                pid = Long.parseLong(new BufferedReader(new InputStreamReader(handler.getInputStream(), StandardCharsets.UTF_8)).readLine());
                assertThat(service.sandboxes("Busy")).extracting(SandboxInfo::pid).containsExactly(pid);

                long closing = System.nanoTime();
                service.close();
                System.out.printf("close() with a busy sandbox took %d ms%n", (System.nanoTime() - closing) / 1_000_000);

                ProcessHandle process = ProcessHandle.of(pid).orElse(null);
                if (process != null) {
                    process.onExit().get(30, TimeUnit.SECONDS);
                }
                assertThat(handler.getInputStream().read()).as("the handler's end of the socket is gone").isEqualTo(-1);
            }
            assertThat(running).as("the caller is answered (its connection closed), not left waiting").failsWithin(Duration.ofSeconds(30))
                    .withThrowableOfType(java.util.concurrent.ExecutionException.class);
        }
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(java.util.Optional.of(true));
    }
}
