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
                                String merchantId, Instant authorisedAt, Optional<String> providerReference,
                                Optional<Instant> holdUntil) implements IngestEvent {
        public AuthorisationCreated {
            Objects.requireNonNull(providerReference, "providerReference");
            Objects.requireNonNull(holdUntil, "holdUntil");
        }

        /** A create without a provider reference and without a hold validity (every version 1 create). */
        public AuthorisationCreated(String eventId, String authorisationId, long amountMinor, String currency,
                                    String merchantId, Instant authorisedAt) {
            this(eventId, authorisationId, amountMinor, currency, merchantId, authorisedAt, Optional.empty(), Optional.empty());
        }

        /** A create with a provider reference and no hold validity. */
        public AuthorisationCreated(String eventId, String authorisationId, long amountMinor, String currency,
                                    String merchantId, Instant authorisedAt, Optional<String> providerReference) {
            this(eventId, authorisationId, amountMinor, currency, merchantId, authorisedAt, providerReference, Optional.empty());
        }
    }

    /**
     * {@code authorisation.incremented} (version 2): the hold grew to {@code amountMinor} (the new total, higher than the
     * stored one), and may be valid longer ({@code holdUntil}).
     */
    record AuthorisationIncremented(String eventId, String authorisationId, long amountMinor, String currency,
                                    Instant incrementedAt, Optional<Instant> holdUntil) implements IngestEvent {
        public AuthorisationIncremented {
            Objects.requireNonNull(holdUntil, "holdUntil");
        }
    }

    /**
     * {@code authorisation.reversed} (version 2) with an amount: part of the hold was given back, the remaining amount goes
     * down by {@code amountMinor}. A reversal of the whole remaining amount ends the authorisation like a void; one with
     * {@code "full": true} is decoded as an {@link AuthorisationEnded} of kind {@link EndKind#REVERSED} straight away.
     */
    record AuthorisationReversed(String eventId, String authorisationId, long amountMinor, String currency,
                                 Instant reversedAt) implements IngestEvent {

        /** This reversal as the end of its authorisation: it gave back all that remained. */
        public AuthorisationEnded asEnd() {
            return new AuthorisationEnded(eventId, authorisationId, EndKind.REVERSED, reversedAt);
        }
    }

    /** {@code authorisation.voided} or {@code authorisation.expired}: the hold is gone at the platform. */
    record AuthorisationEnded(String eventId, String authorisationId, EndKind kind, Instant endedAt) implements IngestEvent {
    }

    /**
     * A capture. Version 1 carries neither {@code captureSequence} nor {@code finalCapture} (one settlement per
     * authorisation, a second is a duplicate); version 2 may post several, numbered 1.., their amounts summed.
     */
    record SettlementPosted(String eventId, String authorisationId, long amountMinor, String currency,
                            Instant settledAt, Optional<Integer> captureSequence, Optional<Boolean> finalCapture) implements IngestEvent {
        public SettlementPosted {
            Objects.requireNonNull(captureSequence, "captureSequence");
            Objects.requireNonNull(finalCapture, "finalCapture");
        }

        /** A version 1 settlement. */
        public SettlementPosted(String eventId, String authorisationId, long amountMinor, String currency, Instant settledAt) {
            this(eventId, authorisationId, amountMinor, currency, settledAt, Optional.empty(), Optional.empty());
        }
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


    /** How an authorisation ended at the platform: voided, expired, or fully reversed (version 2). */
    enum EndKind { VOIDED, EXPIRED, REVERSED }

    /**
     * The internal {@code provider.outcome} event (docs/integration.md): an asynchronous provider's verdict on a release
     * command, put on the queue by the webhook receiver after its signature check.
     *
     * @param requestReference the provider's id for the request (Adyen: the cancel's pspReference)
     * @param paymentReference the provider's id of the payment the outcome is about (Adyen: the notification's
     *                         {@code originalReference}); it must be the command's {@code providerReference}
     * @param reason           the provider's reason when it refused (bounded, printable)
     * @param occurredAt       the provider's time of the outcome, when it sent one
     */
    record ProviderOutcome(String eventId, String authorisationId, String operationId, String provider, String requestReference,
                           String paymentReference, boolean success, Optional<String> reason, Optional<Instant> occurredAt) implements IngestEvent {
        public ProviderOutcome {
            Objects.requireNonNull(paymentReference, "paymentReference");
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(occurredAt, "occurredAt");
        }
    }
}
