package com.payments.reconciler.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.workflow.ErrorNames;
import com.payments.reconciler.workflow.LambdaFunction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md §7 as a check on the shipped ASL: every error a handler throws is handled by its Task (or the
 * enclosing Map), each Task's effective retry and catch of every error it can raise is what the error table
 * ({@link ErrorNames#TABLE}) says, States.ALL is alone and last, every error name the ASL mentions is one our
 * handlers or the Lambda service raise, and every Task has an explicit timeout. The table and States.ALL checks
 * each have known-bad definitions they fail on.
 */
class ErrorHandlingTest {

    private final Asl asl = Asl.shipped();

    /**
     * Handled means decided explicitly: retried, caught, or named by a {@code MaxAttempts: 0} retrier. An error
     * that is neither retried nor caught fails the execution at its task on purpose (so a redrive restarts
     * that task: RedriveRuleTest); it must still be named, so nothing is left to a later wildcard by accident.
     */
    @Test
    void everyErrorAHandlerThrowsIsHandledByItsTask() {
        for (Asl.Located task : asl.tasks()) {
            LambdaFunction function = Asl.functionOf(task);
            Set<String> handled = new HashSet<>();
            retriers(task).forEach(r -> handled.addAll(Asl.names(r)));
            catchers(task).forEach(c -> handled.addAll(Asl.names(c)));
            for (String error : function.errorNames()) {
                boolean caughtByAll = handled.contains("States.ALL");
                assertThat(handled.contains(error) || caughtByAll)
                        .as("%s (%s) must retry or catch %s", task.name(), function, error).isTrue();
            }
        }
    }

    /**
     * The documented error table ({@link ErrorNames#TABLE}) against the ASL's effective behaviour,
     * for every Task and every error its function can raise (its named errors, the Lambda service's, a timeout
     * and any other error). A {@code States.TaskFailed} retrier retries everything not excluded before it, so a
     * never-retried error needs a {@code MaxAttempts: 0} retrier of its own, placed first.
     */
    @Test
    void everyTaskRetriesAndEndsEachErrorAsTheErrorTableSays() {
        assertThat(disagreementsWithTheErrorTable(asl)).isEmpty();
        JsonNode superseded = asl.states().get(ErrorNames.FAIL_SUPERSEDED).state();
        assertThat(superseded.path("Type").asText()).isEqualTo("Fail");
        assertThat(superseded.path("CausePath").asText()).as("the cause names the newer epoch, from the error").isEqualTo("$.error.Cause");
        assertThat(asl.states().get(ErrorNames.FAIL_LEASE_HELD_BY_ANOTHER_RUN).type()).isEqualTo("Fail");
    }

    /** The check above can fail: the ASL before the fix, where the States.TaskFailed retrier retried OperationMismatch. */
    @Test
    void theErrorTableCheckFailsOnAnAslThatRetriesOperationMismatch() {
        Asl bad = Asl.of(asl.root.deepCopy());
        JsonNode first = bad.states().get("DeliverBatch").state().path("Retry").get(0);
        assertThat(first.path("MaxAttempts").asInt(-1)).isZero();
        ArrayNode neverRetried = (ArrayNode) first.path("ErrorEquals");
        for (int i = neverRetried.size() - 1; i >= 0; i--) {
            if (neverRetried.get(i).asText().equals(ErrorNames.OPERATION_MISMATCH)) {
                neverRetried.remove(i);
            }
        }
        assertThat(disagreementsWithTheErrorTable(bad)).containsExactly("DeliverBatch: " + ErrorNames.OPERATION_MISMATCH
                + " is retried, the table says never (first matching retrier: [States.Timeout, States.TaskFailed])");
    }

    /** Without the MaxAttempts-0 retriers, every never-retried error is retried by States.TaskFailed, at every task. */
    @Test
    void theErrorTableCheckFailsOnAnAslWithoutTheNeverRetriedRetriers() {
        Asl bad = Asl.of(asl.root.deepCopy());
        for (Asl.Located task : bad.tasks()) {
            ArrayNode retry = (ArrayNode) task.state().path("Retry");
            assertThat(retry.get(0).path("MaxAttempts").asInt(-1)).as(task.name()).isZero();
            retry.remove(0);
        }
        List<String> disagreements = disagreementsWithTheErrorTable(bad);
        int expected = 0;
        for (Asl.Located task : bad.tasks()) {
            for (String error : Asl.functionOf(task).errorNames()) {
                if (!ErrorNames.handling(error).retried()) {
                    expected++;
                    assertThat(disagreements).as("%s %s", task.name(), error)
                            .anyMatch(d -> d.startsWith(task.name() + ": " + error + " is retried, the table says never"));
                }
            }
        }
        assertThat(expected).as("never-retried errors raised by some task").isGreaterThanOrEqualTo(8);
    }

    /** Retriers are tried in order and the first match wins: a MaxAttempts-0 retrier after States.TaskFailed decides nothing. */
    @Test
    void theErrorTableCheckFailsWhenTheNeverRetriedRetrierComesAfterTaskFailed() {
        Asl bad = Asl.of(asl.root.deepCopy());
        ArrayNode retry = (ArrayNode) bad.states().get("ReconcilePage").state().path("Retry");
        JsonNode never = retry.remove(0);
        retry.add(never);
        String viaTaskFailed = " is retried, the table says never (first matching retrier: [States.Timeout, States.TaskFailed])";
        assertThat(disagreementsWithTheErrorTable(bad)).containsExactlyInAnyOrder(
                "ReconcilePage: " + ErrorNames.FENCED + viaTaskFailed,
                "ReconcilePage: " + ErrorNames.LEASE_LOST + viaTaskFailed,
                "ReconcilePage: " + ErrorNames.INVALID_INPUT + viaTaskFailed,
                "ReconcilePage: " + ErrorNames.FEED_NOT_COMPLETE + viaTaskFailed,
                "ReconcilePage: " + ErrorNames.RELEASE_SURGE + viaTaskFailed);
    }

    /** Where an error ends is checked too: here LeaseLost left to fail at ReleaseLease instead of ending Superseded. */
    @Test
    void theErrorTableCheckFailsWhenASupersedingErrorIsNotCaught() {
        Asl bad = Asl.of(asl.root.deepCopy());
        ((ObjectNode) bad.states().get("ReleaseLease").state()).remove("Catch");
        assertThat(disagreementsWithTheErrorTable(bad)).containsExactly(
                "ReleaseLease: " + ErrorNames.LEASE_LOST + " ends in '" + ErrorNames.FAILS_AT_ITS_TASK + "', the table says 'Superseded'");
    }

    /** docs/decisions.md shows the table; its rows are exactly {@link ErrorNames#TABLE}'s. */
    @Test
    void theDocumentedErrorTableIsTheOneInErrorNames() throws IOException {
        String decisions = Files.readString(Path.of(System.getProperty("reconciler.repositoryRoot"), "docs", "decisions.md"));
        int section = decisions.indexOf("## The error table is one definition");
        assertThat(section).as("the decision's section").isNotNegative();
        int next = decisions.indexOf("\n## ", section + 1);
        List<String> documented = decisions.substring(section, next < 0 ? decisions.length() : next).lines()
                .filter(line -> line.startsWith("| `") || line.startsWith("| any other")).toList();
        assertThat(documented).containsExactlyElementsOf(ErrorNames.TABLE.stream().map(ErrorHandlingTest::documentedRow).toList());
    }

    private static String documentedRow(ErrorNames.Handling row) {
        String name = row.error().equals(ErrorNames.ANY_OTHER_ERROR) ? "any other error"
                : "`" + row.error().replace("com.payments.reconciler.workflow.", "") + "`";
        return "| " + name + " | " + (row.retried() ? "yes" : "**never**") + " | " + row.endsIn() + " |";
    }

    /**
     * For every Task and every error its function can raise: the first retrier whose ErrorEquals matches decides
     * whether it is retried (MaxAttempts 0 means never; omitted, the ASL's default 3), then the Task's first
     * matching catcher, else (inside a Map iteration, whose failure fails the Map with the same error) the Map's
     * own retriers and catchers, where the execution goes.
     */
    static List<String> disagreementsWithTheErrorTable(Asl definition) {
        List<String> disagreements = new ArrayList<>();
        for (Asl.Located task : definition.tasks()) {
            Set<String> raised = new LinkedHashSet<>(Asl.functionOf(task).errorNames());
            raised.addAll(ErrorNames.LAMBDA_SERVICE_ERRORS);
            raised.add(ErrorNames.LAMBDA_THROTTLED);
            raised.addAll(ErrorNames.LAMBDA_SNAPSTART_ERRORS);
            raised.add(ErrorNames.STATES_TIMEOUT);
            raised.add(ErrorNames.ANY_OTHER_ERROR);
            for (String error : raised) {
                ErrorNames.Handling documented = ErrorNames.handling(error);
                Optional<JsonNode> retrier = firstMatching(retriers(task), error);
                Optional<JsonNode> catcher = firstMatching(Asl.list(task.state().path("Catch")), error);
                boolean retried = retrier.map(ErrorHandlingTest::retries).orElse(false);
                if (catcher.isEmpty() && task.enclosingMap() != null) {
                    JsonNode map = task.enclosingMap().state();
                    retried |= firstMatching(Asl.list(map.path("Retry")), error).map(ErrorHandlingTest::retries).orElse(false);
                    catcher = firstMatching(Asl.list(map.path("Catch")), error);
                }
                String endsIn = catcher.map(c -> c.path("Next").asText()).orElse(ErrorNames.FAILS_AT_ITS_TASK);
                if (retried != documented.retried()) {
                    disagreements.add(task.name() + ": " + error + " is " + (retried ? "retried" : "never retried")
                            + ", the table says " + (documented.retried() ? "retried" : "never")
                            + " (first matching retrier: " + retrier.map(r -> Asl.names(r).toString()).orElse("none") + ")");
                }
                if (!endsIn.equals(documented.endsIn())) {
                    disagreements.add(task.name() + ": " + error + " ends in '" + endsIn + "', the table says '" + documented.endsIn() + "'");
                }
            }
        }
        return disagreements;
    }

    /** The ASL's default when a retrier omits MaxAttempts. */
    private static final int DEFAULT_MAX_ATTEMPTS = 3;

    private static boolean retries(JsonNode retrier) {
        return retrier.path("MaxAttempts").asInt(DEFAULT_MAX_ATTEMPTS) > 0;
    }

    private static Optional<JsonNode> firstMatching(List<JsonNode> retriersOrCatchers, String error) {
        return retriersOrCatchers.stream().filter(r -> matches(r, error)).findFirst();
    }

    /** Step Functions' rule: States.ALL stands alone in its ErrorEquals, in the last retrier or catcher of a state. */
    @Test
    void statesAllIsAloneAndLastWhereverItIsUsed() {
        assertThat(statesAllMisplacements(asl)).isEmpty();
    }

    @Test
    void theStatesAllCheckFailsOnAMisplacedStatesAll() {
        Asl bad = Asl.of(asl.root.deepCopy());
        ((ArrayNode) bad.states().get("AcquireLease").state().path("Retry")).insertObject(0).putArray("ErrorEquals").add("States.ALL");
        ((ArrayNode) bad.states().get("ReleaseLease").state().path("Catch").get(0).path("ErrorEquals")).add("States.ALL");
        assertThat(statesAllMisplacements(bad)).containsExactly(
                "AcquireLease Retry[0]: States.ALL is not in the last entry",
                "ReleaseLease Catch[0]: States.ALL is not alone in ErrorEquals");
    }

    static List<String> statesAllMisplacements(Asl definition) {
        List<String> found = new ArrayList<>();
        for (Asl.Located state : definition.states().values()) {
            for (String field : List.of("Retry", "Catch")) {
                List<JsonNode> entries = Asl.list(state.state().path(field));
                for (int i = 0; i < entries.size(); i++) {
                    List<String> names = Asl.names(entries.get(i));
                    if (!names.contains("States.ALL")) {
                        continue;
                    }
                    if (names.size() > 1) {
                        found.add(state.name() + " " + field + "[" + i + "]: States.ALL is not alone in ErrorEquals");
                    }
                    if (i != entries.size() - 1) {
                        found.add(state.name() + " " + field + "[" + i + "]: States.ALL is not in the last entry");
                    }
                }
            }
        }
        return found;
    }

    @Test
    void everyErrorNameInTheAslIsOneThatCanHappen() {
        Set<String> known = new HashSet<>(ErrorNames.THROWN_BY_HANDLERS);
        known.addAll(ErrorNames.LAMBDA_SERVICE_ERRORS);
        known.add(ErrorNames.LAMBDA_THROTTLED);
        known.addAll(ErrorNames.LAMBDA_SNAPSTART_ERRORS);
        Set<String> thrownByWorkflowFunctions = new HashSet<>();
        for (LambdaFunction function : LambdaFunction.values()) {
            if (function.invokedByWorkflow()) {
                thrownByWorkflowFunctions.addAll(function.errorNames());
            }
        }
        List<String> mentioned = new ArrayList<>();
        for (Asl.Located task : asl.tasks()) {
            retriers(task).forEach(r -> mentioned.addAll(Asl.names(r)));
            catchers(task).forEach(c -> mentioned.addAll(Asl.names(c)));
        }
        for (String name : mentioned) {
            if (name.startsWith("States.")) {
                continue;
            }
            assertThat(known).as("error name %s in the ASL", name).contains(name);
            if (ErrorNames.THROWN_BY_HANDLERS.contains(name)) {
                assertThat(thrownByWorkflowFunctions).as("a handler throws %s", name).contains(name);
            }
        }
        assertThat(mentioned).containsAll(thrownByWorkflowFunctions);
    }

    @Test
    void lambdaServiceErrorsAndThrottlingHaveTheirOwnRetriers() {
        for (Asl.Located task : asl.tasks()) {
            List<JsonNode> retriers = retriers(task);
            assertThat(retriers).as(task.name()).anySatisfy(r -> assertThat(Asl.names(r)).containsExactlyInAnyOrderElementsOf(ErrorNames.LAMBDA_SERVICE_ERRORS));
            assertThat(retriers).as(task.name()).anySatisfy(r -> {
                assertThat(Asl.names(r)).containsExactly(ErrorNames.LAMBDA_THROTTLED);
                assertThat(r.path("JitterStrategy").asText()).isEqualTo("FULL");
            });
            for (JsonNode retrier : retriers) {
                if (retrier.path("MaxAttempts").asInt() == 0) {
                    continue;
                }
                assertThat(retrier.has("IntervalSeconds") && retrier.has("BackoffRate") && retrier.has("MaxAttempts")
                        && retrier.has("MaxDelaySeconds")).as("%s retrier %s is explicit", task.name(), Asl.names(retrier)).isTrue();
            }
        }
    }

    @Test
    void everyTaskHasAnExplicitTimeout() {
        assertThat(asl.tasks()).isNotEmpty().allSatisfy(task ->
                assertThat(task.state().path("TimeoutSeconds").isInt()).as(task.name()).isTrue());
    }

    private static boolean matches(JsonNode node, String error) {
        List<String> names = Asl.names(node);
        return names.contains(error) || names.contains("States.ALL")
                || (names.contains("States.TaskFailed") && !error.equals("States.Timeout"));
    }

    private static List<JsonNode> retriers(Asl.Located task) {
        return Asl.list(task.state().path("Retry"));
    }

    /** A Task's own Catch, then (inside a Map iteration) the Map's. */
    private static List<JsonNode> catchers(Asl.Located task) {
        List<JsonNode> all = new ArrayList<>(Asl.list(task.state().path("Catch")));
        if (task.enclosingMap() != null) {
            all.addAll(Asl.list(task.enclosingMap().state().path("Catch")));
        }
        return all;
    }
}
