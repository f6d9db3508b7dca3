package com.payments.reconciler.workflow;

import java.util.List;

/**
 * Every error name the workflow reacts to (docs/design.md §7), one meaning each. The handlers throw the
 * {@link WorkflowError} subclasses named here; the ASL's Retry and Catch blocks match these strings,
 * and a test checks the two sets agree.
 *
 * <p>Lambda's Java runtime reports a thrown exception as {@code errorType = getClass().getName()}
 * (the fully qualified name: see {@code UserFault.makeUserFault} in aws-lambda-java-runtime-interface-client),
 * so that is what Retry/Catch must match on AWS; the local Invoke endpoint reports the same. (The design
 * page said "simple class name"; docs/decisions.md records the correction.)
 */
public final class ErrorNames {

    private ErrorNames() {
    }

    public static final String FENCED = Fenced.class.getName();
    public static final String LEASE_LOST = LeaseLost.class.getName();
    public static final String LEASE_HELD = LeaseHeld.class.getName();
    public static final String STORE_CONTENTION = StoreContention.class.getName();
    public static final String PROVIDER_UNAVAILABLE = ProviderUnavailable.class.getName();
    public static final String IDEMPOTENCY_ALREADY_IN_PROGRESS = IdempotencyAlreadyInProgress.class.getName();
    public static final String INVALID_INPUT = InvalidInput.class.getName();
    public static final String OPERATION_MISMATCH = OperationMismatch.class.getName();
    public static final String PROVIDER_CONTRACT_VIOLATION = ProviderContractViolation.class.getName();
    /** The settlement feed's watermark is too old to decide or deliver on: the night releases nothing. */
    public static final String FEED_NOT_COMPLETE = FeedNotComplete.class.getName();
    public static final String RELEASE_SURGE = ReleaseSurge.class.getName();

    /** Raised by the Lambda service itself, not by our code. */
    public static final List<String> LAMBDA_SERVICE_ERRORS = List.of("Lambda.ServiceException",
            "Lambda.AWSLambdaException", "Lambda.SdkClientException", "Lambda.ClientExecutionTimeoutException");
    public static final String LAMBDA_THROTTLED = "Lambda.TooManyRequestsException";
    /**
     * Lambda refuses to invoke a SnapStart version that is Inactive (not invoked for 14 days, or its environments
     * recycled) until it is Active again: wait, then invoke again (Lambda Developer Guide, "Troubleshooting SnapStart
     * errors"). Retried for minutes, {@link Timing#SNAPSTART_NOT_READY_PATIENCE}.
     */
    public static final String LAMBDA_SNAPSTART_NOT_READY = "Lambda.SnapStartNotReadyException";
    /** The restore phase (after-restore hooks, network, credentials) took over 10 s: retried with the not-ready error. */
    public static final String LAMBDA_SNAPSTART_TIMEOUT = "Lambda.SnapStartTimeoutException";
    /** An after-restore hook threw: our code's fault, retried only as any other error is (States.TaskFailed). */
    public static final String LAMBDA_SNAPSTART_FAILED = "Lambda.SnapStartException";
    /** SnapStart's invoke errors, each a row of {@link #TABLE}. */
    public static final List<String> LAMBDA_SNAPSTART_ERRORS = List.of(LAMBDA_SNAPSTART_NOT_READY, LAMBDA_SNAPSTART_TIMEOUT,
            LAMBDA_SNAPSTART_FAILED);
    /** The errors the SnapStart retrier names: the version is not usable yet, and waiting is the documented fix. */
    public static final List<String> LAMBDA_SNAPSTART_WAIT = List.of(LAMBDA_SNAPSTART_NOT_READY, LAMBDA_SNAPSTART_TIMEOUT);

    /** Names of the Fail states the workflow can end in. */
    public static final String FAIL_SUPERSEDED = "Superseded";
    public static final String FAIL_LEASE_HELD_BY_ANOTHER_RUN = "LeaseHeldByAnotherRun";
    /** The release-surge guard held the night's delivery (the lease was handed back first; commands PENDING). */
    public static final String FAIL_RELEASE_SURGE = "ReleaseSurge";

    /** Errors our handlers throw. */
    public static final List<String> THROWN_BY_HANDLERS = List.of(FENCED, LEASE_LOST, LEASE_HELD, STORE_CONTENTION,
            PROVIDER_UNAVAILABLE, IDEMPOTENCY_ALREADY_IN_PROGRESS, INVALID_INPUT, OPERATION_MISMATCH, PROVIDER_CONTRACT_VIOLATION,
            FEED_NOT_COMPLETE, RELEASE_SURGE);

    /** Step Functions' own: the task ran past its {@code TimeoutSeconds}. */
    public static final String STATES_TIMEOUT = "States.Timeout";
    /**
     * Stands for every error no row names (an unexpected exception's class, e.g. a bug): what
     * {@code States.TaskFailed} alone decides.
     */
    public static final String ANY_OTHER_ERROR = "java.lang.RuntimeException";

    /** Where an error the workflow does not retry (or stops retrying) ends the execution. */
    public static final String FAILS_AT_ITS_TASK = "fails at its task";

    /**
     * One row of the error table: whether the workflow retries {@code error} at a task that can raise it,
     * and where the execution goes once it is not retried (any more).
     *
     * @param endsIn a Fail state's name, or {@link #FAILS_AT_ITS_TASK} (not caught: the execution fails at the
     *               task with that error, holding the lease, so a redrive restarts that task)
     */
    public record Handling(String error, boolean retried, String endsIn) {
        public boolean superseded() {
            return endsIn.equals(FAIL_SUPERSEDED);
        }
    }

    /**
     * The error table (docs/design.md §7 as decided; docs/decisions.md, "The error table is one definition"):
     * ErrorHandlingTest derives each Task's effective behaviour from the shipped ASL's Retry and Catch,
     * for every error its function can raise, and compares it with this.
     */
    public static final List<Handling> TABLE = List.of(
            new Handling(LAMBDA_SERVICE_ERRORS.get(0), true, FAILS_AT_ITS_TASK),
            new Handling(LAMBDA_SERVICE_ERRORS.get(1), true, FAILS_AT_ITS_TASK),
            new Handling(LAMBDA_SERVICE_ERRORS.get(2), true, FAILS_AT_ITS_TASK),
            new Handling(LAMBDA_SERVICE_ERRORS.get(3), true, FAILS_AT_ITS_TASK),
            new Handling(LAMBDA_THROTTLED, true, FAILS_AT_ITS_TASK),
            new Handling(LAMBDA_SNAPSTART_NOT_READY, true, FAILS_AT_ITS_TASK),
            new Handling(LAMBDA_SNAPSTART_TIMEOUT, true, FAILS_AT_ITS_TASK),
            new Handling(LAMBDA_SNAPSTART_FAILED, true, FAILS_AT_ITS_TASK),
            new Handling(STORE_CONTENTION, true, FAILS_AT_ITS_TASK),
            new Handling(PROVIDER_UNAVAILABLE, true, FAILS_AT_ITS_TASK),
            new Handling(IDEMPOTENCY_ALREADY_IN_PROGRESS, true, FAILS_AT_ITS_TASK),
            new Handling(LEASE_HELD, true, FAIL_LEASE_HELD_BY_ANOTHER_RUN),
            new Handling(FENCED, false, FAIL_SUPERSEDED),
            new Handling(LEASE_LOST, false, FAIL_SUPERSEDED),
            new Handling(INVALID_INPUT, false, FAILS_AT_ITS_TASK),
            new Handling(OPERATION_MISMATCH, false, FAILS_AT_ITS_TASK),
            new Handling(PROVIDER_CONTRACT_VIOLATION, false, FAILS_AT_ITS_TASK),
            // Not retried: minutes later the watermark is as old; the next night or a redrive after the feed caught up.
            new Handling(FEED_NOT_COMPLETE, false, FAILS_AT_ITS_TASK),
            new Handling(RELEASE_SURGE, false, FAIL_RELEASE_SURGE),
            new Handling(STATES_TIMEOUT, true, FAILS_AT_ITS_TASK),
            new Handling(ANY_OTHER_ERROR, true, FAILS_AT_ITS_TASK));

    /** Errors that mean "another worker took over": never retried, caught into {@link #FAIL_SUPERSEDED} (the table's rows). */
    public static final List<String> SUPERSEDED = TABLE.stream().filter(Handling::superseded).map(Handling::error).toList();

    /** The table's row for {@code error}. */
    public static Handling handling(String error) {
        return TABLE.stream().filter(h -> h.error().equals(error)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no row of the error table for " + error));
    }
}
