package com.payments.reconciler.delivery;

import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.reconcile.DeliveryMark;
import com.payments.reconciler.reconcile.DeliveryRecord;
import com.payments.reconciler.reconcile.FencedWriter;
import com.payments.reconciler.workflow.EmfMetrics;
import com.payments.reconciler.workflow.Metrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * One delivery call's final answers waiting to be marked on their commands, and what marking them came to. Delivery
 * threads add; the coordinating thread marks, up to {@link FencedWriter#MARKS_PER_TRANSACTION} per fenced
 * transaction, and applies each {@link MarkVerdict}. A superseded call marks nothing: its marks would be refused, and
 * the next leader's delivery of those commands is answered by their idempotency records.
 */
final class AnswerMarks {

    private static final Logger LOG = LoggerFactory.getLogger(AnswerMarks.class);

    /** size() is O(1): read per round. */
    private final Queue<DeliveryMark> answered = new LinkedBlockingQueue<>();
    private final FencedWriter writer;
    private final LeaseToken lease;
    private final Clock clock;
    private final EmfMetrics metrics;
    private final DeliveryFailures failures;
    // Counted on the coordinating thread only.
    private long delivered;
    private long rejected;
    private long cancelledSettled;
    private long cancelledEnded;
    private long quarantined;
    private long escalated;
    private long acknowledged;
    private long outcomeOverdue;
    /** Of the counted marks: those sent to the provider, what the shard's plan counts ({@link ShardPlan#usedQuota}). */
    private long sent;

    /** @param writer bound to this invocation: its request tokens are this attempt's own */
    AnswerMarks(FencedWriter writer, LeaseToken lease, Clock clock, EmfMetrics metrics, DeliveryFailures failures) {
        this.writer = writer;
        this.lease = lease;
        this.clock = clock;
        this.metrics = metrics;
        this.failures = failures;
    }

    void add(DeliveryMark mark) {
        answered.add(mark);
    }

    /** Whether a whole transaction's worth is waiting. */
    boolean transactionReady() {
        return answered.size() >= FencedWriter.MARKS_PER_TRANSACTION;
    }

    /** Marks every waiting answer, unless the call is superseded. */
    void markAll() {
        while (!answered.isEmpty() && !failures.superseded()) {
            markOneTransaction();
        }
    }

    /** Marks up to one transaction's worth of answers, fenced. */
    void markOneTransaction() {
        List<DeliveryMark> marks = new ArrayList<>(FencedWriter.MARKS_PER_TRANSACTION);
        for (DeliveryMark mark; marks.size() < FencedWriter.MARKS_PER_TRANSACTION && (mark = answered.poll()) != null; ) {
            marks.add(mark);
        }
        if (marks.isEmpty() || failures.superseded()) {
            return;
        }
        try {
            List<DeliveryRecord> outcomes = writer.recordDeliveries(lease, marks, clock.instant());
            for (int i = 0; i < marks.size(); i++) {
                apply(marks.get(i), MarkVerdict.of(lease, marks.get(i), outcomes.get(i)));
            }
        } catch (RuntimeException e) {
            failures.add(e);
        }
    }

    private void apply(DeliveryMark mark, MarkVerdict verdict) {
        switch (verdict) {
            case MarkVerdict.Counted counted -> {
                if (ShardPlan.usedQuota(counted.result(), mark.attempts())) {
                    sent++;
                }
                switch (counted.result()) {
                    case DeliveryRecord.Result.Delivered d -> delivered++;
                    case DeliveryRecord.Result.Acknowledged a -> acknowledged++;
                    case DeliveryRecord.Result.Rejected r -> {
                        rejected++;
                        LOG.warn("provider refused {} permanently: {}", mark.operationId(), r.code());
                    }
                    case DeliveryRecord.Result.CancelledSettled c -> cancelledSettled++;
                    case DeliveryRecord.Result.CancelledEnded c -> cancelledEnded++;
                    case DeliveryRecord.Result.Quarantined q -> quarantined++;
                    case DeliveryRecord.Result.Escalated e -> escalated++;
                    case DeliveryRecord.Result.OutcomeOverdue o -> {
                        escalated++;
                        outcomeOverdue++;
                    }
                }
            }
            case MarkVerdict.Superseded superseded -> {
                // A refused lease check refuses the whole batch: one refusal, one error, not one per mark.
                if (!failures.superseded()) {
                    metrics.count(Metrics.FENCED_REFUSALS, 1);
                    failures.add(superseded.error());
                }
            }
            case MarkVerdict.AlreadyFinal already -> LOG.info("command {} was already {} ({})", mark.operationId(),
                    already.status(), already.byUs() ? "by this epoch" : "by another epoch");
            case MarkVerdict.Contended contended -> failures.add(contended.error());
        }
    }

    long delivered() {
        return delivered;
    }

    long rejected() {
        return rejected;
    }

    long cancelledSettled() {
        return cancelledSettled;
    }

    long cancelledEnded() {
        return cancelledEnded;
    }

    long quarantined() {
        return quarantined;
    }

    long escalated() {
        return escalated;
    }

    /** Of {@link #escalated()}: the ACKNOWLEDGED commands this call escalated for an outcome overdue. */
    long outcomeOverdue() {
        return outcomeOverdue;
    }

    long acknowledged() {
        return acknowledged;
    }

    long sent() {
        return sent;
    }
}
