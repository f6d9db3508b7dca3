package com.payments.reconciler.audit;

import java.util.List;

/**
 * What the provider did for one operation id: releases performed, requests received, and when each
 * release was performed (epoch ms, on the run's clock, so it compares with the settlements' {@code settledAt}).
 */
public record ProviderEffect(String operationId, String authorisationId, int performed, int requests, List<Long> performedAt) {

    public ProviderEffect {
        performedAt = List.copyOf(performedAt);
    }
}
