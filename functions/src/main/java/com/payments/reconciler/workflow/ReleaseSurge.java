package com.payments.reconciler.workflow;

/**
 * The night decided more releases than its history allows (surge.SurgeDecision): its decisions are committed and
 * its commands stay PENDING until an operator approves the window or a later night is in range. Never retried; the
 * execution ends in the Fail state {@link ErrorNames#FAIL_RELEASE_SURGE}, with this message (the releases, the
 * median and the factor) as its cause.
 */
public final class ReleaseSurge extends WorkflowError {

    public ReleaseSurge(String message) {
        super(message);
    }
}
