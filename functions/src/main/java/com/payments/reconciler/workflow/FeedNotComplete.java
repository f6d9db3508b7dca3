package com.payments.reconciler.workflow;

/**
 * The settlement feed's watermark is older than {@link MaxSettlementFeedLag} allows (or was never received): a
 * settlement the reconciler has not stored would look exactly like no settlement, so the night releases nothing.
 * Never retried by the task's retry (the same minute would find the same watermark); the execution fails with it,
 * naming the watermark and its age, and the next run after the feed caught up (or a redrive) proceeds normally.
 */
public final class FeedNotComplete extends WorkflowError {

    public FeedNotComplete(String message) {
        super(message);
    }
}
