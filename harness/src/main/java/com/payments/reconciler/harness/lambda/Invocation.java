package com.payments.reconciler.harness.lambda;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One invocation on its way through a sandbox: handed to the runtime by {@code next}, completed exactly
 * once by whichever comes first of the runtime's response or error, an init error, the process's exit,
 * the deadline, or the service's shutdown.
 *
 * @param advertised the time the runtime is told it has ({@code Lambda-Runtime-Deadline-Ms}); the
 *                   function's timeout unless the service was asked to report less
 */
record Invocation(String requestId, byte[] payload, String invokedArn, String traceId, Duration advertised,
                  CompletableFuture<InvocationOutcome> outcome, AtomicReference<ScheduledFuture<?>> timer) {

    static Invocation of(byte[] payload, String invokedArn, Duration advertised) {
        return new Invocation(UUID.randomUUID().toString(), payload, invokedArn, TraceIds.next(), advertised,
                new CompletableFuture<>(), new AtomicReference<>());
    }

    /** Completes the invocation unless it already ended; true if this call decided it. */
    boolean finish(InvocationOutcome result) {
        boolean decided = outcome.complete(result);
        if (decided) {
            ScheduledFuture<?> pending = timer.getAndSet(null);
            if (pending != null) {
                pending.cancel(false);
            }
        }
        return decided;
    }

    void replaceTimer(ScheduledFuture<?> next) {
        ScheduledFuture<?> previous = timer.getAndSet(next);
        if (previous != null) {
            previous.cancel(false);
        }
        if (outcome.isDone()) {
            next.cancel(false);
        }
    }
}
