package com.payments.reconciler.audit;

/**
 * One release of a hold that the provider performed, from the provider's own record: for which authorisation
 * (the hold it released), under which idempotency key, and when (epoch ms, on the run's clock, so it compares
 * with the settlements' {@code settledAt}). Every performed release is one of these, whichever key it came under.
 */
public record ProviderRelease(String authorisationId, String operationId, long performedAt) {
}
