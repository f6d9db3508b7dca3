package com.payments.reconciler.workflow;

import com.amazonaws.services.lambda.runtime.Context;
import java.time.Duration;

/**
 * When a task must stop starting new work: {@link Timing#DEADLINE_MARGIN} before its Lambda deadline,
 * so the work in flight finishes, the result is returned, and the workflow (not a timeout) decides
 * what comes next. Lambda measures the deadline on its own clock; so does this.
 */
public final class Deadline {

    private final Context context;
    private final Duration margin;

    public Deadline(Context context, Duration margin) {
        this.context = context;
        this.margin = margin;
    }

    public static Deadline of(Context context) {
        return new Deadline(context, Timing.DEADLINE_MARGIN);
    }

    /** Whether waiting {@code wait} still leaves the margin: a longer wait is the next call's, not this one's. */
    public boolean allowsWait(Duration wait) {
        return context == null || context.getRemainingTimeInMillis() - wait.toMillis() >= margin.toMillis();
    }

    /** How long this task may still wait and keep the margin (zero once inside it). */
    public Duration spare() {
        if (context == null) {
            return Duration.ofDays(1);
        }
        return Duration.ofMillis(Math.max(0, context.getRemainingTimeInMillis() - margin.toMillis()));
    }

    public boolean near() {
        return context != null && context.getRemainingTimeInMillis() < margin.toMillis();
    }
}
