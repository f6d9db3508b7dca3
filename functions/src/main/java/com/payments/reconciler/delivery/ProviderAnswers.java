package com.payments.reconciler.delivery;

import com.payments.reconciler.reconcile.DeliveryRecord;
import com.payments.reconciler.workflow.Timing;

/**
 * What one provider answer means for the command being sent (docs/design.md §6). Pure: the
 * {@link CommandSender} makes the request, updates its {@link SendingRate} with the answer, and asks here what next.
 * A final answer ends the command; a throttling answer does not use up its unavailable attempts, but so long throttled
 * without any answer that the provider looks down ends the call; an unavailable answer is tried again after backoff
 * until {@link #ATTEMPTS_PER_COMMAND}, or at once given up when another worker took over.
 */
final class ProviderAnswers {

    /**
     * Provider attempts per command within one call, derived so that a command started just before the
     * deadline margin still finishes inside it: each attempt takes at most connect + request timeout.
     * More attempts are the workflow's retries (with the same key).
     */
    static final int ATTEMPTS_PER_COMMAND = (int) Math.max(1,
            Timing.DEADLINE_MARGIN.minus(Timing.STORE_BACKOFF_CAP).toMillis()
                    / Timing.PROVIDER_CONNECT_TIMEOUT.plus(Timing.PROVIDER_REQUEST_TIMEOUT).toMillis());

    private ProviderAnswers() {
    }

    /** The step after an answer. */
    sealed interface Step {
        /** The command has its final answer: mark it with it. */
        record Answered(ProviderResult.Final answer) implements Step {
        }

        /** Throttled: send again at the (slowed) pace, no attempt used up. */
        record SendAgain() implements Step {
        }

        /** Unavailable, attempts left: wait out the backoff for this many unavailable answers, then send again. */
        record BackOff(int unavailableAnswers) implements Step {
        }

        /** The provider is treated as down: the call ends ProviderUnavailable, the command's key intact. */
        record ProviderDown(String reason) implements Step {
        }
    }

    /**
     * @param unavailableAnswers unavailable answers for this command so far, this one included
     * @param requests           provider requests made for this command so far, this one included
     * @param throttledSinceAnswerMillis the rate's paused time since the last answer that was not throttling, after this one
     * @param superseded         whether another worker took over meanwhile
     */
    static Step after(ProviderResult answer, String operationId, int unavailableAnswers, int requests,
                      long throttledSinceAnswerMillis, boolean superseded) {
        return switch (answer) {
            case ProviderResult.Final done -> new Step.Answered(done);
            case ProviderResult.Throttled throttled -> throttledSinceAnswerMillis > Timing.THROTTLED_WITHOUT_PROGRESS_LIMIT.toMillis()
                    ? new Step.ProviderDown("provider throttled every request for " + throttledSinceAnswerMillis / 1000
                    + " s without one answer (the last for " + operationId + "); treated as down, keys intact")
                    : new Step.SendAgain();
            case ProviderResult.Unavailable down -> unavailableAnswers >= ATTEMPTS_PER_COMMAND || superseded
                    ? new Step.ProviderDown(unavailableFor(operationId, requests, down.cause()))
                    : new Step.BackOff(unavailableAnswers);
        };
    }

    /** Why a command's delivery ended ProviderUnavailable, with the cause of its last unavailable answer. */
    static String unavailableFor(String operationId, int requests, String cause) {
        return "provider unavailable for " + operationId + " after " + requests
                + " attempts (same Idempotency-Key each time): " + cause;
    }

    /** What a final answer is recorded as on its command. */
    static DeliveryRecord.Result recordOf(ProviderResult.Final answer, int shard) {
        return switch (answer) {
            case ProviderResult.Released released -> new DeliveryRecord.Result.Delivered(released.providerReference());
            case ProviderResult.Rejected refused -> new DeliveryRecord.Result.Rejected(refused.code(), refused.reason());
            case ProviderResult.Acknowledged taken -> new DeliveryRecord.Result.Acknowledged(taken.namedRequest(), taken.storedErrorIfAny(), shard);
        };
    }
}
