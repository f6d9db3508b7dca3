package com.payments.reconciler.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** {@code --dump-state} checked by doing what the run will do, before any work. */
class OutputDirectoryTest {

    private static final Path BUILD = Path.of(System.getProperty("reconciler.target"));

    @Test
    void aDirectoryThatCannotBeCreatedIsRefusedNamingTheFlag() {
        assertThatThrownBy(() -> OutputDirectory.requireWritable(Path.of("/proc/nope"), "--dump-state"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--dump-state: cannot write to /proc/nope (")
                .hasMessageNotContaining("Exception");
    }

    @Test
    void aFileIsNotADirectory() throws Exception {
        Path file = Files.writeString(BUILD.resolve("output-directory-" + UUID.randomUUID()), "x");
        assertThatThrownBy(() -> OutputDirectory.requireWritable(file, "--dump-state")).hasMessageContaining("is a file");
    }

    /** The check can pass: a directory that can be written is created and left empty (the probe file removed). */
    @Test
    void aWritableDirectoryIsCreatedAndLeftEmpty() throws Exception {
        Path dir = BUILD.resolve("output-directory-" + UUID.randomUUID()).resolve("nested");
        OutputDirectory.requireWritable(dir, "--dump-state");
        assertThat(dir).isDirectory().isEmptyDirectory();
    }
}
