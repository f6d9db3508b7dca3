package com.payments.reconciler.local.provider;

/** A fault the {@link SimulatedProvider} can inject into one request. */
public enum Fault {
    /** Perform the release, then close the connection without a response: the caller cannot know it happened. */
    PERFORM_THEN_DROP,
    /** Answer 503 before performing anything. */
    ERROR_5XX,
    /** Delay the response (after performing) by the configured delay. */
    SLOW;

    /** The faults applied to one request. */
    public record Plan(boolean error5xx, boolean slow, boolean performThenDrop) {

        public static final Plan NONE = new Plan(false, false, false);

        public static Plan of(Fault fault) {
            return switch (fault) {
                case PERFORM_THEN_DROP -> new Plan(false, false, true);
                case ERROR_5XX -> new Plan(true, false, false);
                case SLOW -> new Plan(false, true, false);
            };
        }
    }
}
