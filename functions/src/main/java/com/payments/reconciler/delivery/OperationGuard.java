package com.payments.reconciler.delivery;

import com.amazonaws.services.lambda.runtime.Context;
import com.payments.reconciler.workflow.IdempotencyAlreadyInProgress;
import com.payments.reconciler.workflow.OperationMismatch;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * Runs an operation at most once per operation id on our side (docs/design.md §6), so a retried or
 * duplicated delivery is answered from the record instead of calling the provider again. Ours, so the
 * library behind it can be swapped; the provider's own {@code Idempotency-Key} remains the last line
 * (this guard is not exactly-once: see {@link PowertoolsOperationGuard}).
 */
public interface OperationGuard {

    /**
     * Runs {@code body} unless the operation already completed, in which case its recorded result is
     * returned without running it. If {@code body} throws, nothing is recorded and the exception
     * propagates (a later call runs it again).
     *
     * @param context the invocation's Lambda context: a record left by an invocation that died is
     *                taken over once that invocation's remaining time has passed
     * @throws IdempotencyAlreadyInProgress another invocation is running the operation right now
     * @throws OperationMismatch the operation id was recorded with a different fingerprint
     */
    <T> T once(GuardedOperation operation, Context context, Class<T> resultType, Supplier<T> body);

    /**
     * The result recorded for {@code operation} if it completed (and its record has not expired), without
     * running anything: what a command that will not be sent again must be recorded with instead of
     * "not sent" (a review found: a release performed, then the command left PENDING).
     */
    <T> Optional<T> recorded(GuardedOperation operation, Class<T> resultType);
}
