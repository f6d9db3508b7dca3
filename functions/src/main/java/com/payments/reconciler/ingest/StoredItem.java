package com.payments.reconciler.ingest;

import java.time.Instant;
import java.util.Optional;

/**
 * What a failed conditional write found stored (DynamoDB returns the item with the failure), as far as the
 * ingestion decision reads it. Absent attributes are empty: items a platform wrote itself into its own tables
 * may lack ingestion's event ids.
 */
public sealed interface StoredItem {

    /** The Authorisations item. {@code authorisedAt} is empty on a stub an early end event created. */
    record StoredAuthorisation(String state, Optional<String> createdEventId, Optional<String> endEventId,
                               Optional<Long> amountMinor, Optional<String> currency, Optional<String> merchantId,
                               Optional<Instant> authorisedAt, Optional<String> providerReference) implements StoredItem {
        /** An item without a provider reference. */
        public StoredAuthorisation(String state, Optional<String> createdEventId, Optional<String> endEventId,
                                   Optional<Long> amountMinor, Optional<String> currency, Optional<String> merchantId,
                                   Optional<Instant> authorisedAt) {
            this(state, createdEventId, endEventId, amountMinor, currency, merchantId, authorisedAt, Optional.empty());
        }
    }

    record StoredSettlement(Optional<String> settlementEventId, Optional<Instant> settledAt) implements StoredItem {
    }
}
