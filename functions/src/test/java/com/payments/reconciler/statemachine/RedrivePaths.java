package com.payments.reconciler.statemachine;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.ErrorNames;
import com.payments.reconciler.workflow.LambdaFunction;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What a redrive would do after each way a Task can fail for good, computed from a definition by the
 * documented redrive rules (developer guide, "Redrive behavior of individual states"): a Task that fails
 * the execution is scheduled again; an Inline Map reruns only its failed or aborted iterations; a Fail
 * state is re-entered and fails again. moto has no {@code RedriveExecution}, so this is how the shipped
 * ASL's redrive behaviour is checked (docs/emulator-differences.md).
 *
 * <p>For each Task (Map iterations included) and each error it can end with after its retries, the path
 * is followed through the first matching Catch (the Task's own, then the enclosing Map's) and on through
 * the states after it, noting whether it passes a task that hands the lease back.
 */
final class RedrivePaths {

    private RedrivePaths() {
    }

    /** Stands for every error name no retrier or catcher names (e.g. {@code Sandbox.Timedout}, a runtime exception). */
    static final String UNNAMED_ERROR = "java.lang.IllegalStateException";

    /** How the execution ends on that path, and so what a redrive restarts. */
    sealed interface Ending {
        /** No Catch matched: the execution fails at the task, and a redrive schedules the task again. */
        record FailsAtTask() implements Ending {
        }

        /** The path reaches a Fail state: a redrive re-enters it and fails again. */
        record EntersFailState(String name) implements Ending {
        }

        /** The path reaches a Succeed state or an end: there is nothing to redrive. */
        record Succeeds(String lastState) implements Ending {
        }
    }

    /**
     * @param attempts how many times the task runs before the error stands (a redrive resets the count)
     * @param route the states from the failed task to the ending
     * @param releasesLease whether a task on the route (after the failed one) hands the lease back
     */
    record FailurePath(String task, String enclosingMap, String error, int attempts, List<String> route, Ending ending,
                       boolean releasesLease) {

        /** Where a redrive starts again: the task (inside its Map for an iteration), or the Fail state it re-enters. */
        String restartsAt() {
            return switch (ending) {
                case Ending.FailsAtTask f -> enclosingMap == null ? task : enclosingMap + " › " + task + " (failed iterations only)";
                case Ending.EntersFailState f -> f.name() + " (a Fail state: fails again)";
                case Ending.Succeeds s -> "nothing (ended at " + s.lastState() + ")";
            };
        }

        String describe() {
            return String.format("%-16s %-58s ×%d  → %-40s restart: %-52s lease %s", task, shortName(error), attempts,
                    String.join(" → ", route.subList(1, route.size())).isEmpty() ? "(uncaught)" : String.join(" → ", route.subList(1, route.size())),
                    restartsAt(), releasesLease ? "HANDED BACK" : "not handed back");
        }
    }

    /** Every failure path of every Task in the definition. */
    static List<FailurePath> of(Asl asl) {
        List<FailurePath> paths = new ArrayList<>();
        for (Asl.Located task : asl.tasks()) {
            for (String error : errorsOf(task)) {
                paths.add(follow(asl, task, error));
            }
        }
        return paths;
    }

    /** What the task's handler throws, what the Lambda service and Step Functions raise, and one unnamed error. */
    static List<String> errorsOf(Asl.Located task) {
        Set<String> errors = new LinkedHashSet<>(Asl.functionOf(task).errorNames());
        errors.addAll(ErrorNames.LAMBDA_SERVICE_ERRORS);
        errors.add(ErrorNames.LAMBDA_THROTTLED);
        errors.add("States.Timeout");
        errors.add(UNNAMED_ERROR);
        return List.copyOf(errors);
    }

    static FailurePath follow(Asl asl, Asl.Located task, String error) {
        int attempts = 1 + Asl.list(task.state().path("Retry")).stream().filter(r -> matches(r, error)).findFirst()
                .map(r -> r.path("MaxAttempts").asInt(3)).orElse(0);
        String enclosingMap = task.enclosingMap() == null ? null : task.enclosingMap().name();
        List<String> route = new ArrayList<>(List.of(task.name()));
        Optional<JsonNode> catcher = firstCatcher(task.state(), error);
        if (catcher.isEmpty() && task.enclosingMap() != null) {
            // The iteration fails, so the Map fails with the same error: its Catch decides next.
            catcher = firstCatcher(task.enclosingMap().state(), error);
            route.add(enclosingMap);
        }
        if (catcher.isEmpty()) {
            return new FailurePath(task.name(), enclosingMap, error, attempts, List.of(task.name()), new Ending.FailsAtTask(), false);
        }
        boolean releases = false;
        Set<String> visited = new HashSet<>();
        String next = catcher.get().path("Next").asText();
        while (true) {
            if (!visited.add(next)) {
                throw new AssertionError("failure path of " + task.name() + " / " + error + " loops at " + next);
            }
            route.add(next);
            Asl.Located state = asl.states().get(next);
            if (state == null) {
                throw new AssertionError("failure path of " + task.name() + " / " + error + " names a missing state " + next);
            }
            switch (state.type()) {
                case "Fail" -> {
                    return new FailurePath(task.name(), enclosingMap, error, attempts, List.copyOf(route), new Ending.EntersFailState(next), releases);
                }
                case "Succeed" -> {
                    return new FailurePath(task.name(), enclosingMap, error, attempts, List.copyOf(route), new Ending.Succeeds(next), releases);
                }
                // A catch target is assumed to succeed: its own failures are paths of their own.
                case "Task" -> releases |= Asl.functionOf(state) == LambdaFunction.RELEASE_LEASE;
                case "Pass" -> {
                }
                default -> throw new AssertionError("failure path of " + task.name() + " / " + error + " reaches a "
                        + state.type() + " state (" + next + "): not modelled here, extend RedrivePaths first");
            }
            if (state.state().path("End").asBoolean(false)) {
                return new FailurePath(task.name(), enclosingMap, error, attempts, List.copyOf(route), new Ending.Succeeds(next), releases);
            }
            next = state.state().path("Next").asText();
        }
    }

    private static Optional<JsonNode> firstCatcher(JsonNode state, String error) {
        return Asl.list(state.path("Catch")).stream().filter(c -> matches(c, error)).findFirst();
    }

    /** ASL matching: a name, {@code States.ALL}, or {@code States.TaskFailed} (every error but {@code States.Timeout}). */
    static boolean matches(JsonNode retrierOrCatcher, String error) {
        List<String> names = Asl.names(retrierOrCatcher);
        return names.contains(error) || names.contains("States.ALL")
                || (names.contains("States.TaskFailed") && !error.equals("States.Timeout"));
    }

    static String shortName(String error) {
        return error.startsWith("com.payments.reconciler.workflow.") ? error.substring("com.payments.reconciler.workflow.".length()) : error;
    }
}
