package com.payments.reconciler.harness.lambda;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The sandboxes of one function. As Lambda scales: an idle sandbox takes the invocation; when every one
 * is busy a new one is started for it (one sandbox per concurrent invocation), up to {@code limit}
 * (the function's concurrency); beyond that the invocation is throttled.
 */
final class SandboxPool {

    private final int limit;
    private final Supplier<Sandbox> starter;
    private final List<Sandbox> sandboxes = new ArrayList<>();
    private final Set<Sandbox> busy = new HashSet<>();
    private final List<Sandbox> retired = new ArrayList<>();
    private boolean closed;

    SandboxPool(int limit, Supplier<Sandbox> starter) {
        if (limit < 1) {
            throw new IllegalArgumentException("a function needs at least one sandbox, limit was " + limit);
        }
        this.limit = limit;
        this.starter = starter;
    }

    int limit() {
        return limit;
    }

    /** An idle live sandbox, else a new one, marked busy; empty when the function is at its limit. */
    synchronized Optional<Sandbox> acquire() {
        if (closed) {
            // Shut down (service closed, or the function redeployed): starting one now would leave an orphan.
            throw new IllegalStateException("this configuration of the function has been shut down");
        }
        retireDead();
        for (Sandbox sandbox : sandboxes) {
            if (!busy.contains(sandbox)) {
                busy.add(sandbox);
                return Optional.of(sandbox);
            }
        }
        if (sandboxes.size() >= limit) {
            return Optional.empty();
        }
        Sandbox fresh = starter.get();
        sandboxes.add(fresh);
        busy.add(fresh);
        return Optional.of(fresh);
    }

    synchronized void release(Sandbox sandbox) {
        busy.remove(sandbox);
        retireDead();
    }

    synchronized List<SandboxInfo> infos() {
        return sandboxes.stream().map(Sandbox::info).toList();
    }

    /** Refuses new sandboxes from now on and returns every one started whose process may still run. */
    synchronized List<Sandbox> close() {
        closed = true;
        return all();
    }

    /** Every sandbox started whose process may still run: what shutdown must make sure has ended. */
    private List<Sandbox> all() {
        List<Sandbox> all = new ArrayList<>(retired);
        all.addAll(sandboxes);
        return all;
    }

    private void retireDead() {
        retired.removeIf(sandbox -> sandbox.exit().isDone());
        for (var it = sandboxes.iterator(); it.hasNext(); ) {
            Sandbox sandbox = it.next();
            if (sandbox.dead() && !busy.contains(sandbox)) {
                it.remove();
                retired.add(sandbox);
            }
        }
    }
}
