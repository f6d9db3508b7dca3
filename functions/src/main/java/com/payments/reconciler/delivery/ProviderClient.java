package com.payments.reconciler.delivery;

/**
 * The card provider's release API. Every request carries {@code Idempotency-Key: {operationId}}, so
 * a repeat is answered from the provider's record and performs nothing.
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
     * Whatever a request needs that takes a round trip of its own (the API key from its secret), done before the
     * sender's last checks of the lease and the command's facts, so that nothing slow stands between those checks and
     * the request.
     */
    default void prepare() {
    }
}
