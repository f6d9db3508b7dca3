package com.payments.reconciler.reconcile;

/** The outcome of recording a provider's answer on a command, fenced like every other write. */
public sealed interface DeliveryRecord {

    /** The provider's final answer for a command. */
    sealed interface Result {
        record Delivered(String providerReference) implements Result {
        }

        record Rejected(String code, String reason) implements Result {
        }
    }

    enum Recorded implements DeliveryRecord { INSTANCE }

    record Fenced(String currentOwner, long currentEpoch) implements DeliveryRecord {
    }

    /** Already DELIVERED or REJECTED (by us after a lost response, or by an earlier leader). */
    record AlreadyFinal(String status, boolean byUs) implements DeliveryRecord {
    }

    record Contention(String detail) implements DeliveryRecord {
    }
}
