package com.payments.reconciler.model;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs {@code spin} on {@code docs/model/lease.pml}: one fresh work directory under the build directory per
 * run, where the model is copied, {@code pan.c} generated, compiled and searched, and a trail replayed.
 * Every process writes to files there and is killed (with its children) if it overruns its timeout.
 */
final class SpinModelChecker {

    static final String MODEL_FILE = "lease.pml";
    static final String TRAIL_FILE = MODEL_FILE + ".trail";

    // Safety nets against a hung tool, far above the measured times; the figures are printed, not asserted.
    private static final Duration GENERATE_TIMEOUT = Duration.ofMinutes(1);
    private static final Duration COMPILE_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration SEARCH_TIMEOUT = Duration.ofMinutes(5);
    private static final Duration REPLAY_TIMEOUT = Duration.ofMinutes(1);

    // Deeper than any path in the bounded model (a few hundred steps), so a truncated search is a failure.
    private static final String MAX_DEPTH = "-m100000";
    // Keeps a runaway search from taking the shared machine's memory; hitting it is reported as incomplete.
    private static final String MEMORY_LIMIT_MB = "-DMEMLIM=2048";

    /** The tools, each also the name of the Debian package that provides it (.ci/run installs them). */
    private static final List<String> REQUIRED_TOOLS = List.of("spin", "gcc");

    private final Path model;
    private final Path workRoot;
    private final Path spin;
    private final Path gcc;

    private SpinModelChecker(Path model, Path workRoot, Path spin, Path gcc) {
        this.model = model;
        this.workRoot = workRoot;
        this.spin = spin;
        this.gcc = gcc;
    }

    /**
     * Finds the model and the tools; throws {@link AssertionError} naming what is missing, so the check fails
     * loudly instead of being skipped on a machine without them.
     */
    static SpinModelChecker locate(Path buildDirectory) {
        List<String> missing = new ArrayList<>();
        List<Path> found = new ArrayList<>();
        for (String tool : REQUIRED_TOOLS) {
            Optional<Path> path = onPath(tool);
            path.ifPresentOrElse(found::add, () -> missing.add(tool));
        }
        if (!missing.isEmpty()) {
            throw new AssertionError("The protocol model check (docs/model/" + MODEL_FILE + ") requires spin (Debian package"
                    + " spin) and gcc on PATH; not found: " + String.join(", ", missing) + ". Install them with"
                    + " apt-get install " + String.join(" ", REQUIRED_TOOLS) + "; .ci/run installs them when missing.");
        }
        Path model = findModel(buildDirectory);
        Path workRoot = buildDirectory.resolve("model-check");
        try {
            Files.createDirectories(workRoot);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new SpinModelChecker(model, workRoot, found.get(0), found.get(1));
    }

    /** Generates, compiles and runs the verifier for one variant. */
    Verification verify(ModelVariant variant) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory(workRoot, variant.name() + "-");
        Files.copy(model, dir.resolve(MODEL_FILE));
        ToolRun generate = run(dir, "spin-a", GENERATE_TIMEOUT, spin.toString(), "-a", variant.define(), MODEL_FILE);
        generate.requireSuccess("spin -a " + variant.define());
        List<String> compile = new ArrayList<>(List.of(gcc.toString(), "-O2", "-DSAFETY", MEMORY_LIMIT_MB));
        variant.search().compilerFlag().ifPresent(compile::add);
        compile.addAll(List.of("-o", "pan", "pan.c"));
        run(dir, "gcc", COMPILE_TIMEOUT, compile.toArray(String[]::new)).requireSuccess("gcc pan.c");
        ToolRun search = run(dir, "pan", SEARCH_TIMEOUT, dir.resolve("pan").toString(), MAX_DEPTH);
        return new Verification(variant, dir, PanReport.parse(search.output()), search.output(), String.join(" ", compile));
    }

    /** Replays the trail the search wrote, printing every step ({@code spin -t -p}). */
    String replay(Verification verification) throws IOException, InterruptedException {
        ToolRun replay = run(verification.directory(), "spin-t", REPLAY_TIMEOUT,
                spin.toString(), "-t", "-p", verification.variant().define(), MODEL_FILE);
        replay.requireSuccess("spin -t -p " + verification.variant().define());
        return replay.output();
    }

    /** One search's results, with where its files are. */
    record Verification(ModelVariant variant, Path directory, PanReport report, String output, String compileCommand) {
        boolean wroteTrail() {
            return Files.exists(directory.resolve(TRAIL_FILE));
        }
    }

    private record ToolRun(String name, int exitCode, String output, Path log) {
        void requireSuccess(String what) {
            if (exitCode != 0) {
                throw new AssertionError(what + " exited with " + exitCode + " (output in " + log + "):\n" + output);
            }
        }
    }

    private static ToolRun run(Path dir, String name, Duration timeout, String... command) throws IOException, InterruptedException {
        Path log = dir.resolve(name + ".out");
        Process process = new ProcessBuilder(command).directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError(String.join(" ", command) + " did not finish within " + timeout
                        + "; killed (output so far in " + log + ")");
            }
            return new ToolRun(name, process.exitValue(), Files.readString(log), log);
        } finally {
            if (process.isAlive()) {
                // spin runs the C preprocessor as a child: take it down too.
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static Optional<Path> onPath(String tool) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        return Stream.of(path.split(java.io.File.pathSeparator))
                .filter(entry -> !entry.isBlank())
                .map(entry -> Path.of(entry, tool))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /** The model lives in the repository's docs, above the module whose build directory we are given. */
    private static Path findModel(Path buildDirectory) {
        for (Path dir = buildDirectory.toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("docs").resolve("model").resolve(MODEL_FILE);
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw new AssertionError("docs/model/" + MODEL_FILE + " not found above " + buildDirectory);
    }
}
