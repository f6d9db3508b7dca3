package com.payments.reconciler.harness.chaos;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Deliberate defects the checks must catch. Each one lives in the harness only — an SDK
 * interceptor rewriting the handlers' DynamoDB requests in flight, a harness write, or an HTTP proxy in
 * front of the simulated provider — so the deployed jar carries no switch for any of them.
 *
 * <p>{@link #caughtToday}: whether today's {@code InvariantAudit} reports the invariant on the schedules
 * {@code MutantTableTest} runs. The rows that are {@code false} are defects the world shows (the state dump
 * has them) but the audit does not yet decide from the world; the auditor rewrite (branch {@code auditor})
 * is expected to catch them, and the lead flips them then.
 */
public enum Mutant {
    NO_LEASE_CHECK("no lease check: the lease ConditionCheck is stripped from every release decision (the unfenced control)",
            "I1", true),
    HIGHEST_EPOCH_SEEN("instead of the lease check, each authorisation keeps the highest epoch that wrote it and refuses lower ones",
            "I1", true),
    SETTLEMENT_CHECK_DROPPED("the Settlements ConditionCheck is stripped from release decisions and every settlement read returns nothing",
            "I3", true),
    DELIVERED_WITHOUT_PROVIDER_CALL("a proxy answers every release RELEASED without forwarding it: commands end DELIVERED, nothing was released",
            "I4", true),
    NEW_KEY_PER_RETRY("a proxy gives every retry of a release a new Idempotency-Key (operation id + attempt suffix)",
            "I2", true),
    LEASE_RESET_BY_PUT("each lease release is followed by a PutItem that overwrites the lease item with epoch 0",
            "I5", true),
    SKIP_OUTBOX_PUT("the outbox Put is stripped from release decisions: authorisations become RELEASE_REQUESTED with no command",
            "I4", true),
    DROP_REST_OF_CANCELLED_BATCH("after a decision batch is cancelled by one item's condition, the retry of the rest is answered as committed "
            + "without being applied (a settlement is made to land inside the first batch of each schedule, so a cancellation happens)",
            "I4", true),
    WEBHOOK_HMAC_SKIPPED("(--provider adyen) the webhook receiver accepts every notification whatever its HMAC signature: a forged "
            + "CANCELLATION (its outcome turned, the genuine signature kept) is queued as a provider.outcome ahead of the genuine one",
            "I4", true);

    private final String description;
    private final String invariant;
    private final boolean caughtToday;

    Mutant(String description, String invariant, boolean caughtToday) {
        this.description = description;
        this.invariant = invariant;
        this.caughtToday = caughtToday;
    }

    /** The command-line name: {@code no-lease-check}. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public String description() {
        return description;
    }

    /** The invariant the defect breaks, which the auditor must report. */
    public String invariant() {
        return invariant;
    }

    public boolean caughtToday() {
        return caughtToday;
    }

    /** Whether the decision transaction loses its lease check (the report's {@code fenced} is then false). */
    public boolean removesLeaseCheck() {
        return this == NO_LEASE_CHECK || this == HIGHEST_EPOCH_SEEN;
    }

    /** Whether the defect is in front of the provider (an HTTP proxy) rather than in the DynamoDB requests. */
    public boolean providerSide() {
        return this == DELIVERED_WITHOUT_PROVIDER_CALL || this == NEW_KEY_PER_RETRY;
    }

    /**
     * Whether the defect is in the Adyen webhook receiver (a harness-built receiver whose signature check is replaced):
     * it needs {@code --provider adyen}, whose nights end with the webhook rounds.
     */
    public boolean webhookSide() {
        return this == WEBHOOK_HMAC_SKIPPED;
    }

    /** Whether a campaign through {@code adapter} can run this defect: webhook defects need Adyen; proxy defects the simulated provider. */
    public boolean runsWith(com.payments.reconciler.delivery.ProviderAdapters.Adapter adapter) {
        boolean adyen = adapter == com.payments.reconciler.delivery.ProviderAdapters.Adapter.ADYEN;
        return adyen ? !providerSide() : !webhookSide();
    }

    /** The rows a campaign through {@code adapter} can run ({@link #runsWith}). */
    public static List<Mutant> forAdapter(com.payments.reconciler.delivery.ProviderAdapters.Adapter adapter) {
        return Arrays.stream(values()).filter(m -> m.runsWith(adapter)).toList();
    }

    /**
     * Whether the row runs against a provider that does not de-duplicate: a defect that sends one release under
     * two keys is then a second release the provider's record shows (I2 decided per hold), instead of
     * the provider's own 409 hiding it.
     */
    public boolean needsProviderWithoutIdempotency() {
        return this == NEW_KEY_PER_RETRY;
    }

    public static Mutant fromCliName(String name) {
        return Arrays.stream(values()).filter(m -> m.cliName().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("--mutant: unknown mutant '" + name + "'; known: "
                        + Arrays.stream(values()).map(Mutant::cliName).toList() + " (--list-mutants describes them)"));
    }

    public static List<Mutant> all() {
        return List.of(values());
    }
}
