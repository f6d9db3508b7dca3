package com.payments.reconciler.delivery;

import com.payments.reconciler.workflow.EnvVars;
import com.payments.reconciler.workflow.HandlerEnvironment;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Which provider adapter ({@link ProviderClient}) DeliverCommands talks through: the stack's context {@code provider},
 * carried to the function as {@link EnvVars#PROVIDER_ADAPTER}. One place for the names, their parsing and the wiring, so
 * that the stack refuses at synth exactly what the function would refuse at its first call. An adapter only translates
 * requests and answers: the fence, the idempotency guard, the pacing and the quarantine are the same for every adapter.
 */
public final class ProviderAdapters {

    private ProviderAdapters() {
    }

    /** The adapters, by the name the stack context and the environment use. */
    public enum Adapter {
        /** Today's contract ({@code POST /holds/{id}/release}, docs/integration.md): {@link HttpProviderClient}. */
        GENERIC_HTTP("generic-http", Optional.empty()),
        /**
         * Stripe's PaymentIntents ({@link StripeAdapter}). Stripe documents that idempotency keys may be pruned once at
         * least 24 hours old: a longer {@code providerKeyRetention} would re-send blindly past that, so it is refused.
         */
        STRIPE("stripe", Optional.of(Duration.ofHours(24))),
        /**
         * Adyen's Checkout API cancel ({@link AdyenProviderClient}): asynchronous, the outcome arrives in a CANCELLATION
         * webhook. Adyen keeps idempotency keys at least 31 days after first submission (docs.adyen.com, API idempotency).
         */
        ADYEN("adyen", Optional.of(Duration.ofDays(31)));

        private final String contextValue;
        private final Optional<Duration> documentedKeyRetention;

        Adapter(String contextValue, Optional<Duration> documentedKeyRetention) {
            this.contextValue = contextValue;
            this.documentedKeyRetention = documentedKeyRetention;
        }

        /** The name in the stack context and the environment. */
        public String contextValue() {
            return contextValue;
        }

        /** The longest key retention the provider documents, when it documents one: a configured one must not exceed it. */
        public Optional<Duration> documentedKeyRetention() {
            return documentedKeyRetention;
        }
    }

    /** The adapter when none is configured: today's contract. */
    public static final Adapter DEFAULT = Adapter.GENERIC_HTTP;

    /** The accepted values, for every message that refuses one. */
    public static String acceptedValues() {
        return Arrays.stream(Adapter.values()).map(Adapter::contextValue).collect(Collectors.joining(" | "));
    }

    /** Parses a context or environment value; a refusal names the accepted values and quotes the value. */
    public static Adapter parse(String text) {
        String value = text == null ? "" : text.trim();
        for (Adapter adapter : Adapter.values()) {
            if (adapter.contextValue.equals(value)) {
                return adapter;
            }
        }
        throw new IllegalArgumentException("must be one of " + acceptedValues() + ", was '" + value + "'");
    }

    /** DeliverCommands: the adapter the stack set, or {@link #DEFAULT} when the variable is absent. */
    public static Adapter fromEnvironment(HandlerEnvironment env) {
        String text = env.optional(EnvVars.PROVIDER_ADAPTER, null);
        if (text == null) {
            return DEFAULT;
        }
        try {
            return parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("environment variable " + EnvVars.PROVIDER_ADAPTER + " " + e.getMessage());
        }
    }

    /** The stack context naming the Stripe key's mode, and its accepted values. */
    public static final String KEY_MODE_CONTEXT = "providerKeyMode";
    public static final String KEY_MODE_LIVE = "live";
    public static final String KEY_MODE_TEST = "test";

    /** Parses a key mode ({@value #KEY_MODE_LIVE} → true, {@value #KEY_MODE_TEST} → false); a refusal names the values. */
    public static boolean parseKeyMode(String text) {
        String value = text == null ? "" : text.trim();
        return switch (value) {
            case KEY_MODE_LIVE -> true;
            case KEY_MODE_TEST -> false;
            default -> throw new IllegalArgumentException("must be " + KEY_MODE_LIVE + " or " + KEY_MODE_TEST + ", was '" + value + "'");
        };
    }

    /** DeliverCommands: the mode the Stripe key must be of, when the stack set one. */
    public static Optional<Boolean> keyModeFromEnvironment(HandlerEnvironment env) {
        String text = env.optional(EnvVars.PROVIDER_KEY_MODE, null);
        if (text == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(parseKeyMode(text));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("environment variable " + EnvVars.PROVIDER_KEY_MODE + " " + e.getMessage());
        }
    }

    /** The adapter's client against {@code baseUrl}, with the API key from {@code credentials} (Secrets Manager). */
    public static ProviderClient create(Adapter adapter, URI baseUrl, ProviderCredentials credentials, Clock clock) {
        return create(adapter, baseUrl, credentials, clock, Optional.empty());
    }

    /**
     * As {@link #create(Adapter, URI, ProviderCredentials, Clock)}, with the merchant account an Adyen cancel names
     * ({@link EnvVars#PROVIDER_MERCHANT_ACCOUNT}; required for {@link Adapter#ADYEN}, unused by the others).
     */
    public static ProviderClient create(Adapter adapter, URI baseUrl, ProviderCredentials credentials, Clock clock,
                                        Optional<String> merchantAccount) {
        return create(adapter, baseUrl, credentials, clock, merchantAccount, Optional.empty());
    }

    /** As above, with the mode a Stripe key must be of ({@link EnvVars#PROVIDER_KEY_MODE}; unused by the others). */
    public static ProviderClient create(Adapter adapter, URI baseUrl, ProviderCredentials credentials, Clock clock,
                                        Optional<String> merchantAccount, Optional<Boolean> keyLivemode) {
        return switch (adapter) {
            case GENERIC_HTTP -> HttpProviderClient.create(baseUrl, credentials, clock);
            case STRIPE -> StripeAdapter.create(baseUrl, credentials, clock, keyLivemode);
            case ADYEN -> AdyenProviderClient.create(baseUrl, credentials, merchantAccount.orElseThrow(() -> new IllegalStateException(
                    "environment variable " + EnvVars.PROVIDER_MERCHANT_ACCOUNT + " must name the Adyen merchant account with "
                            + EnvVars.PROVIDER_ADAPTER + "=adyen")), PendingCommand::providerReference, clock);
        };
    }
}
