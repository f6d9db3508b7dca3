package com.payments.reconciler.cli;

import com.payments.reconciler.window.ExecutionName;
import com.payments.reconciler.workflow.ErrorNames;
import com.payments.reconciler.workflow.LambdaFunction;
import com.payments.reconciler.workflow.Timing;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionRedriveStatus;

/**
 * Whether {@code redrive} calls RedriveExecution, decided from what Step Functions says about the
 * execution (docs/decisions.md, "Redrive"): its {@code redriveStatus} and {@code redriveStatusReason}
 * first — Step Functions alone knows its 14-day period, its event-history limit, its one-year open time —
 * and then the execution's error, because a REDRIVABLE execution that ended in a Fail state would only
 * re-enter that Fail state and fail again (developer guide, "Redrive behavior of individual states").
 */
sealed interface RedriveDecision {

    /** Call RedriveExecution: Step Functions restarts the failed step; the lease token is the one it failed with. */
    record Redrive() implements RedriveDecision {
    }

    /** Nothing is redriven; {@code message} says why and what to do instead. */
    record Refuse(int exitCode, String message) implements RedriveDecision {
    }

    /** The {@code redriveStatusReason} strings the API reference documents for STANDARD executions. */
    String REASON_DELETING = "State machine is in DELETING status.";
    String REASON_RUNNING = "Execution is RUNNING and cannot be redriven.";
    String REASON_SUCCEEDED = "Execution is SUCCEEDED and cannot be redriven.";
    String REASON_BEFORE_LAUNCH = "Execution was started before the launch of RedriveExecution.";
    String REASON_HISTORY_LIMIT = "Execution history event limit exceeded.";
    String REASON_MAX_TIME = "Execution has exceeded the max execution time.";
    String REASON_PERIOD = "Execution redrivable period exceeded.";

    /** The Fail state of executions started before the redrive decision: its path had handed the lease back. */
    String OLD_FAIL_STATE = "RunFailed";

    /**
     * How long after an execution stopped its task invocations may still run: Step Functions does not cancel a
     * Lambda invocation when it aborts a Map iteration or the execution (Lambda has no cancel), so each may run to
     * its function's timeout. A redrive reruns those iterations with the same lease token, which the fence cannot
     * tell apart from the stale invocation; waiting for them to end keeps the two from overlapping.
     */
    Duration SETTLE = Arrays.stream(LambdaFunction.values()).map(LambdaFunction::timeout).max(Comparator.naturalOrder())
            .orElseThrow().plus(Timing.TASK_TIMEOUT_SLACK);

    static RedriveDecision of(ExecutionName name, DescribeExecutionResponse execution, Instant now) {
        String window = name.window().toString();
        String rerun = "`rerun --window " + window + "` (`--dry-run` first)";
        ExecutionRedriveStatus status = execution.redriveStatus();
        if (status == ExecutionRedriveStatus.NOT_REDRIVABLE) {
            String reason = execution.redriveStatusReason() == null ? "(no reason given)" : execution.redriveStatusReason();
            String instead = switch (reason) {
                case REASON_RUNNING -> "it is still running: follow it with `history --execution " + name + "`";
                case REASON_SUCCEEDED -> "the window's run completed: `status --window " + window + "`";
                case REASON_DELETING -> "the state machine is being deleted: deploy the stack again, then " + rerun;
                // Past what redrive can do (14 days, 25,000 events, one year, or older than redrive): a new
                // execution finishes the window; the same operation ids and the fence make it safe.
                default -> "finish the window with " + rerun;
            };
            return new Refuse(ExitCodes.RUN_FAILED, "refused: Step Functions cannot redrive " + name + " (" + execution.statusAsString()
                    + "): " + reason + " — " + instead);
        }
        if (status != ExecutionRedriveStatus.REDRIVABLE) {
            // REDRIVABLE_BY_MAP_RUN is for a Distributed Map's child executions; ours are never that. A missing
            // status (an endpoint that does not implement redrive) is not a yes.
            return new Refuse(ExitCodes.RUN_FAILED, "refused: Step Functions reports redriveStatus " + execution.redriveStatusAsString()
                    + " for " + name + ", not REDRIVABLE; nothing was redriven — finish the window with " + rerun);
        }
        String error = execution.error() == null ? "" : execution.error();
        if (ErrorNames.FAIL_SUPERSEDED.equals(error)) {
            return new Refuse(ExitCodes.RUN_FAILED, "refused: " + name + " was superseded by a newer run (" + cause(execution)
                    + "); a redrive re-enters the Superseded state and fails again. `status --window " + window
                    + "` shows the run that took over; " + rerun + " only if the window still needs work");
        }
        if (ErrorNames.FAIL_LEASE_HELD_BY_ANOTHER_RUN.equals(error)) {
            return new Refuse(ExitCodes.RUN_FAILED, "refused: " + name + " never got the lease (" + cause(execution)
                    + "); a redrive re-enters LeaseHeldByAnotherRun and fails again. `status --window " + window
                    + "` shows the run that held it; once that one has ended, " + rerun + " if the window still needs work");
        }
        if (ErrorNames.FAIL_RELEASE_SURGE.equals(error)) {
            return new Refuse(ExitCodes.RUN_FAILED, "refused: the release-surge guard held " + name + " (" + cause(execution)
                    + "); a redrive re-enters ReleaseSurge and fails again. Check the settlement feed (docs/operating.md, ReleaseSurge), "
                    + "then `approve --window " + window + " --note TEXT`, which records the approval and starts the rerun that delivers");
        }
        if (OLD_FAIL_STATE.equals(error)) {
            return new Refuse(ExitCodes.RUN_FAILED, "refused: " + name + " ran a definition whose failure path handed the lease back and "
                    + "ended in RunFailed; a redrive uses the execution's own definition, so it would re-enter RunFailed. Finish the window with " + rerun);
        }
        if (execution.stopDate() != null && now.isBefore(execution.stopDate().plus(SETTLE))) {
            return new Refuse(ExitCodes.RUN_FAILED, "refused for now: " + name + " stopped at " + execution.stopDate()
                    + " and the Lambda invocations of its failed or aborted steps may still be running (Step Functions does not "
                    + "cancel them; the longest function timeout is " + SETTLE.minus(Timing.TASK_TIMEOUT_SLACK).toSeconds()
                    + " s). Redrive at or after " + execution.stopDate().plus(SETTLE));
        }
        return new Redrive();
    }

    private static String cause(DescribeExecutionResponse execution) {
        return execution.cause() == null ? "no cause recorded" : execution.cause();
    }
}
