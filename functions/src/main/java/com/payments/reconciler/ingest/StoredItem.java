package com.payments.reconciler.ingest;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a failed conditional write found stored (DynamoDB returns the item with the failure), as far as the
 * ingestion decision reads it. Absent attributes are empty: items a platform wrote itself into its own tables
 * may lack ingestion's event ids.
 */
public sealed interface StoredItem {

    /** The Authorisations item. {@code authorisedAt} is empty on a stub an early end event created. */
    record StoredAuthorisation(String state, Optional<String> createdEventId, Optional<String> endEventId,
                               Optional<Long> amountMinor, Optional<String> currency, Optional<String> merchantId,
                               Optional<Instant> authorisedAt, Optional<String> providerReference,
                               Set<String> lifecycleEventIds, Optional<Instant> lastChangedAt) implements StoredItem {
        /** An item with a provider reference, no increment or reversal applied. */
        public StoredAuthorisation(String state, Optional<String> createdEventId, Optional<String> endEventId,
                                   Optional<Long> amountMinor, Optional<String> currency, Optional<String> merchantId,
                                   Optional<Instant> authorisedAt, Optional<String> providerReference) {
            this(state, createdEventId, endEventId, amountMinor, currency, merchantId, authorisedAt, providerReference, Set.of(), Optional.empty());
        }

        /** An item without a provider reference. */
        public StoredAuthorisation(String state, Optional<String> createdEventId, Optional<String> endEventId,
                                   Optional<Long> amountMinor, Optional<String> currency, Optional<String> merchantId,
                                   Optional<Instant> authorisedAt) {
            this(state, createdEventId, endEventId, amountMinor, currency, merchantId, authorisedAt, Optional.empty());
        }
    }

    /** {@code captures}: version 2's amounts by captureSequence; empty on a version 1 settlement. */
    record StoredSettlement(Optional<String> settlementEventId, Optional<Instant> settledAt, Optional<String> currency,
                            Map<Integer, Long> captures) implements StoredItem {
        public StoredSettlement(Optional<String> settlementEventId, Optional<Instant> settledAt) {
            this(settlementEventId, settledAt, Optional.empty(), Map.of());
        }
    }
}
