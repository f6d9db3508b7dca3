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

    public boolean near() {
        return context != null && context.getRemainingTimeInMillis() < margin.toMillis();
    }
}
