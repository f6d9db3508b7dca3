package com.payments.reconciler.workflow;

import java.util.Arrays;

/**
 * How much concurrency each function reserves, sized from the workflow's own concurrency. One
 * execution runs at most {@link Timing#DELIVERY_MAP_CONCURRENCY} DeliverCommands calls at once (the delivery
 * Map's {@code MaxConcurrency}) and one call of every other function at a time. At most
 * {@link #OVERLAPPING_EXECUTIONS} executions overlap: the scheduled night and a manual rerun, or a superseded
 * run still finishing; duplicate starts of one window are suppressed by its deterministic execution name. For
 * StartWindow the same 2 covers Scheduler's at-least-once duplicate deliveries. The stack reserves this and its
 * template test checks it against this rule.
 *
 * <p>IngestEvents is not driven by the workflow but by its queue's event source mapping, which does not see
 * reserved concurrency: a mapping that invokes beyond the reservation is throttled, and its throttled batches go
 * back to the queue, each receive counting towards the dead-letter queue's {@code maxReceiveCount}. So it reserves
 * exactly {@link #INGESTION_MAX_CONCURRENCY} and the mapping's {@code MaximumConcurrency} is the same number.
 */
public final class ReservedConcurrency {

    private ReservedConcurrency() {
    }

    /** Executions of the workflow that may run at once. */
    public static final int OVERLAPPING_EXECUTIONS = 2;

    /**
     * IngestEvents' reservation and its event source mapping's {@code MaximumConcurrency}: five, the concurrency
     * Lambda starts polling a queue with, and the mapping's minimum is 2. Not measured on AWS: docs/scale.md.
     */
    public static final int INGESTION_MAX_CONCURRENCY = 5;

    /**
     * The Adyen webhook receiver's reservation when the stack's provider is adyen and it reserves concurrency: the stack
     * context {@code webhookReservedConcurrency}, this by default, from 0 (none reserved for the receiver) to
     * {@link #WEBHOOK_MAX}. Not part of {@link #total()}: the receiver exists only in an Adyen stack. The stack and the
     * pre-flight read these bounds from here.
     */
    public static final int WEBHOOK_DEFAULT = 5;
    public static final int WEBHOOK_MAX = 20;

    /** The most calls of {@code function} one execution runs at once (IngestEvents: not run by executions). */
    public static int perExecution(LambdaFunction function) {
        return function == LambdaFunction.DELIVER_COMMANDS ? Timing.DELIVERY_MAP_CONCURRENCY : 1;
    }

    /** The function's {@code ReservedConcurrentExecutions}. */
    public static int of(LambdaFunction function) {
        if (function == LambdaFunction.INGEST_EVENTS) {
            return INGESTION_MAX_CONCURRENCY;
        }
        return OVERLAPPING_EXECUTIONS * perExecution(function);
    }

    /** What the stack reserves in all: the account must keep 100 unreserved on top of it. */
    public static int total() {
        return Arrays.stream(LambdaFunction.values()).mapToInt(ReservedConcurrency::of).sum();
    }
}
