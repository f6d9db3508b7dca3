package com.payments.reconciler.local.provider;

/**
 * One release the provider performed: the hold (authorisation), the idempotency key it came under, and when
 * (epoch ms of the provider's clock). Same components as the functions module's {@code audit.ProviderRelease}.
 */
public record PerformedRelease(String authorisationId, String operationId, long performedAt) {
}
