package com.payments.reconciler.surge;

import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.HandlerEnvironment;
import java.util.Map;

/**
 * The release-surge guard's settings (docs/decisions.md, "The release-surge guard"): one definition of the stack's
 * context default, the environment variable and its parsing.
 *
 * @param factor a night is a surge when its releases exceed {@code factor} times the median of its history
 *               (CDK context {@code releaseSurgeFactor}, default {@value #DEFAULT_FACTOR})
 * @param floor  and at least this many releases: below it a night is never held, however small its history's median
 *               (a quiet history of 0-3 releases a night would otherwise hold a night of 7)
 */
public record ReleaseSurgePolicy(double factor, long floor) {

    public static final double DEFAULT_FACTOR = 2.0;
    /**
     * 20 releases: a night that releases fewer is reviewed by a person in minutes after the fact (the delivered
     * commands are listed by {@code commands}), while holding it would page someone for every quiet-week wobble.
     */
    public static final long DEFAULT_FLOOR = 20;
    /** How many completed nights the median is taken over. */
    public static final int HISTORY_NIGHTS = 7;
    /**
     * With fewer completed nights than this the guard is off: a median of one or two nights is one unusual night, and
     * a new deployment's first nights would be held for nothing. Three is the least a median is not one night's value.
     */
    public static final int MIN_HISTORY_NIGHTS = 3;
    /** How far back the history is looked for (a night that failed or is still held leaves a gap). */
    public static final int LOOKBACK_DAYS = 14;

    public static final String ACCEPTED_FORM = "a number above 1.0 and at most 100, e.g. 2.0 (releases over the median of the last 7 nights)";

    public static final ReleaseSurgePolicy DEFAULT = new ReleaseSurgePolicy(DEFAULT_FACTOR, DEFAULT_FLOOR);

    public ReleaseSurgePolicy {
        if (!(factor > 1.0 && factor <= 100)) {
            throw new IllegalArgumentException("releaseSurgeFactor must be " + ACCEPTED_FORM + ", was " + factor);
        }
        if (floor < 1) {
            throw new IllegalArgumentException("the surge floor must be at least 1 release, was " + floor);
        }
    }

    /** Parses the factor; a refusal names the accepted form and quotes the value. */
    public static ReleaseSurgePolicy withFactor(String text) {
        try {
            return new ReleaseSurgePolicy(Double.parseDouble(text.trim()), DEFAULT_FLOOR);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("releaseSurgeFactor must be " + ACCEPTED_FORM + ", was '" + text + "'");
        }
    }

    public Map<String, String> environment() {
        return Map.of(EnvVars.RELEASE_SURGE_FACTOR, Double.toString(factor));
    }

    /** ReconcilePage: the factor the stack set, or the default when the variable is absent. */
    public static ReleaseSurgePolicy fromEnvironment(HandlerEnvironment env) {
        String text = env.optional(EnvVars.RELEASE_SURGE_FACTOR, null);
        if (text == null) {
            return DEFAULT;
        }
        try {
            return withFactor(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("environment variable " + EnvVars.RELEASE_SURGE_FACTOR + ": " + e.getMessage());
        }
    }
}
