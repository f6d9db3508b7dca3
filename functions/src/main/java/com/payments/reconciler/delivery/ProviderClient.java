package com.payments.reconciler.delivery;

/**
 * The provider adapter interface: the card provider's release API, translated. Every request carries an
 * {@code Idempotency-Key} derived from the operation id, so a repeat is answered from the provider's record and performs
 * nothing. An adapter releases an operation ({@link #release}), looks its hold's state up ({@link #lookUp}) and classifies
 * each answer as a {@link ProviderResult}: delivered ({@link ProviderResult.Released}), refused with a reason
 * ({@link ProviderResult.Rejected}), retry later with a hint ({@link ProviderResult.Throttled},
 * {@link ProviderResult.Unavailable}), or outside the contract ({@link com.payments.reconciler.workflow.ProviderContractViolation}). It only translates:
 * the fence, the idempotency guard, the pacing and the quarantine stay in the delivery call. Which adapter runs is
 * {@link ProviderAdapters}' choice.
 */
public interface ProviderClient {

    /**
     * Asks the provider to release the command's hold, once (no retries here).
     *
     * @return the provider's final answer, or {@link ProviderResult.Unavailable} when there was none
     * @throws ProviderContractViolation when the answer breaks the provider's contract
     */
    ProviderResult release(PendingCommand command);

    /**
     * Asks the provider's status lookup what became of the command's hold, once (no retries here). Only for a command
     * whose first attempt may be older than the provider's memory of its key ({@link ForgottenKeys}).
     *
     * @return the answer, {@link HoldLookup.NotOffered} when the provider has no lookup (this default), or
     *         {@link HoldLookup.NoAnswer} when there was no usable answer
     * @throws ProviderContractViolation when the answer is not about this hold
     */
    default HoldLookup lookUp(PendingCommand command) {
        return new HoldLookup.NotOffered("this provider client has no status lookup");
    }

    /**
     * Whatever a request needs that takes a round trip of its own (the API key from its secret), done before the
     * sender's last checks of the lease and the command's facts, so that nothing slow stands between those checks and
     * the request.
     */
    default void prepare() {
    }
}
