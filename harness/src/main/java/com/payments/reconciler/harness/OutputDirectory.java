package com.payments.reconciler.harness;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An output directory flag ({@code --dump-state}) checked before any work: a night that runs for minutes and then
 * cannot write its evidence has wasted the run and says so too late. Checked by doing what the run will do (create the
 * directory, write a file in it) rather than by permission bits, which a root user or a virtual file system
 * ({@code /proc}) answer differently from the writes themselves.
 */
final class OutputDirectory {

    private static final String PROBE = ".reconciler-write-check";

    private OutputDirectory() {
    }

    /** Creates {@code dir} if needed and proves a file can be written in it; refuses with the flag's name otherwise. */
    static void requireWritable(Path dir, String flag) {
        if (dir == null) {
            return;
        }
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new IllegalArgumentException(flag + ": " + dir + " is a file; give a directory (it is created if missing)");
        }
        try {
            Files.createDirectories(dir);
            Path probe = dir.resolve(PROBE);
            Files.writeString(probe, "");
            Files.delete(probe);
        } catch (FileSystemException e) {
            throw new IllegalArgumentException(flag + ": cannot write to " + dir + " (" + reason(e) + "); give a directory you can write to");
        } catch (IOException e) {
            throw new IllegalArgumentException(flag + ": cannot write to " + dir + "; give a directory you can write to");
        }
    }

    private static String reason(FileSystemException e) {
        String reason = e.getReason();
        if (reason != null) {
            return (e.getFile() != null && !e.getFile().isEmpty() ? e.getFile() + ": " : "") + reason;
        }
        return e.getFile() != null ? e.getFile() + ": cannot be created or written" : "cannot be created or written";
    }
}
