package com.payments.reconciler.delivery;

/**
 * The provider answered, but not as its contract says (a body that is not JSON, an unexpected status,
 * a success for another operation or authorisation, refused credentials). Nothing is recorded for the
 * command; the run fails loudly, naming the field, because retrying would only repeat the surprise.
 */
public final class ProviderContractViolation extends RuntimeException {

    public ProviderContractViolation(String message) {
        super(message);
    }
}
