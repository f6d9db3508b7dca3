package com.payments.reconciler.reconcile;

import java.util.Optional;

import java.time.Instant;

/** The outcome of recording how a command ended, fenced like every other write. */
public sealed interface DeliveryRecord {

    /** How a PENDING command ends: the provider's final answer, or a reason it was not sent. */
    sealed interface Result {
        /** The provider performed (or had performed) the release. */
        record Delivered(String providerReference) implements Result {
        }

        /** The provider took the request; its outcome arrives later (ingestion's {@code provider.outcome}). */
        record Acknowledged(Optional<String> requestReference, Optional<String> storedError, int shard) implements Result {
            public Acknowledged(String requestReference, int shard) {
                this(Optional.of(requestReference), Optional.empty(), shard);
            }
        }

        /** The provider refused permanently. */
        record Rejected(String code, String reason) implements Result {
        }

        /** Not sent: its authorisation settled at {@code settledAt}, before this delivery (I3 at call time). */
        record CancelledSettled(Instant settledAt) implements Result {
        }

        /**
         * Not sent: its authorisation ended at the card platform before this delivery (no hold left to release).
         *
         * @param endKind what ended it, as ingestion recorded it ({@code VOIDED}, {@code EXPIRED}; a future kind passes through)
         * @param endedAt the platform's time of the end
         */
        record CancelledEnded(String endKind, Instant endedAt) implements Result {
        }

        /**
         * Parked for a person: the provider answered outside its contract.
         *
         * @param answer the status and a bounded excerpt of the answer, as {@code ProviderContractViolation} kept it
         */
        record Quarantined(String answer, int shard) implements Result {
        }

        /** Parked for a person: older than automatic delivery may be (our idempotency records may be gone). */
        record Escalated(String reason, int shard) implements Result {
        }

        /**
         * Parked for a person (ESCALATED): ACKNOWLEDGED longer than {@code providerOutcomeTimeout} without the provider's
         * outcome. Recorded only on a command still ACKNOWLEDGED (an outcome that arrived meanwhile wins).
         */
        record OutcomeOverdue(String reason, int shard) implements Result {
        }
    }

    enum Recorded implements DeliveryRecord { INSTANCE }

    record Fenced(String currentOwner, long currentEpoch) implements DeliveryRecord {
    }

    /** No longer PENDING (by us after a lost response, or by an earlier leader, or by an operator). */
    record AlreadyFinal(String status, boolean byUs) implements DeliveryRecord {
    }

    record Contention(String detail) implements DeliveryRecord {
    }
}
