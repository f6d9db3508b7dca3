package com.payments.reconciler.harness.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.harness.HarnessCli;
import com.payments.reconciler.window.WindowId;
import com.payments.reconciler.workflow.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * One {@code local --scenario NAME} night as DeadLetteredSettlementScenarioTest and SettlementFeedOutageScenarioTest run
 * it: yesterday's window, 200 authorisations, the in-process engine, the report as JSON and the state dumped.
 *
 * @param exit    the command's exit code
 * @param console what it wrote to standard error
 * @param stdout  what it wrote to standard output (the JSON report)
 * @param dump    the folder {@code --dump-state} wrote
 */
record LocalScenarioRun(int exit, String console, String stdout, Path dump) {

    private static final Path BUILD = Path.of(System.getProperty("reconciler.target"));

    /** Runs {@code scenario}, working in {@code {name}} and dumping into a fresh {@code {name}-dump-UUID}, both in the build folder. */
    static LocalScenarioRun of(String scenario, String name) {
        WindowId window = new WindowId(LocalDate.now(Clock.systemUTC()).minusDays(1));
        Path dump = BUILD.resolve(name + "-dump-" + UUID.randomUUID());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = HarnessCli.run(new String[] {"local", "--scenario", scenario, "--authorisations", "200",
                        "--window", window.toString(), "--engine", "in-process", "--json", "--dump-state", dump.toString(),
                        "--work-dir", BUILD.resolve(name).toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new LocalScenarioRun(exit, err.toString(StandardCharsets.UTF_8), out.toString(StandardCharsets.UTF_8), dump);
    }

    JsonNode report() throws IOException {
        return Json.mapper().readTree(stdout);
    }

    /** The JSON lines of a file the dump holds, blank lines skipped. */
    List<JsonNode> dumped(String file) throws IOException {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(dump.resolve(file), StandardCharsets.UTF_8)) {
            if (!line.isBlank()) {
                lines.add(Json.mapper().readTree(line));
            }
        }
        return lines;
    }
}
