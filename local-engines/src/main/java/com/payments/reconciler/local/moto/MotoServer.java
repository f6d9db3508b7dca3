package com.payments.reconciler.local.moto;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * moto, the local DynamoDB and Step Functions, as a child process on 127.0.0.1.
 *
 * <p>Served one request at a time (see {@code moto_launcher.py} for why). Everything talks to it
 * through the real AWS SDK clients with an endpoint override; nothing else knows it is not AWS.
 * The process is destroyed on {@link #close()} and, as a last resort, by a shutdown hook, so no
 * test run leaves an orphan behind.
 */
public final class MotoServer implements AutoCloseable {

    private static final List<String> LAUNCHER_FILES = List.of("moto_launcher.py", "transactions_patch.py", "index_patch.py", "sqs_patch.py", "expression_patch.py", "serialize_patch.py", "dispatch_patch.py",
            "write_log.py");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final Process process;
    private final int port;
    private final Thread shutdownHook;
    private final HttpClient http = HttpClient.newHttpClient();

    private MotoServer(Process process, int port) {
        this.process = process;
        this.port = port;
        this.shutdownHook = new Thread(process::destroyForcibly, "moto-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** Starts moto with no Lambda routing (DynamoDB and the Step Functions API only). */
    public static MotoServer start(Path workDir) {
        return start(workDir, Optional.empty());
    }

    /**
     * Starts moto. With a Lambda endpoint, Step Functions executes definitions and its Lambda
     * tasks call the Invoke API there.
     *
     * @param workDir where the launcher is unpacked and moto's log is written (under target/)
     */
    public static MotoServer start(Path workDir, Optional<URI> lambdaEndpoint) {
        return start(workDir, lambdaEndpoint, Map.of());
    }

    /**
     * Starts moto with extra environment for the launcher, e.g. {@code RECONCILER_GSI_PATCH=off} for an
     * engine with moto's own GSI queries to compare against (the launcher's patches read their switches there).
     */
    public static MotoServer start(Path workDir, Optional<URI> lambdaEndpoint, Map<String, String> environment) {
        requireMoto();
        try {
            Files.createDirectories(workDir);
            for (String file : LAUNCHER_FILES) {
                try (InputStream in = MotoServer.class.getResourceAsStream(file)) {
                    if (in == null) {
                        throw new IllegalStateException("launcher resource missing from the classpath: " + file);
                    }
                    Files.copy(in, workDir.resolve(file), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            int port = freePort();
            ProcessBuilder builder = new ProcessBuilder("python3", "-u", "moto_launcher.py", Integer.toString(port))
                    .directory(workDir.toFile())
                    .redirectError(workDir.resolve("moto-" + port + ".log").toFile());
            builder.environment().put("PYTHONDONTWRITEBYTECODE", "1");
            lambdaEndpoint.ifPresent(uri -> builder.environment().put("RECONCILER_LAMBDA_ENDPOINT", uri.toString()));
            builder.environment().putAll(environment);
            Process process = builder.start();
            MotoServer server = new MotoServer(process, port);
            server.awaitReady(workDir);
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start moto", e);
        }
    }

    /** Fails with one clear line when the machine lacks python3 or moto. */
    public static void requireMoto() {
        String version;
        try {
            Process check = new ProcessBuilder("python3", "-c", "import moto, werkzeug; print(moto.__version__)").redirectErrorStream(true).start();
            version = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!check.waitFor(30, TimeUnit.SECONDS) || check.exitValue() != 0) {
                throw new IllegalStateException(MISSING);
            }
        } catch (IOException e) {
            throw new IllegalStateException(MISSING, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(MISSING, e);
        }
        requireVersion(version);
    }

    /** The launcher's patches replace moto internals by name: another version may not have them, or not do what they replace. */
    static void requireVersion(String found) {
        if (!REQUIRED_VERSION.equals(found)) {
            throw new IllegalStateException("The local engines need moto " + REQUIRED_VERSION + " (the launcher patches its internals); python3 has moto "
                    + (found.isEmpty() ? "of an unknown version" : found) + ".");
        }
    }

    /** The moto the patches in this package were written and tested against. */
    public static final String REQUIRED_VERSION = "5.2.1";

    private static final String MISSING =
            "The local engines need python3 with moto " + REQUIRED_VERSION + " (import moto, werkzeug) on PATH; it is part of the machine image and cannot be installed from here.";

    private void awaitReady(Path workDir) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> {
            try {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith("READY ")) {
                        return line;
                    }
                }
                return null;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        try {
            String line = ready.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            if (line == null) {
                throw new IllegalStateException("moto exited before listening; see " + workDir.resolve("moto-" + port + ".log"));
            }
            // Drain further stdout so the child never blocks on a full pipe.
            Thread drain = new Thread(() -> {
                try {
                    out.transferTo(java.io.Writer.nullWriter());
                } catch (IOException ignored) {
                    // the process ended
                }
            }, "moto-stdout");
            drain.setDaemon(true);
            drain.start();
            waitUntilListening();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IllegalStateException("interrupted while starting moto", e);
        } catch (ExecutionException | TimeoutException e) {
            close();
            throw new IllegalStateException("moto did not start within " + START_TIMEOUT + "; see " + workDir, e);
        }
    }

    private void waitUntilListening() throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(endpoint() + "/moto-api/data.json")).GET().build(),
                        HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() < 500) {
                    return;
                }
            } catch (IOException notYet) {
                // the socket may open a moment after READY is printed
            }
            Thread.onSpinWait();
        }
        throw new IllegalStateException("moto printed READY but does not answer on port " + port);
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    public int port() {
        return port;
    }

    /** Drops every table, item, state machine and execution: a clean engine in milliseconds. */
    public void reset() {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(endpoint() + "/moto-api/reset"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("moto reset failed: HTTP " + r.statusCode() + " " + r.body());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("moto reset failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during moto reset", e);
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 0, java.net.InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
    }

    static List<String> launcherFiles() {
        return new ArrayList<>(LAUNCHER_FILES);
    }
}
