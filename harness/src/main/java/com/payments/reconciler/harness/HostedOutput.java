package com.payments.reconciler.harness;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * Where the functions' own output goes while a local command hosts them in this JVM. On Lambda a function's stdout (its
 * log lines and the EMF metric lines) goes to CloudWatch Logs; here it is this JVM's {@code System.out}, which the command
 * line points at stderr, where a person reads the command's progress: a bench printed some 640 metric lines among its
 * 54 progress lines. So they go to {@value #FILE} in the command's work directory, and to stderr with {@code --verbose}.
 * Functions in Lambda sandboxes (the local night's default) write to their sandbox's own log and are not affected.
 */
final class HostedOutput {

    static final String FILE = "handlers.log";

    private HostedOutput() {
    }

    /** Runs {@code body} with {@code System.out} diverted to the work directory's {@value #FILE} unless {@code verbose}. */
    static <T> T divert(Path workDir, boolean verbose, Callable<T> body) throws Exception {
        if (verbose) {
            return body.call();
        }
        PrintStream previous = System.out;
        try (PrintStream file = new PrintStream(new OpenedOnFirstWrite(workDir.resolve(FILE), previous), true, StandardCharsets.UTF_8)) {
            System.setOut(file);
            try {
                return body.call();
            } finally {
                System.setOut(previous);
            }
        }
    }

    /**
     * Opens (truncating) the file at the first line written, so a command that fails on a bad flag or an unwritable
     * path before any function runs leaves nothing; a file that cannot be opened sends the lines where they went before.
     */
    private static final class OpenedOnFirstWrite extends OutputStream {
        private final Path path;
        private final OutputStream fallback;
        private OutputStream target;

        OpenedOnFirstWrite(Path path, OutputStream fallback) {
            this.path = path;
            this.fallback = fallback;
        }

        private synchronized OutputStream target() {
            if (target == null) {
                try {
                    Files.createDirectories(path.toAbsolutePath().getParent());
                    target = Files.newOutputStream(path);
                } catch (IOException e) {
                    target = fallback;
                }
            }
            return target;
        }

        @Override
        public void write(int b) throws IOException {
            target().write(b);
        }

        @Override
        public void write(byte[] bytes, int off, int len) throws IOException {
            target().write(bytes, off, len);
        }

        @Override
        public synchronized void flush() throws IOException {
            if (target != null) {
                target.flush();
            }
        }

        @Override
        public synchronized void close() throws IOException {
            if (target != null && target != fallback) {
                target.close();
            }
        }
    }
}
