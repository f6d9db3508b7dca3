package com.payments.reconciler.harness;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HostedOutputTest {

    @TempDir
    Path workDir;
    private final ByteArrayOutputStream terminal = new ByteArrayOutputStream();
    private PrintStream original;
    private PrintStream stderrAsTheCommandLineSetsIt;

    @BeforeEach
    void pointSystemOutAtTheTerminal() {
        original = System.out;
        stderrAsTheCommandLineSetsIt = new PrintStream(terminal, true, StandardCharsets.UTF_8);
        System.setOut(stderrAsTheCommandLineSetsIt);
    }

    @AfterEach
    void restore() {
        System.setOut(original);
    }

    @Test
    void theFunctionsLinesGoToTheWorkDirectoryAndSystemOutIsGivenBack() throws Exception {
        int result = HostedOutput.divert(workDir, false, () -> {
            System.out.println("{\"_aws\":{\"Timestamp\":1}}");
            return 7;
        });
        assertThat(result).isEqualTo(7);
        assertThat(Files.readString(workDir.resolve(HostedOutput.FILE))).isEqualTo("{\"_aws\":{\"Timestamp\":1}}" + System.lineSeparator());
        assertThat(terminal.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(System.out).isSameAs(stderrAsTheCommandLineSetsIt);
    }

    @Test
    void verboseLeavesThemOnTheTerminal() throws Exception {
        HostedOutput.divert(workDir, true, () -> {
            System.out.println("metric line");
            return 0;
        });
        assertThat(terminal.toString(StandardCharsets.UTF_8)).contains("metric line");
        assertThat(workDir.resolve(HostedOutput.FILE)).doesNotExist();
    }

    @Test
    void aCommandThatPrintsNothingLeavesNoFile() throws Exception {
        Path notYetMade = workDir.resolve("bench");
        HostedOutput.divert(notYetMade, false, () -> 2);
        assertThat(notYetMade).doesNotExist();
    }

    @Test
    void aWorkDirectoryThatCannotBeMadeSendsTheLinesWhereTheyWentBefore() throws Exception {
        Path aFile = Files.writeString(workDir.resolve("not-a-directory"), "x");
        HostedOutput.divert(aFile.resolve("bench"), false, () -> {
            System.out.println("still shown");
            return 0;
        });
        assertThat(terminal.toString(StandardCharsets.UTF_8)).contains("still shown");
    }

    @Test
    void systemOutIsGivenBackWhenTheCommandThrows() {
        assertThatThrownBy(() -> HostedOutput.divert(workDir, false, () -> {
            throw new IllegalStateException("boom");
        })).hasMessage("boom");
        assertThat(System.out).isSameAs(stderrAsTheCommandLineSetsIt);
    }
}
