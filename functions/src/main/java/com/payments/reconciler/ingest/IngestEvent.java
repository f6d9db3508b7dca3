package com.payments.reconciler.ingest;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One card-platform event, decoded and valid (docs/integration.md). Only identifiers, amounts and instants:
 * the decoder refuses anything else, so no cardholder data can be carried past it.
 */
public sealed interface IngestEvent {

    /** The platform's id of this event: the idempotency key stored on the item the event writes. */
    String eventId();

    /** The key of both business tables. */
    String authorisationId();

    /**
     * @param providerReference the provider's id of the authorisation (contract version 2, optional): stored on the item and
     *                          copied onto its release command
     */
    record AuthorisationCreated(String eventId, String authorisationId, long amountMinor, String currency,
                                String merchantId, Instant authorisedAt, Optional<String> providerReference) implements IngestEvent {
        public AuthorisationCreated {
            Objects.requireNonNull(providerReference, "providerReference");
        }

        /** A create without a provider reference (every version 1 create). */
        public AuthorisationCreated(String eventId, String authorisationId, long amountMinor, String currency,
                                    String merchantId, Instant authorisedAt) {
            this(eventId, authorisationId, amountMinor, currency, merchantId, authorisedAt, Optional.empty());
        }
    }

    /** {@code authorisation.voided} or {@code authorisation.expired}: the hold is gone at the platform. */
    record AuthorisationEnded(String eventId, String authorisationId, EndKind kind, Instant endedAt) implements IngestEvent {
    }

    record SettlementPosted(String eventId, String authorisationId, long amountMinor, String currency,
                            Instant settledAt) implements IngestEvent {
    }

    enum EndKind { VOIDED, EXPIRED }

    /**
     * The internal {@code provider.outcome} event (docs/integration.md): an asynchronous provider's verdict on a release
     * command, put on the queue by the webhook receiver after its signature check.
     *
     * @param requestReference the provider's id for the request (Adyen: the cancel's pspReference)
     * @param reason           the provider's reason when it refused (bounded, printable)
     * @param occurredAt       the provider's time of the outcome, when it sent one
     */
    record ProviderOutcome(String eventId, String authorisationId, String operationId, String provider, String requestReference,
                           boolean success, Optional<String> reason, Optional<Instant> occurredAt) implements IngestEvent {
        public ProviderOutcome {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(occurredAt, "occurredAt");
        }
    }
}
