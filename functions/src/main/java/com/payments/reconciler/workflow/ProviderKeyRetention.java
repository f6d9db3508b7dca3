package com.payments.reconciler.workflow;

import java.time.Duration;
import java.time.format.DateTimeParseException;

/**
 * How long the card provider keeps an idempotency key after its first use. Past it, a repeat under the same key is a
 * new request to the provider (Stripe documents that keys may be pruned once they are at least 24 hours old), so a
 * command first attempted longer ago is not sent again blindly: DeliverCommands asks the provider's status lookup first
 * ({@code com.payments.reconciler.delivery.ForgottenKeys}). One definition: the stack's context default, the
 * environment variable and its parsing are here.
 */
public record ProviderKeyRetention(Duration retention) {

    /** Longer than any retention a provider documents; a larger value is a typo, not a provider. */
    public static final Duration MAX = Duration.ofDays(366);

    /** What a value must look like, for every message that refuses one. */
    public static final String ACCEPTED_FORM = "an ISO-8601 duration above zero and at most P366D, e.g. PT24H "
            + "(how long the provider keeps an idempotency key)";

    // After MAX: the constructor reads it.
    /** The stack's default (CDK context {@code providerKeyRetention}): the shortest retention a large provider documents. */
    public static final ProviderKeyRetention DEFAULT = new ProviderKeyRetention(Duration.ofHours(24));

    public ProviderKeyRetention {
        if (retention == null || retention.isNegative() || retention.isZero() || retention.compareTo(MAX) > 0) {
            throw new IllegalArgumentException("must be " + ACCEPTED_FORM + ", was " + retention);
        }
    }

    /** Parses {@code text}; a refusal says {@link #ACCEPTED_FORM} and quotes the value. */
    public static ProviderKeyRetention parse(String text) {
        try {
            return new ProviderKeyRetention(Duration.parse(text.trim()));
        } catch (DateTimeParseException | IllegalArgumentException e) {
            throw new IllegalArgumentException("must be " + ACCEPTED_FORM + ", was '" + text + "'");
        }
    }

    /** The environment DeliverCommands reads it from (the stack sets it; the local runs too). */
    public java.util.Map<String, String> environment() {
        return java.util.Map.of(EnvVars.PROVIDER_KEY_RETENTION, retention.toString());
    }

    /** DeliverCommands: the retention the stack set, or {@link #DEFAULT} when the variable is absent. */
    public static ProviderKeyRetention fromEnvironment(HandlerEnvironment env) {
        String text = env.optional(EnvVars.PROVIDER_KEY_RETENTION, null);
        if (text == null) {
            return DEFAULT;
        }
        try {
            return parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("environment variable " + EnvVars.PROVIDER_KEY_RETENTION + " " + e.getMessage());
        }
    }
}
