package com.payments.reconciler.delivery;

import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.workflow.ProviderQuota;

/** The provider's quota and how a delivery thread waits for its turn (tests inject a pause that only moves a clock). */
public record DeliveryPacing(ProviderQuota quota, Backoff.Pause pause) {

    public DeliveryPacing {
        if (quota == null || pause == null) {
            throw new IllegalArgumentException("a quota and a pause are required");
        }
    }

    public static DeliveryPacing sleeping(ProviderQuota quota) {
        return new DeliveryPacing(quota, Backoff.SLEEP);
    }
}
