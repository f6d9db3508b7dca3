package com.payments.reconciler.ingest;

import java.time.Instant;

/**
 * One card-platform event, decoded and valid (docs/integration.md). Only identifiers, amounts and instants:
 * the decoder refuses anything else, so no cardholder data can be carried past it.
 */
public sealed interface IngestEvent {

    /** The platform's id of this event: the idempotency key stored on the item the event writes. */
    String eventId();

    /** The key of both business tables. */
    String authorisationId();

    record AuthorisationCreated(String eventId, String authorisationId, long amountMinor, String currency,
                                String merchantId, Instant authorisedAt) implements IngestEvent {
    }

    /** {@code authorisation.voided} or {@code authorisation.expired}: the hold is gone at the platform. */
    record AuthorisationEnded(String eventId, String authorisationId, EndKind kind, Instant endedAt) implements IngestEvent {
    }

    record SettlementPosted(String eventId, String authorisationId, long amountMinor, String currency,
                            Instant settledAt) implements IngestEvent {
    }

    /**
     * {@code feed.watermark}: every event of {@code feed} posted at or before {@code watermark} has been published.
     * It belongs to no authorisation: {@link #authorisationId()} is the key of the feed's watermark item in Settlements
     * ({@code feed#settlements}), which no authorisation id can equal.
     */
    record FeedWatermark(String eventId, String feed, Instant watermark) implements IngestEvent {
        @Override
        public String authorisationId() {
            return com.payments.reconciler.store.Tables.Settlements.feedKey(feed);
        }
    }

    enum EndKind { VOIDED, EXPIRED }
}
