package com.payments.reconciler.delivery;

import com.payments.reconciler.lease.LeaseStore;
import com.payments.reconciler.reconcile.FencedWriter;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.ProviderOutcomeTimeout;

import java.time.Clock;
import java.time.Duration;

/** What a {@link DeliveryCall} talks to, wired once by the {@link DeliverCommandsHandler} and shared by its calls. */
record DeliveryServices(PendingCommands commands, FactsReader facts, FencedWriter writer, LeaseStore leases,
                        OperationGuard guard, ProviderClient provider, Backoff providerRetry, EmfMetrics metrics,
                        Clock clock, int parallelism, DeliveryPacing pacing, Duration providerKeyRetention,
                        ProviderOutcomeTimeout outcomeTimeout) {

    DeliveryServices {
        java.util.Objects.requireNonNull(providerKeyRetention, "providerKeyRetention");
        java.util.Objects.requireNonNull(outcomeTimeout, "outcomeTimeout");
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be at least 1, was " + parallelism);
        }
    }
}
