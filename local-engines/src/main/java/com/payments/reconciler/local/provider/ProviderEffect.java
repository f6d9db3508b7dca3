package com.payments.reconciler.local.provider;

/**
 * What the provider did for one operation id (idempotency key): releases performed and requests
 * received. Same components as the functions module's {@code audit.ProviderEffect}, which the
 * invariant audit reads (this module does not depend on that one).
 */
public record ProviderEffect(String operationId, String authorisationId, int performed, int requests) {
}
