package com.payments.reconciler.statemachine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.payments.reconciler.workflow.ErrorNames;
import com.payments.reconciler.workflow.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * docs/decisions.md "Redrive: a failed night is finished by redriving it" as a check on the shipped ASL,
 * by the documented redrive rules ({@link RedrivePaths}): every way a task can fail for good either
 * <ul>
 *   <li>fails the execution at that task without passing a lease release, so a redrive schedules the task
 *   again with its original input and the same lease token, and its renewal succeeds unless a newer run
 *   took over; or</li>
 *   <li>is a lost lease ({@code Fenced}, {@code LeaseLost}) and ends in the {@code Superseded} Fail state
 *   (the alarm's metric filter), or a lease another run holds ({@code LeaseHeld}) and ends in
 *   {@code LeaseHeldByAnotherRun}: a redrive re-enters those and fails again, which is what they mean,
 *   and {@code bin/reconciler redrive} refuses them.</li>
 * </ul>
 */
class RedriveRuleTest {

    private final Asl shipped = Asl.shipped();

    /** The decision, as a list of what breaks it (empty: the definition keeps it). */
    static List<String> violations(Asl asl) {
        List<String> found = new ArrayList<>();
        for (RedrivePaths.FailurePath path : RedrivePaths.of(asl)) {
            String where = path.task() + " / " + RedrivePaths.shortName(path.error()) + " → " + String.join(" → ", path.route());
            String expectedFail = ErrorNames.SUPERSEDED.contains(path.error()) ? ErrorNames.FAIL_SUPERSEDED
                    : ErrorNames.LEASE_HELD.equals(path.error()) ? ErrorNames.FAIL_LEASE_HELD_BY_ANOTHER_RUN
                    // A held night is approved and rerun, never redriven (the redrive command refuses it): its own Fail state.
                    : ErrorNames.RELEASE_SURGE.equals(path.error()) ? ErrorNames.FAIL_RELEASE_SURGE : null;
            if (path.releasesLease()) {
                found.add(where + ": hands the lease back, so a redrive of this night is refused its renewal (LeaseLost)");
            }
            switch (path.ending()) {
                case RedrivePaths.Ending.FailsAtTask f -> {
                    if (expectedFail != null) {
                        found.add(where + ": must end in the " + expectedFail + " Fail state (alarm, and redrive refused), not fail at the task");
                    }
                }
                case RedrivePaths.Ending.EntersFailState f -> {
                    if (!f.name().equals(expectedFail)) {
                        found.add(where + ": ends in the Fail state " + f.name() + ", which a redrive re-enters and fails again");
                    }
                }
                case RedrivePaths.Ending.Succeeds s -> found.add(where + ": a failure must not end the execution successfully");
            }
        }
        return found;
    }

    static void assertKeepsTheRedriveRule(Asl asl) {
        List<String> violations = violations(asl);
        assertThat(violations).as("failure paths that break the redrive rule:%n  %s", String.join(System.lineSeparator() + "  ", violations)).isEmpty();
    }

    @Test
    void everyFailurePathOfTheShippedAslEitherRestartsTheFailedTaskOrEndsInAMeaningfulFailState() {
        List<RedrivePaths.FailurePath> paths = RedrivePaths.of(shipped);
        paths.forEach(p -> System.out.println(p.describe()));
        assertThat(paths).hasSizeGreaterThan(40);
        assertThat(paths).extracting(RedrivePaths.FailurePath::task).contains("DeliverBatch");
        assertKeepsTheRedriveRule(shipped);
    }

    /** The restart point per task and cause, as an operator reads it after a provider or DynamoDB outage. */
    @ParameterizedTest(name = "{0} failing with {1} → redrive restarts {2}")
    @CsvSource(delimiter = '|', textBlock = """
            AcquireLease  | StoreContention            | AcquireLease
            AcquireLease  | Lambda.ServiceException    | AcquireLease
            AcquireLease  | LeaseHeld                  | LeaseHeldByAnotherRun (a Fail state: fails again)
            ReconcilePage | StoreContention            | ReconcilePage
            ReconcilePage | States.Timeout             | ReconcilePage
            ReconcilePage | InvalidInput               | ReconcilePage
            ReconcilePage | Fenced                     | Superseded (a Fail state: fails again)
            ReconcilePage | LeaseLost                  | Superseded (a Fail state: fails again)
            DeliverBatch  | ProviderUnavailable        | DeliverReleases › DeliverBatch (failed iterations only)
            DeliverBatch  | IdempotencyAlreadyInProgress | DeliverReleases › DeliverBatch (failed iterations only)
            DeliverBatch  | Lambda.TooManyRequestsException | DeliverReleases › DeliverBatch (failed iterations only)
            DeliverBatch  | java.lang.IllegalStateException | DeliverReleases › DeliverBatch (failed iterations only)
            DeliverBatch  | Fenced                     | Superseded (a Fail state: fails again)
            ReleaseLease  | StoreContention            | ReleaseLease
            ReleaseLease  | LeaseLost                  | Superseded (a Fail state: fails again)
            """)
    void restartPoints(String task, String error, String restartsAt) {
        String fullName = error.contains(".") ? error : "com.payments.reconciler.workflow." + error;
        RedrivePaths.FailurePath path = RedrivePaths.of(shipped).stream()
                .filter(p -> p.task().equals(task) && p.error().equals(fullName)).findFirst().orElseThrow();
        assertThat(path.restartsAt()).isEqualTo(restartsAt);
        assertThat(path.releasesLease()).as("the lease stays with the failed run until it expires").isFalse();
    }

    @Test
    void theOnlyFailStatesAreSupersededLeaseHeldByAnotherRunAndReleaseSurgeEachReachedOnlyByItsOwnErrors() {
        Map<String, TreeSet<String>> reachedBy = RedrivePaths.of(shipped).stream()
                .filter(p -> p.ending() instanceof RedrivePaths.Ending.EntersFailState)
                .collect(Collectors.groupingBy(p -> ((RedrivePaths.Ending.EntersFailState) p.ending()).name(),
                        Collectors.mapping(RedrivePaths.FailurePath::error, Collectors.toCollection(TreeSet::new))));
        assertThat(reachedBy).containsOnlyKeys(ErrorNames.FAIL_SUPERSEDED, ErrorNames.FAIL_LEASE_HELD_BY_ANOTHER_RUN, ErrorNames.FAIL_RELEASE_SURGE);
        assertThat(reachedBy.get(ErrorNames.FAIL_RELEASE_SURGE)).containsExactly(ErrorNames.RELEASE_SURGE);
        assertThat(reachedBy.get(ErrorNames.FAIL_SUPERSEDED)).containsExactlyInAnyOrderElementsOf(ErrorNames.SUPERSEDED);
        assertThat(reachedBy.get(ErrorNames.FAIL_LEASE_HELD_BY_ANOTHER_RUN)).containsExactly(ErrorNames.LEASE_HELD);
        assertThat(shipped.states().values()).filteredOn(s -> s.type().equals("Fail")).extracting(Asl.Located::name)
                .containsExactlyInAnyOrder(ErrorNames.FAIL_SUPERSEDED, ErrorNames.FAIL_LEASE_HELD_BY_ANOTHER_RUN, ErrorNames.FAIL_RELEASE_SURGE);
    }

    /**
     * The check can fail: the definition as it was before this decision (a States.ALL Catch into
     * ReleaseLeaseAfterFailure, which hands the lease back, then the RunFailed Fail state) breaks it on
     * every non-lease error of ReconcilePage and of the Map's iterations, and RunFailed on the others.
     */
    @Test
    void theRuleRejectsTheOldCatchThatReleasedTheLeaseAndEndedInRunFailed() {
        Asl old = withTheOldFailurePath(shipped);
        List<String> violations = violations(old);
        violations.forEach(v -> System.out.println("mutant: " + v));

        assertThat(violations).anySatisfy(v -> assertThat(v)
                .startsWith("DeliverBatch / ProviderUnavailable → DeliverBatch → DeliverReleases → ReleaseLeaseAfterFailure → RunFailed")
                .contains("hands the lease back"));
        assertThat(violations).anySatisfy(v -> assertThat(v)
                .startsWith("ReconcilePage / StoreContention → ReconcilePage → ReleaseLeaseAfterFailure → RunFailed")
                .contains("re-enters and fails again"));
        assertThat(violations).anySatisfy(v -> assertThat(v).startsWith("AcquireLease / StoreContention → AcquireLease → RunFailed"));
        assertThatThrownBy(() -> assertKeepsTheRedriveRule(old)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("ReleaseLeaseAfterFailure").hasMessageContaining("RunFailed");
    }

    /** A copy of the definition with the pre-redrive failure path put back, built from the shipped tree. */
    static Asl withTheOldFailurePath(Asl asl) {
        ObjectNode root = asl.root.deepCopy();
        ObjectNode states = (ObjectNode) root.get("States");
        catchAll(states, "AcquireLease", "RunFailed");
        catchAll(states, "ReconcilePage", "ReleaseLeaseAfterFailure");
        catchAll(states, "DeliverReleases", "ReleaseLeaseAfterFailure");
        catchAll(states, "ReleaseLease", "RunFailed");
        ObjectNode release = states.get("ReleaseLease").deepCopy();
        ((ObjectNode) release.get("Parameters").get("Payload")).put("failure.$", "$.error");
        release.set("Catch", parse("[{\"ErrorEquals\":[\"States.ALL\"],\"ResultPath\":\"$.releaseError\",\"Next\":\"RunFailed\"}]"));
        release.put("Next", "RunFailed");
        states.set("ReleaseLeaseAfterFailure", release);
        states.set("RunFailed", parse("{\"Type\":\"Fail\",\"Error\":\"RunFailed\",\"CausePath\":\"$.error.Cause\"}"));
        return Asl.of(root);
    }

    private static void catchAll(ObjectNode states, String state, String next) {
        ((ArrayNode) states.get(state).get("Catch")).add(parse("{\"ErrorEquals\":[\"States.ALL\"],\"ResultPath\":\"$.error\",\"Next\":\"" + next + "\"}"));
    }

    private static JsonNode parse(String json) {
        try {
            return Json.mapper().readTree(json);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
