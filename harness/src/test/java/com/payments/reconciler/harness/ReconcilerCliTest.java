package com.payments.reconciler.harness;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.Json;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalDate;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** {@code bin/reconciler} as a user meets it: output, exit codes and clear errors (bad usage: {@code BadInputTableTest}). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReconcilerCliTest {

    private static final Path BUILD = Path.of(System.getProperty("reconciler.target"));
    /** Yesterday's window has always started (today's has not before 02:00 UTC). */
    private final String today = LocalDate.now(Clock.systemUTC()).minusDays(1).toString();

    record Result(int exit, String out, String err) {
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = HarnessCli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Result(exit, out.toString(), err.toString());
    }


    /** As the process runs it: real streams, so whatever the hosted handlers print is captured too. */
    static Result runAsProcess(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = HarnessCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void localJsonPrintsExactlyTheReportAndDumpsTheState() throws Exception {
        Path dump = BUILD.resolve("cli-dump-" + UUID.randomUUID());
        Result r = runAsProcess("local", "--authorisations", "60", "--window", today, "--json", "--dump-state", dump.toString(),
                "--work-dir", BUILD.resolve("cli-local").toString());
        assertThat(r.exit()).as(r.err()).isZero();
        // Exactly one JSON object on stdout: the handlers' log and metric lines went to stderr.
        JsonNode report = Json.mapper().readerFor(JsonNode.class)
                .with(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readValue(r.out());
        assertThat(r.out().strip().lines()).hasSize(1);
        // The functions ran in sandboxes of their own, from the deployment package: their log and metric lines are in
        // each sandbox's log (Lambda sends them to CloudWatch Logs), never on the CLI's stdout.
        assertThat(report.get("engine").asText()).isEqualTo("lambda-sandboxes");
        Path sandboxLogs = BUILD.resolve("cli-local").resolve("lambda").resolve("sandboxes");
        assertThat(Files.readString(sandboxLogs.resolve("AcquireLease-1.log"))).contains("lease hold-release-reconciler acquired");
        assertThat(Files.readString(sandboxLogs.resolve("ReconcilePage-1.log"))).contains("\"CloudWatchMetrics\"");
        assertThat(fieldNames(report)).containsExactly("window", "execution", "counts", "cost", "invariants", "engine", "provider",
                "ingestion", "executions", "phases");
        assertThat(fieldNames(report.get("phases"))).containsExactly("startUpSeconds", "ingestionSeconds", "night");
        assertThat(fieldNames(report.get("phases").get("night"))).containsExactly("nightSeconds", "reconcileSeconds", "deliverySeconds");
        assertThat(report.get("phases").get("night").get("deliverySeconds").asDouble()).as("the night delivered").isPositive();
        assertThat(report.get("executions")).hasSize(1);
        assertThat(fieldNames(report.get("executions").get(0))).containsExactly("name", "status", "error", "candidates",
                "releaseRequested", "skippedSettled", "skippedStale", "candidatesRead", "fencedRefusals", "heldForFeed");
        assertThat(fieldNames(report.get("ingestion"))).containsExactly("published", "accepted", "duplicates", "rejected",
                "deadLettered", "receives", "invocations");
        assertThat(fieldNames(report.get("counts"))).containsExactly("authorisations", "candidates", "releaseRequested",
                "skippedSettled", "skippedStale", "fencedRefusals", "delivered", "deliveryAttempts", "cancelledSettled", "cancelledEnded", "quarantined", "escalated", "backlogLeft",
                "wouldRelease", "candidatesRead", "heldForFeed");
        assertThat(fieldNames(report.get("provider"))).containsExactly("quota", "maxConcurrent", "quotaViolations", "answers429",
                "throttledSeconds", "peakConcurrent", "utilisation", "adapter", "webhooks");
        // The local default quota, enforced by the simulated provider and named in the report.
        assertThat(report.at("/provider/quota").asDouble()).isEqualTo(LocalCommand.LOCAL_PROVIDER_QUOTA);
        assertThat(report.at("/provider/quotaViolations").asLong()).isZero();
        assertThat(report.at("/counts/backlogLeft").asLong()).isZero();
        assertThat(fieldNames(report.get("cost"))).containsExactly("stateTransitions", "lambdaInvocations", "dynamodbRequests", "providerCalls");
        assertThat(report.at("/execution/name").asText()).isEqualTo("reconcile-" + today);
        assertThat(report.at("/execution/status").asText()).isEqualTo("SUCCEEDED");
        assertThat(report.at("/execution/duplicateStartsSuppressed").asInt()).isEqualTo(1);
        assertThat(report.at("/counts/authorisations").asInt()).isEqualTo(60);
        assertThat(report.at("/counts/delivered").asLong()).isEqualTo(report.at("/counts/releaseRequested").asLong()).isPositive();
        assertThat(report.get("invariants").properties()).hasSize(5).allSatisfy(e -> assertThat(e.getValue().asBoolean()).isTrue());

        List<String> tables = Files.readAllLines(dump.resolve("tables.jsonl"));
        assertThat(tables).anySatisfy(line -> assertThat(Json.mapper().readTree(line).get("table").asText()).isEqualTo("Authorisations"));
        assertThat(tables).allSatisfy(line -> assertThat(fieldNames(Json.mapper().readTree(line))).containsExactly("table", "item"));
        List<String> effects = Files.readAllLines(dump.resolve("provider-effects.jsonl"));
        assertThat(effects).hasSize(report.at("/counts/delivered").asInt())
                .allSatisfy(line -> {
                    JsonNode effect = Json.mapper().readTree(line);
                    assertThat(effect.get("performed").asInt()).isEqualTo(1);
                    assertThat(effect.get("performedAt")).as("each effect's time, to check I3 at the call from outside").hasSize(1);
                });
    }

    /**
     * A provider answering only outside its contract stops the night within a few calls, and the failed night's report
     * says what the tables show: before, it printed {@code candidates 0, releaseRequested 0} from the missing summary
     * while the tables held every release request the night had committed.
     */
    @Test
    void aNightStoppedByTheContractBreakerReportsWhatTheTablesShow() throws Exception {
        Path dump = BUILD.resolve("cli-breaker-" + UUID.randomUUID());
        Result r = runAsProcess("local", "--authorisations", "300", "--window", today, "--json", "--faults", "provider-malformed=1", "--engine", "in-process",
                "--dump-state", dump.toString(), "--work-dir", BUILD.resolve("cli-breaker").toString());
        assertThat(r.exit()).as(r.err()).isEqualTo(1);
        JsonNode report = Json.mapper().readTree(r.out());
        assertThat(report.at("/execution/status").asText()).isEqualTo("FAILED");
        assertThat(report.at("/executions/0/error").asText()).isEqualTo(com.payments.reconciler.workflow.ErrorNames.PROVIDER_CONTRACT_VIOLATION);
        assertThat(report.at("/cost/providerCalls").asLong()).as("the breaker stops the call within a few answers").isPositive().isLessThanOrEqualTo(40);

        long requested = 0;
        for (String line : Files.readAllLines(dump.resolve("tables.jsonl"))) {
            JsonNode item = Json.mapper().readTree(line);
            if (item.get("table").asText().equals("Authorisations") && "RELEASE_REQUESTED".equals(item.at("/item/state").asText())) {
                requested++;
            }
        }
        assertThat(requested).as("the night committed its decisions before delivery stopped").isPositive();
        assertThat(report.at("/counts/releaseRequested").asLong()).isEqualTo(requested);
        assertThat(report.at("/counts/candidates").asLong()).isEqualTo(requested + report.at("/counts/skippedSettled").asLong()
                + report.at("/counts/skippedStale").asLong());
    }

    /**
     * Voids, expiries and captures that reach the tables after the decision and before delivery cancel their commands
     * before any provider call: the provider performs none of them.
     */
    @Test
    void endedAfterDecisionCancelsThoseCommandsBeforeAnyProviderCall() throws Exception {
        Path dump = BUILD.resolve("cli-ended-" + UUID.randomUUID());
        Result r = runAsProcess("local", "--scenario", "ended-after-decision", "--authorisations", "200", "--window", today, "--json",
                "--engine", "in-process", "--dump-state", dump.toString(), "--work-dir", BUILD.resolve("cli-ended").toString());
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode report = Json.mapper().readTree(r.out());
        assertThat(r.err()).contains("after the decision, before delivery, the platform voided");
        long ended = report.at("/counts/cancelledEnded").asLong();
        long settled = report.at("/counts/cancelledSettled").asLong();
        assertThat(ended).as("voids and expiries after the decision").isPositive();
        assertThat(settled).as("captures after the decision").isPositive();
        assertThat(report.at("/counts/delivered").asLong() + ended + settled).isEqualTo(report.at("/counts/releaseRequested").asLong());
        long performed = 0;
        for (String line : Files.readAllLines(dump.resolve("provider-effects.jsonl"))) {
            performed += Json.mapper().readTree(line).get("performed").asLong();
        }
        assertThat(performed).as("the provider performed only the delivered ones").isEqualTo(report.at("/counts/delivered").asLong());
        assertThat(report.get("invariants").properties()).allSatisfy(e -> assertThat(e.getValue().asBoolean()).isTrue());
    }

    /** Malformed answers park their commands, every other eligible hold is delivered. */
    @Test
    void localWithMalformedProviderAnswersSucceedsWithThoseCommandsQuarantined() throws Exception {
        Result r = runAsProcess("local", "--authorisations", "200", "--window", today, "--json", "--faults", "provider-malformed=0.05",
                "--work-dir", BUILD.resolve("cli-malformed").toString());
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode report = Json.mapper().readTree(r.out());
        assertThat(report.at("/execution/status").asText()).isEqualTo("SUCCEEDED");
        long quarantined = report.at("/counts/quarantined").asLong();
        assertThat(quarantined).as("seed 42 draws some malformed answers").isPositive();
        assertThat(report.at("/counts/delivered").asLong() + quarantined).isEqualTo(report.at("/counts/releaseRequested").asLong());
        assertThat(report.get("invariants").properties()).hasSize(5).allSatisfy(e -> assertThat(e.getValue().asBoolean()).isTrue());
    }

    @Test
    void failoverScenarioShowsTheRefusalAndTheInvariantsHold() throws Exception {
        Result r = run("local", "--scenario", "failover", "--authorisations", "40", "--window", today, "--json",
                "--work-dir", BUILD.resolve("cli-failover").toString());
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode report = Json.mapper().readTree(r.out());
        assertThat(report.get("engine").asText()).as("pausing a worker needs its own clients").isEqualTo("in-process");
        assertThat(report.at("/counts/fencedRefusals").asInt()).isGreaterThanOrEqualTo(1);
        assertThat(report.at("/execution/name").asText()).isEqualTo("reconcile-" + today + "-rerun-1");
        assertThat(report.get("executions")).as("the window's report covers both executions").hasSize(2);
        assertThat(report.at("/executions/0/name").asText()).isEqualTo("reconcile-" + today);
        assertThat(report.at("/executions/0/error").asText()).isEqualTo("Superseded");
        assertThat(report.at("/executions/0/fencedRefusals").asInt()).isGreaterThanOrEqualTo(1);
        assertThat(report.at("/executions/1/fencedRefusals").asInt()).isZero();
        assertThat(report.get("invariants").properties()).allSatisfy(e -> assertThat(e.getValue().asBoolean()).isTrue());
        assertThat(r.err()).contains("Superseded");
    }

    @Test
    void duplicateStartScenarioRunsOneExecution() throws Exception {
        Result r = run("local", "--scenario", "duplicate-start", "--authorisations", "30", "--window", today, "--json",
                "--work-dir", BUILD.resolve("cli-duplicate").toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(Json.mapper().readTree(r.out()).at("/execution/duplicateStartsSuppressed").asInt()).isEqualTo(3);
        assertThat(r.err()).contains("executions of the state machine: 1");
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new java.util.ArrayList<>();
        Iterator<String> it = node.fieldNames();
        it.forEachRemaining(names::add);
        return names;
    }
}
