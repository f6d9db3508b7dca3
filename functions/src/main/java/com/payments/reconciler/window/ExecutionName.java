package com.payments.reconciler.window;

import com.payments.reconciler.workflow.InvalidInput;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Deterministic execution names (docs/design.md §8): {@code reconcile-{windowId}} for the scheduled run,
 * {@code reconcile-{windowId}-rerun-{n}} for manual reruns. Only {@code [0-9A-Za-z-]}, at most 80
 * characters: valid for Step Functions, searchable in the console, safe in logs. Step Functions keeps
 * a name unique per state machine for 90 days, which is what suppresses duplicate starts.
 *
 * @param rerun 0 for the scheduled run, n &ge; 1 for the n-th rerun
 */
public record ExecutionName(WindowId window, int rerun) {

    public static final int MAX_LENGTH = 80;
    private static final String PREFIX = "reconcile-";
    private static final Pattern FORM = Pattern.compile("reconcile-(\\d{4}-\\d{2}-\\d{2})(?:-rerun-([1-9]\\d{0,5}))?");
    public static final int MAX_RERUN = 999_999;

    public ExecutionName {
        Objects.requireNonNull(window, "window");
        if (rerun < 0 || rerun > MAX_RERUN) {
            throw new InvalidInput("rerun", "must be 0 (the scheduled run) or a rerun number from 1 to " + MAX_RERUN + ", was " + rerun);
        }
    }

    public static ExecutionName scheduled(WindowId window) {
        return new ExecutionName(window, 0);
    }

    public static ExecutionName rerun(WindowId window, int n) {
        if (n < 1) {
            throw new InvalidInput("rerun", "must be from 1 to " + MAX_RERUN + ", was " + n);
        }
        return new ExecutionName(window, n);
    }

    /** The name of one of our executions, or empty for a name this job did not give. */
    public static Optional<ExecutionName> parse(String name) {
        Matcher m = name == null ? null : FORM.matcher(name);
        if (m == null || !m.matches()) {
            return Optional.empty();
        }
        try {
            WindowId window = WindowId.parse(m.group(1), "execution name");
            return Optional.of(new ExecutionName(window, m.group(2) == null ? 0 : Integer.parseInt(m.group(2))));
        } catch (InvalidInput e) {
            return Optional.empty();
        }
    }

    public static ExecutionName require(String name, String field) {
        return parse(name).orElseThrow(() -> new InvalidInput(field,
                "must be reconcile-YYYY-MM-DD or reconcile-YYYY-MM-DD-rerun-N, was '" + name + "'"));
    }

    /**
     * The name part of an execution ARN ({@code arn:aws:states:region:account:execution:machine:name}), the same
     * for any execution, ours or not.
     */
    public static String lastSegmentOf(String executionArn) {
        return executionArn.substring(executionArn.lastIndexOf(':') + 1);
    }

    public boolean isRerun() {
        return rerun > 0;
    }

    @Override
    public String toString() {
        return PREFIX + window + (rerun > 0 ? "-rerun-" + rerun : "");
    }
}
