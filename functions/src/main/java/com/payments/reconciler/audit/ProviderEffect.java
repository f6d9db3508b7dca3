package com.payments.reconciler.audit;

/** What the provider did for one operation id: releases performed and requests received. */
public record ProviderEffect(String operationId, String authorisationId, int performed, int requests) {
}
