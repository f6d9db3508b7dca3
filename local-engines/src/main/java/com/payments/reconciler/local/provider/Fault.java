package com.payments.reconciler.local.provider;

/** A fault the {@link SimulatedProvider} can inject into one request. */
public enum Fault {
    /** Perform the release, then close the connection without a response: the caller cannot know it happened. */
    PERFORM_THEN_DROP,
    /** Answer 503 before performing anything. */
    ERROR_5XX,
    /** Delay the response (after performing) by the configured delay. */
    SLOW,
    /** Perform the release, then answer 200 with an HTML page instead of the contract's JSON (a proxy's error page). */
    MALFORMED;

    /** The faults applied to one request. */
    public record Plan(boolean error5xx, boolean slow, boolean performThenDrop, boolean malformed) {

        public static final Plan NONE = new Plan(false, false, false, false);

        public Plan(boolean error5xx, boolean slow, boolean performThenDrop) {
            this(error5xx, slow, performThenDrop, false);
        }

        public static Plan of(Fault fault) {
            return switch (fault) {
                case PERFORM_THEN_DROP -> new Plan(false, false, true);
                case ERROR_5XX -> new Plan(true, false, false);
                case SLOW -> new Plan(false, true, false);
                case MALFORMED -> new Plan(false, false, false, true);
            };
        }
    }
}
