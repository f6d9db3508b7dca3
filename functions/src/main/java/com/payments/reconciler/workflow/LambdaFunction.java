package com.payments.reconciler.workflow;

import java.time.Duration;
import java.util.List;

/**
 * The six Lambda functions: handler class, deployed timeout and memory, and the ASL substitution
 * that carries the function's (alias) ARN. The CDK stack, the local runner and the timing-budget
 * test all read this one list.
 */
public enum LambdaFunction {
    START_WINDOW("StartWindow", "com.payments.reconciler.window.StartWindowHandler",
            Timing.START_WINDOW_TIMEOUT, Timing.SMALL_FUNCTION_MEMORY_MB, null,
            List.of(InvalidInput.class, StoreContention.class)),
    ACQUIRE_LEASE("AcquireLease", "com.payments.reconciler.lease.AcquireLeaseHandler",
            Timing.ACQUIRE_LEASE_TIMEOUT, Timing.SMALL_FUNCTION_MEMORY_MB, "AcquireLeaseFunctionArn",
            List.of(LeaseHeld.class, StoreContention.class, InvalidInput.class)),
    RECONCILE_PAGE("ReconcilePage", "com.payments.reconciler.reconcile.ReconcilePageHandler",
            Timing.RECONCILE_PAGE_TIMEOUT, Timing.PAGE_FUNCTION_MEMORY_MB, "ReconcilePageFunctionArn",
            List.of(Fenced.class, LeaseLost.class, StoreContention.class, InvalidInput.class, FeedNotComplete.class, ReleaseSurge.class)),
    DELIVER_COMMANDS("DeliverCommands", "com.payments.reconciler.delivery.DeliverCommandsHandler",
            Timing.DELIVER_COMMANDS_TIMEOUT, Timing.PAGE_FUNCTION_MEMORY_MB, "DeliverCommandsFunctionArn",
            List.of(Fenced.class, LeaseLost.class, StoreContention.class, ProviderUnavailable.class,
                    IdempotencyAlreadyInProgress.class, InvalidInput.class, OperationMismatch.class,
                    ProviderContractViolation.class, FeedNotComplete.class)),
    RELEASE_LEASE("ReleaseLease", "com.payments.reconciler.lease.ReleaseLeaseHandler",
            Timing.RELEASE_LEASE_TIMEOUT, Timing.SMALL_FUNCTION_MEMORY_MB, "ReleaseLeaseFunctionArn",
            List.of(LeaseLost.class, StoreContention.class, InvalidInput.class)),
    /**
     * Not part of the workflow: SQS's event source mapping invokes it with the ingestion queue's messages, and it
     * answers with a partial batch response rather than errors (an invalid SQS event itself is InvalidInput).
     */
    INGEST_EVENTS("IngestEvents", "com.payments.reconciler.ingest.IngestEventsHandler",
            Timing.INGEST_EVENTS_TIMEOUT, Timing.SMALL_FUNCTION_MEMORY_MB, null,
            List.of(InvalidInput.class));

    private final String logicalName;
    private final String handlerClass;
    private final Duration timeout;
    private final int memoryMb;
    private final String aslSubstitution;
    private final List<Class<? extends WorkflowError>> errors;

    LambdaFunction(String logicalName, String handlerClass, Duration timeout, int memoryMb, String aslSubstitution,
                   List<Class<? extends WorkflowError>> errors) {
        this.errors = errors;
        this.logicalName = logicalName;
        this.handlerClass = handlerClass;
        this.timeout = timeout;
        this.memoryMb = memoryMb;
        this.aslSubstitution = aslSubstitution;
    }

    public String logicalName() {
        return logicalName;
    }

    /** The {@code handler} string Lambda's Java runtime expects. */
    public String handler() {
        return handlerClass + "::handleRequest";
    }

    public String handlerClass() {
        return handlerClass;
    }

    public Duration timeout() {
        return timeout;
    }

    public int memoryMb() {
        return memoryMb;
    }

    /** The {@code ${...}} name in the ASL, or null for StartWindow (invoked by Scheduler) and IngestEvents (by SQS). */
    public String aslSubstitution() {
        return aslSubstitution;
    }

    /** The named errors the handler throws: the ASL must handle each of them, and only them (a test checks). */
    public List<String> errorNames() {
        return errors.stream().map(Class::getName).toList();
    }

    public boolean invokedByWorkflow() {
        return aslSubstitution != null;
    }
}
