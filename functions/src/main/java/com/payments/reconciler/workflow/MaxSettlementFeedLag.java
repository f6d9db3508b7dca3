package com.payments.reconciler.workflow;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Map;

/**
 * How old the settlement feed's watermark may be when a night decides or delivers (docs/design.md, "Feed
 * completeness"): a release needs {@code watermark >= now - lag}. One definition: the stack's context default, the
 * environment variable and its parsing are here.
 */
public record MaxSettlementFeedLag(Duration lag) {

    /**
     * A day: longer than any publisher pause worth waiting out, and shorter than the shortest grace a deployment could
     * reasonably use; a larger lag would let a night decide on a feed that stopped before its own cutoff.
     */
    public static final Duration MAX = Duration.ofHours(24);

    /** What a value must look like, for every message that refuses one. */
    public static final String ACCEPTED_FORM = "an ISO-8601 duration above zero and at most PT24H, e.g. PT6H "
            + "(how old the settlement feed's watermark may be when a night releases)";

    // After MAX: the constructor reads it.
    /** The stack's default (CDK context {@code maxSettlementFeedLag}). */
    public static final MaxSettlementFeedLag DEFAULT = new MaxSettlementFeedLag(Duration.ofHours(6));

    public MaxSettlementFeedLag {
        if (lag == null || lag.isNegative() || lag.isZero() || lag.compareTo(MAX) > 0) {
            throw new IllegalArgumentException("must be " + ACCEPTED_FORM + ", was " + lag);
        }
    }

    /** Parses {@code text}; a refusal says {@link #ACCEPTED_FORM} and quotes the value. */
    public static MaxSettlementFeedLag parse(String text) {
        try {
            return new MaxSettlementFeedLag(Duration.parse(text.trim()));
        } catch (DateTimeParseException | IllegalArgumentException e) {
            throw new IllegalArgumentException("must be " + ACCEPTED_FORM + ", was '" + text + "'");
        }
    }

    /** The environment ReconcilePage and DeliverCommands read it from (the stack sets it; the local runs too). */
    public Map<String, String> environment() {
        return Map.of(EnvVars.MAX_SETTLEMENT_FEED_LAG, lag.toString());
    }

    /** The lag the stack set, or {@link #DEFAULT} when the variable is absent. */
    public static MaxSettlementFeedLag fromEnvironment(HandlerEnvironment env) {
        String text = env.optional(EnvVars.MAX_SETTLEMENT_FEED_LAG, null);
        if (text == null) {
            return DEFAULT;
        }
        try {
            return parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("environment variable " + EnvVars.MAX_SETTLEMENT_FEED_LAG + " " + e.getMessage());
        }
    }
}
