package com.payments.reconciler.harness.local;

import com.payments.reconciler.local.provider.ProviderEffect;
import com.payments.reconciler.reconcile.Shards;
import java.util.HashMap;
import java.util.Map;

/**
 * Delivery seen from outside the functions, at no cost to the engine: the releases the simulated provider performed,
 * each counted in its authorisation's shard (the shard ingestion filed it under, {@link Shards#of}). Reading the outbox
 * instead would hold moto, which serves one request at a time, while the night's own calls wait.
 */
final class DeliveryWatch {

    private final LocalPipeline pipeline;
    private final int shards;

    DeliveryWatch(LocalPipeline pipeline, int shards) {
        this.pipeline = pipeline;
        this.shards = shards;
    }

    Map<Integer, Long> deliveredPerShard() {
        Map<Integer, Long> delivered = new HashMap<>();
        for (ProviderEffect effect : pipeline.provider().effects()) {
            if (effect.performed() > 0 && effect.authorisationId() != null) {
                delivered.merge(Shards.of(effect.authorisationId(), shards), 1L, Long::sum);
            }
        }
        return delivered;
    }
}
