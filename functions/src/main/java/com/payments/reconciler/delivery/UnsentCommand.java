package com.payments.reconciler.delivery;

import com.payments.reconciler.reconcile.DeliveryRecord;

import java.util.Optional;

/**
 * What a command that is not sent in its round is marked with. Pure: the {@link DeliveryCall}
 * reads the round's settlements and, for these commands only, the guard's record of an earlier attempt. An answer the
 * provider already gave wins over tonight's decision: the command was sent, and answered, so that answer is its
 * truth (a settlement read since does not undo a released hold); else a settled authorisation cancels it
 * CANCELLED_SETTLED, an ended one CANCELLED_ENDED, and one past automatic delivery parks it ESCALATED.
 *
 * @param result    what the command is marked with
 * @param sentBefore whether the result is the provider's answer to an earlier attempt
 * @param why       the reason to log when it was not sent (ids and times only)
 */
record UnsentCommand(DeliveryRecord.Result result, boolean sentBefore, String why) {

    /**
     * @param decision      the round's decision for the command, not {@link DeliveryDecision.Deliver}
     * @param answeredBefore the final answer the operation guard recorded for an earlier attempt, if any
     */
    static UnsentCommand of(DeliveryDecision decision, Optional<ProviderResult.Final> answeredBefore, int shard) {
        if (answeredBefore.isPresent()) {
            return new UnsentCommand(ProviderAnswers.recordOf(answeredBefore.get(), shard), true, "answered by the provider in an earlier attempt");
        }
        return switch (decision) {
            case DeliveryDecision.Deliver deliver -> throw new IllegalArgumentException("a command to deliver is sent, not marked unsent");
            case DeliveryDecision.HeldForFeed held -> throw new IllegalArgumentException("a command held for feed stays PENDING, it is not marked");
            case DeliveryDecision.CancelSettled cancel -> new UnsentCommand(new DeliveryRecord.Result.CancelledSettled(cancel.settledAt()),
                    false, "its authorisation settled at " + cancel.settledAt());
            case DeliveryDecision.CancelEnded ended -> new UnsentCommand(new DeliveryRecord.Result.CancelledEnded(ended.kind(), ended.endedAt()),
                    false, "its authorisation ended (" + ended.kind() + ") at " + ended.endedAt());
            case DeliveryDecision.Escalate escalate -> new UnsentCommand(new DeliveryRecord.Result.Escalated(escalate.reason(), shard),
                    false, escalate.reason());
            case DeliveryDecision.Unverifiable unverifiable -> new UnsentCommand(
                    new DeliveryRecord.Result.Escalated(unverifiable.reason(), shard), false, unverifiable.reason());
        };
    }
}
