package com.payments.reconciler.workflow;

import java.util.List;

/**
 * Every error name the workflow reacts to (design §7), one meaning each. The handlers throw the
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

    /** Raised by the Lambda service itself, not by our code. */
    public static final List<String> LAMBDA_SERVICE_ERRORS = List.of("Lambda.ServiceException",
            "Lambda.AWSLambdaException", "Lambda.SdkClientException", "Lambda.ClientExecutionTimeoutException");
    public static final String LAMBDA_THROTTLED = "Lambda.TooManyRequestsException";

    /** Names of the Fail states the workflow can end in. */
    public static final String FAIL_SUPERSEDED = "Superseded";
    public static final String FAIL_LEASE_HELD_BY_ANOTHER_RUN = "LeaseHeldByAnotherRun";

    /** Errors our handlers throw. */
    public static final List<String> THROWN_BY_HANDLERS = List.of(FENCED, LEASE_LOST, LEASE_HELD, STORE_CONTENTION,
            PROVIDER_UNAVAILABLE, IDEMPOTENCY_ALREADY_IN_PROGRESS, INVALID_INPUT);

    /** Errors that mean "another worker took over": never retried, caught into {@link #FAIL_SUPERSEDED}. */
    public static final List<String> SUPERSEDED = List.of(FENCED, LEASE_LOST);
}
