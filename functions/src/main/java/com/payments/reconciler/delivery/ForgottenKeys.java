package com.payments.reconciler.delivery;

import com.payments.reconciler.workflow.Timing;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Keys the provider forgets (docs/design.md §6, docs/decisions.md "Keys the provider forgets"). A repeat of a release
 * under the same {@code Idempotency-Key} is answered from the provider's record only while the provider keeps the key
 * (its retention, e.g. 24 h) and, on our side, while our idempotency record lasts ({@link Timing#IDEMPOTENCY_EXPIRY}).
 * A command first attempted longer ago than the shorter of the two, minus {@link Timing#PROVIDER_KEY_MARGIN}, may have
 * been performed by a request whose answer was lost: it is not sent again before the provider's status lookup says
 * what became of its hold. Pure: {@link CommandSender} does the lookup and the request.
 */
final class ForgottenKeys {

    private ForgottenKeys() {
    }

    /** The contract's hold states (docs/integration.md, "Status lookup"). */
    static final String RELEASED = "RELEASED";
    static final String ACTIVE = "ACTIVE";
    static final String CAPTURED = "CAPTURED";
    /** What a REJECTED command records when the lookup says the hold was captured. */
    static final String CODE_CAPTURED = "HOLD_CAPTURED";
    private static final int MAX_REFERENCE_LENGTH = 256;

    /** How long after its first attempt a command may still be sent without asking: both records still know the key. */
    static Duration trustedFor(Duration providerKeyRetention) {
        Duration shorter = providerKeyRetention.compareTo(Timing.IDEMPOTENCY_EXPIRY) < 0 ? providerKeyRetention : Timing.IDEMPOTENCY_EXPIRY;
        Duration trusted = shorter.minus(Timing.PROVIDER_KEY_MARGIN);
        return trusted.isNegative() ? Duration.ZERO : trusted;
    }

    /**
     * Whether the command's next request must be the status lookup: it was attempted before, so long ago that a repeat
     * of the release could be a new request to the provider. A command never attempted has nothing to be forgotten.
     */
    static boolean askFirst(Optional<Instant> firstAttemptAt, Instant now, Duration providerKeyRetention) {
        return firstAttemptAt.isPresent()
                && Duration.between(firstAttemptAt.get(), now).compareTo(trustedFor(providerKeyRetention)) >= 0;
    }

    /** What the lookup's answer makes of the command. */
    sealed interface Step {
        /** Its end is known: the provider released the hold (DELIVERED) or it was captured (REJECTED). */
        record Answer(ProviderResult.Final result) implements Step {
        }

        /**
         * The hold is still active: nothing the provider did under the key released it, so the release is sent, under
         * the same {@code Idempotency-Key} (docs/decisions.md: a new request if the provider forgot the key, the
         * original answer if it still knows it).
         */
        record Send() implements Step {
        }

        /** No lookup to ask: a person asks the provider ({@code commands resolve} or {@code requeue}). */
        record Escalate(String reason) implements Step {
        }

        /** The answer is outside the lookup's contract: the command is quarantined with it. */
        record OutsideContract(String why) implements Step {
        }

        /** No usable answer: ask again, as a release would be sent again (pace, backoff, the same limits). */
        record AskAgain(ProviderResult answer) implements Step {
        }
    }

    static Step afterLookup(HoldLookup lookup, String operationId) {
        return switch (lookup) {
            case HoldLookup.NotOffered none -> new Step.Escalate("first attempted longer ago than the provider keeps idempotency keys, "
                    + "and the provider offers no status lookup (" + none.why() + "): ask the provider whether it released the hold, "
                    + "then close the command (bin/reconciler commands resolve) or requeue it");
            case HoldLookup.NoAnswer missing -> new Step.AskAgain(missing.answer());
            case HoldLookup.Answered answered -> judged(answered, operationId);
        };
    }

    private static Step judged(HoldLookup.Answered answered, String operationId) {
        String what = "status lookup for " + operationId;
        if (answered.status().isEmpty()) {
            return new Step.OutsideContract(what + ": field status is required, one of " + RELEASED + ", " + ACTIVE + ", " + CAPTURED);
        }
        return switch (answered.status().get()) {
            case RELEASED -> {
                Optional<String> reference = answered.providerReference().filter(r -> !r.isBlank());
                if (reference.isEmpty() || reference.get().length() > MAX_REFERENCE_LENGTH) {
                    yield new Step.OutsideContract(what + ": field providerReference is required with status " + RELEASED
                            + ", a non-empty string of at most " + MAX_REFERENCE_LENGTH + " characters");
                }
                yield new Step.Answer(new ProviderResult.Released(reference.get()));
            }
            case CAPTURED -> new Step.Answer(new ProviderResult.Rejected(CODE_CAPTURED,
                    "the provider's status lookup says the hold was captured: there is nothing left to release"));
            case ACTIVE -> new Step.Send();
            default -> new Step.OutsideContract(what + ": field status is '"
                    + com.payments.reconciler.workflow.ProviderContractViolation.quote(answered.status().get())
                    + "', expected one of " + RELEASED + ", " + ACTIVE + ", " + CAPTURED);
        };
    }
}
