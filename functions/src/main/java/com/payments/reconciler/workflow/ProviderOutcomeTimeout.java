package com.payments.reconciler.workflow;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;

/**
 * How long a release command may stay ACKNOWLEDGED (the provider took the cancel; its outcome arrives later, Adyen's
 * CANCELLATION webhook) before a person must look at it. Adyen offers no status lookup for a cancel, so past this the
 * next delivery of the command's shard escalates it (ESCALATED, fenced, counted). One definition: the stack's context
 * default, the environment variable, its parsing and the rule are here.
 */
public record ProviderOutcomeTimeout(Duration timeout) {

    /** A timeout beyond this is a typo: a night's outcomes are expected within hours. */
    public static final Duration MAX = Duration.ofDays(7);

    /** What a value must look like, for every message that refuses one. */
    public static final String ACCEPTED_FORM = "an ISO-8601 duration above zero and at most P7D, e.g. PT2H "
            + "(how long a command may wait for the provider's outcome)";

    /** The stack's default (CDK context {@code providerOutcomeTimeout}). */
    public static final ProviderOutcomeTimeout DEFAULT = new ProviderOutcomeTimeout(Duration.ofHours(2));

    public ProviderOutcomeTimeout {
        if (timeout == null || timeout.isNegative() || timeout.isZero() || timeout.compareTo(MAX) > 0) {
            throw new IllegalArgumentException("must be " + ACCEPTED_FORM + ", was " + timeout);
        }
    }

    /**
     * The rule: a command acknowledged at {@code acknowledgedAt} is overdue at {@code now} once it has waited longer than
     * the timeout (exactly the timeout is not yet overdue).
     */
    public boolean overdue(Instant acknowledgedAt, Instant now) {
        return acknowledgedAt.isBefore(cutoff(now));
    }

    /** The same rule as the index query's bound: acknowledged strictly before this instant is overdue. */
    public Instant cutoff(Instant now) {
        return now.minus(timeout);
    }

    /** Parses {@code text}; a refusal says {@link #ACCEPTED_FORM} and quotes the value. */
    public static ProviderOutcomeTimeout parse(String text) {
        try {
            return new ProviderOutcomeTimeout(Duration.parse(text.trim()));
        } catch (DateTimeParseException | IllegalArgumentException e) {
            throw new IllegalArgumentException("must be " + ACCEPTED_FORM + ", was '" + text + "'");
        }
    }

    /** The environment DeliverCommands reads it from (the stack sets it; the local runs too). */
    public Map<String, String> environment() {
        return Map.of(EnvVars.PROVIDER_OUTCOME_TIMEOUT, timeout.toString());
    }

    /** DeliverCommands: the timeout the stack set, or {@link #DEFAULT} when the variable is absent. */
    public static ProviderOutcomeTimeout fromEnvironment(HandlerEnvironment env) {
        String text = env.optional(EnvVars.PROVIDER_OUTCOME_TIMEOUT, null);
        if (text == null) {
            return DEFAULT;
        }
        try {
            return parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("environment variable " + EnvVars.PROVIDER_OUTCOME_TIMEOUT + " " + e.getMessage());
        }
    }
}
