package com.payments.reconciler.reconcile;

import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.store.Attr;
import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static com.payments.reconciler.reconcile.ProtectedWriteItems.AUTHORISATION_ITEM;
import static com.payments.reconciler.reconcile.ProtectedWriteItems.COMMAND_ITEM;
import static com.payments.reconciler.reconcile.ProtectedWriteItems.FIRST_BATCH_ITEM;
import static com.payments.reconciler.reconcile.ProtectedWriteItems.ITEMS_PER_RELEASE;
import static com.payments.reconciler.reconcile.ProtectedWriteItems.LEASE_CHECK;
import static com.payments.reconciler.reconcile.ProtectedWriteItems.SETTLEMENT_ITEM;

/**
 * What a cancelled protected write's {@code CancellationReasons} mean, read by item index in the layout of
 * {@link ProtectedWriteItems}. Pure: no client, no clock.
 */
final class Cancellations {

    private Cancellations() {
    }

    /** What to do with one cancellation as a whole. */
    enum Verdict {
        /** Some item's own condition failed and every item was evaluated (or the lease check failed): classify. */
        ANSWERED,
        /** A conflict or throttling kept some item from being evaluated: the same transaction again. */
        TRANSIENT,
        /** Neither a failed condition nor a transient reason: a bug, never retried in silence. */
        UNEXPECTED
    }

    /** A failed condition is an answer unless a transient reason beside it means the items were not all evaluated; a failed lease check is final whatever else happened. */
    static Verdict verdict(List<CancellationReason> reasons) {
        boolean transientReason = reasons.stream().anyMatch(Cancellations::isTransient);
        if (reasons.stream().anyMatch(Cancellations::isConditionFailure) && (failed(reasons, LEASE_CHECK) || !transientReason)) {
            return Verdict.ANSWERED;
        }
        return transientReason ? Verdict.TRANSIENT : Verdict.UNEXPECTED;
    }

    /**
     * One outcome per candidate of the round: final for those whose own condition failed, null for those that
     * applied nothing only because another item failed (they go again). A failed lease check fences all. Per
     * candidate, our own command (a lost response's replay) outranks the settlement and version checks that the
     * replay also fails; then an existing command, a settlement, a changed version.
     */
    static ReleaseOutcome[] releases(LeaseToken lease, List<Candidate> round, List<CancellationReason> reasons) {
        ReleaseOutcome[] outcomes = new ReleaseOutcome[round.size()];
        if (failed(reasons, LEASE_CHECK)) {
            Map<String, AttributeValue> holder = reasons.get(LEASE_CHECK).item();
            Arrays.fill(outcomes, new ReleaseOutcome.Fenced(Attr.stringOr(holder, Leases.OWNER, "nobody"), Attr.numberOr(holder, Leases.EPOCH, 0)));
            return outcomes;
        }
        for (int k = 0; k < round.size(); k++) {
            int base = FIRST_BATCH_ITEM + ITEMS_PER_RELEASE * k;
            Candidate candidate = round.get(k);
            if (failed(reasons, base + COMMAND_ITEM)) {
                Map<String, AttributeValue> command = reasons.get(base + COMMAND_ITEM).item();
                long issuedAt = Attr.numberOr(command, ReleaseCommands.EPOCH, 0);
                boolean ours = issuedAt == lease.epoch() && lease.ownerId().equals(Attr.stringOr(command, ReleaseCommands.ISSUED_BY, ""));
                outcomes[k] = ours ? new ReleaseOutcome.Committed(candidate.operationId(), true)
                        : new ReleaseOutcome.AlreadyCommanded(candidate.operationId(), issuedAt);
            } else if (failed(reasons, base + SETTLEMENT_ITEM)) {
                outcomes[k] = new ReleaseOutcome.Settled(candidate.authorisationId());
            } else if (failed(reasons, base + AUTHORISATION_ITEM)) {
                Map<String, AttributeValue> current = reasons.get(base + AUTHORISATION_ITEM).item();
                outcomes[k] = new ReleaseOutcome.Stale(current == null ? Map.of() : current);
            }
        }
        return requireProgress(outcomes, reasons);
    }

    /** One record per mark of the round, null for those that go again; a failed condition means no longer PENDING. */
    static DeliveryRecord[] marks(LeaseToken lease, int size, List<CancellationReason> reasons) {
        DeliveryRecord[] outcomes = new DeliveryRecord[size];
        if (failed(reasons, LEASE_CHECK)) {
            Map<String, AttributeValue> holder = reasons.get(LEASE_CHECK).item();
            Arrays.fill(outcomes, new DeliveryRecord.Fenced(Attr.stringOr(holder, Leases.OWNER, "nobody"), Attr.numberOr(holder, Leases.EPOCH, 0)));
            return outcomes;
        }
        for (int k = 0; k < size; k++) {
            int index = FIRST_BATCH_ITEM + k;
            if (failed(reasons, index)) {
                Map<String, AttributeValue> command = reasons.get(index).item();
                long endedBy = Attr.numberOr(command, ReleaseCommands.DELIVERED_EPOCH, Attr.numberOr(command, ReleaseCommands.ENDED_EPOCH, 0));
                outcomes[k] = new DeliveryRecord.AlreadyFinal(Attr.stringOr(command, ReleaseCommands.STATUS, "MISSING"), endedBy == lease.epoch());
            }
        }
        return requireProgress(outcomes, reasons);
    }

    /** A round that decided nothing would repeat forever: a failed condition we cannot place is a bug. */
    private static <T> T[] requireProgress(T[] outcomes, List<CancellationReason> reasons) {
        if (Arrays.stream(outcomes).allMatch(Objects::isNull)) {
            throw new IllegalStateException("a cancelled batch named no item of ours: " + codes(reasons));
        }
        return outcomes;
    }

    /** Whether the item at {@code index} of the transaction failed its own condition (the lease check is index 0). */
    static boolean conditionFailed(List<CancellationReason> reasons, int index) {
        return failed(reasons, index);
    }

    private static boolean failed(List<CancellationReason> reasons, int index) {
        return index < reasons.size() && isConditionFailure(reasons.get(index));
    }

    private static boolean isConditionFailure(CancellationReason reason) {
        return "ConditionalCheckFailed".equals(reason.code());
    }

    private static boolean isTransient(CancellationReason reason) {
        return switch (reason.code() == null ? "None" : reason.code()) {
            case "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded" -> true;
            default -> false;
        };
    }

    static String codes(List<CancellationReason> reasons) {
        return reasons.stream().map(CancellationReason::code).toList().toString();
    }
}
