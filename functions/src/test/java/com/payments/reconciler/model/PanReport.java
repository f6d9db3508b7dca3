package com.payments.reconciler.model;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a {@code pan} run says about its search: errors, size, and every sign of a search that did not cover
 * the whole state space.
 */
record PanReport(int errors, long statesStored, long transitions, int depthReached, double seconds,
                 boolean fullStateSpace, boolean assertionsChecked, boolean invalidEndStatesChecked,
                 List<String> truncations, Optional<Integer> unreachedWorkerStates, Optional<String> violatedAssertion) {

    /** Lines pan prints when it stopped before covering every reachable state. */
    private static final List<String> TRUNCATION_SIGNS = List.of(
            "error: max search depth too small", "Warning: Search not completed", "Warning: Search incomplete",
            "pan: reached -DMEMLIM bound", "out of memory");

    private static final Pattern ERRORS = Pattern.compile("depth reached (\\d+), errors: (\\d+)");
    private static final Pattern STORED = Pattern.compile("(\\d+) states, stored");
    private static final Pattern TRANSITIONS = Pattern.compile("([0-9.e+]+) transitions \\(= stored\\+matched\\)");
    private static final Pattern ELAPSED = Pattern.compile("pan: elapsed time ([0-9.e+]+) seconds");
    private static final Pattern ASSERTIONS = Pattern.compile("assertion violations\\s+\\+");
    private static final Pattern END_STATES = Pattern.compile("invalid end states\\s+\\+");
    private static final Pattern UNREACHED_WORKER = Pattern.compile("unreached in proctype worker\\s+\\((\\d+) of \\d+ states\\)");
    private static final Pattern VIOLATION = Pattern.compile("pan:\\d+: assertion violated (\\S+)");

    static PanReport parse(String output) {
        Matcher errors = require(ERRORS, output, "errors");
        Matcher unreached = UNREACHED_WORKER.matcher(output);
        Matcher violation = VIOLATION.matcher(output);
        return new PanReport(
                Integer.parseInt(errors.group(2)),
                Long.parseLong(require(STORED, output, "states stored").group(1)),
                (long) Double.parseDouble(require(TRANSITIONS, output, "transitions").group(1)),
                Integer.parseInt(errors.group(1)),
                Double.parseDouble(require(ELAPSED, output, "elapsed time").group(1)),
                output.contains("Full statespace search for:"),
                ASSERTIONS.matcher(output).find(),
                END_STATES.matcher(output).find(),
                TRUNCATION_SIGNS.stream().filter(output::contains).toList(),
                unreached.find() ? Optional.of(Integer.parseInt(unreached.group(1))) : Optional.empty(),
                violation.find() ? Optional.of(violation.group(1)) : Optional.empty());
    }

    /** Exhaustive: every reachable state was visited, checking assertions and end states. */
    boolean exhaustive() {
        return fullStateSpace && assertionsChecked && invalidEndStatesChecked && truncations.isEmpty();
    }

    String figures() {
        return String.format("%,d states stored, %,d transitions, depth %d, %.2f s, errors %d",
                statesStored, transitions, depthReached, seconds, errors);
    }

    private static Matcher require(Pattern pattern, String output, String what) {
        Matcher matcher = pattern.matcher(output);
        if (!matcher.find()) {
            throw new AssertionError("pan's output has no " + what + " (/" + pattern.pattern() + "/):\n" + output);
        }
        return matcher;
    }
}
