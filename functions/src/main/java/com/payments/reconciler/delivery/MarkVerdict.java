package com.payments.reconciler.delivery;

import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.reconcile.DeliveryMark;
import com.payments.reconciler.reconcile.DeliveryRecord;
import com.payments.reconciler.workflow.Fenced;
import com.payments.reconciler.workflow.StoreContention;

/**
 * What recording one mark through the fenced path came to, for the call's totals and its end (docs/design.md §6).
 * Pure: {@link AnswerMarks} writes the marks and applies the verdicts. A recorded mark counts under its result; a
 * refused lease check is the call's {@link Fenced} (one per batch: the whole transaction was refused); a command
 * already final counts nothing (another attempt or epoch ended it); contention after the writer's retries ends the
 * call {@link StoreContention}.
 */
sealed interface MarkVerdict {

    /** Recorded: counts once under its result. */
    record Counted(DeliveryRecord.Result result) implements MarkVerdict {
    }

    /** The lease check refused the batch: the call was superseded. */
    record Superseded(Fenced error) implements MarkVerdict {
    }

    record AlreadyFinal(String status, boolean byUs) implements MarkVerdict {
    }

    record Contended(StoreContention error) implements MarkVerdict {
    }

    static MarkVerdict of(LeaseToken lease, DeliveryMark mark, DeliveryRecord outcome) {
        return switch (outcome) {
            case DeliveryRecord.Recorded recorded -> new Counted(mark.result());
            case DeliveryRecord.Fenced fenced -> new Superseded(new Fenced("lease " + lease.leaseName() + " refused epoch "
                    + lease.epoch() + " marking " + mark.operationId() + ": newer epoch " + fenced.currentEpoch()
                    + " held by " + fenced.currentOwner()));
            case DeliveryRecord.AlreadyFinal already -> new AlreadyFinal(already.status(), already.byUs());
            case DeliveryRecord.Contention contention -> new Contended(new StoreContention(
                    "marking " + mark.operationId() + " met contention after in-function retries: " + contention.detail()));
        };
    }
}
