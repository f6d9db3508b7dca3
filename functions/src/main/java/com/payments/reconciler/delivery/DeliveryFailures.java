package com.payments.reconciler.delivery;

import com.payments.reconciler.workflow.Fenced;
import com.payments.reconciler.workflow.IdempotencyAlreadyInProgress;
import com.payments.reconciler.workflow.LeaseLost;
import com.payments.reconciler.workflow.OperationMismatch;

import java.util.ArrayList;
import java.util.List;

/**
 * What went wrong during one DeliverCommands call, across its concurrent deliveries, and which error
 * the call ends with. A takeover ({@link Fenced}, {@link LeaseLost}) wins over everything, so the
 * workflow goes to Superseded rather than retrying; then the first error that halted the call (the
 * provider stayed unavailable, the store or the provider misbehaved); last the per-command errors that
 * let the others go on (another invocation holds one operation in progress, one command's request changed).
 */
final class DeliveryFailures {

    private final List<RuntimeException> superseded = new ArrayList<>();
    private final List<RuntimeException> halting = new ArrayList<>();
    private final List<RuntimeException> perCommand = new ArrayList<>();

    synchronized void add(RuntimeException failure) {
        if (failure instanceof Fenced || failure instanceof LeaseLost) {
            superseded.add(failure);
        } else if (failure instanceof IdempotencyAlreadyInProgress || failure instanceof OperationMismatch) {
            perCommand.add(failure);
        } else {
            halting.add(failure);
        }
    }

    /** Another worker took over: no further provider call and no further write. */
    synchronized boolean superseded() {
        return !superseded.isEmpty();
    }

    /** No new delivery starts; those in flight finish and record what succeeded (unless superseded). */
    synchronized boolean halted() {
        return !superseded.isEmpty() || !halting.isEmpty();
    }

    synchronized int count() {
        return superseded.size() + halting.size() + perCommand.size();
    }

    /** Throws the error this call ends with, the others attached as suppressed. */
    synchronized void throwIfAny() {
        List<RuntimeException> all = new ArrayList<>(superseded);
        all.addAll(halting);
        perCommand.stream().filter(OperationMismatch.class::isInstance).forEach(all::add);
        perCommand.stream().filter(e -> !(e instanceof OperationMismatch)).forEach(all::add);
        if (all.isEmpty()) {
            return;
        }
        RuntimeException first = all.getFirst();
        all.stream().skip(1).limit(10).forEach(other -> {
            if (other != first) {
                first.addSuppressed(other);
            }
        });
        throw first;
    }
}
