package com.payments.reconciler.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.ErrorNames;
import com.payments.reconciler.workflow.LambdaFunction;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Design §7 as a check on the shipped ASL: every error a handler throws is handled by its Task (or the
 * enclosing Map), superseding errors are never retried and end in Superseded, every error name the ASL
 * mentions is one our handlers or the Lambda service raise, and every Task has an explicit timeout.
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

    @Test
    void supersedingErrorsAreNeverRetriedAndEndInSuperseded() {
        for (Asl.Located task : asl.tasks()) {
            LambdaFunction function = Asl.functionOf(task);
            List<JsonNode> retriers = retriers(task);
            for (String error : ErrorNames.SUPERSEDED) {
                if (!function.errorNames().contains(error)) {
                    continue;
                }
                JsonNode first = retriers.stream().filter(r -> matches(r, error)).findFirst().orElseThrow(
                        () -> new AssertionError(task.name() + " has no retrier matching " + error
                                + "; a later States.TaskFailed retrier would retry it"));
                assertThat(first.path("MaxAttempts").asInt(-1)).as("%s: first retrier matching %s", task.name(), error).isZero();
                JsonNode catcher = catchers(task).stream().filter(c -> matches(c, error)).findFirst().orElseThrow();
                assertThat(catcher.path("Next").asText()).as("%s catches %s into", task.name(), error).isEqualTo(ErrorNames.FAIL_SUPERSEDED);
            }
        }
        JsonNode superseded = asl.states().get(ErrorNames.FAIL_SUPERSEDED).state();
        assertThat(superseded.path("Type").asText()).isEqualTo("Fail");
        assertThat(superseded.path("CausePath").asText()).as("the cause names the newer epoch, from the error").isEqualTo("$.error.Cause");
    }

    @Test
    void invalidInputIsNeverRetried() {
        for (Asl.Located task : asl.tasks()) {
            JsonNode first = retriers(task).stream().filter(r -> matches(r, ErrorNames.INVALID_INPUT)).findFirst().orElseThrow();
            assertThat(first.path("MaxAttempts").asInt(-1)).as(task.name()).isZero();
        }
    }

    @Test
    void everyErrorNameInTheAslIsOneThatCanHappen() {
        Set<String> known = new HashSet<>(ErrorNames.THROWN_BY_HANDLERS);
        known.addAll(ErrorNames.LAMBDA_SERVICE_ERRORS);
        known.add(ErrorNames.LAMBDA_THROTTLED);
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
