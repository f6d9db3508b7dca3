package com.payments.reconciler.cli.preflight;

import java.util.Optional;

/**
 * What the reconciler stack's CloudFormation status means for the next deploy. Only a stack that completed a create,
 * an update or an import holds the deployed resources; a create that rolled back ({@code ROLLBACK_COMPLETE}) or a
 * change set never executed ({@code REVIEW_IN_PROGRESS}) left none of its own (every retained resource is
 * {@code RetainExceptOnCreate}), so the next deploy is a first create and the leftovers check applies; a failed or
 * running operation must be finished before any deploy.
 */
public enum StackState {
    /** No stack, or one deleted. */
    ABSENT(false),
    /** A first create rolled back, or a change set was created and never executed: the next deploy creates. */
    NOT_CREATED(false),
    /** A failed operation: CloudFormation refuses an update until the stack is rolled back, continued or deleted. */
    FAILED(false),
    /** An operation still running. */
    IN_PROGRESS(false),
    /** A completed create, update or import (or an update's completed rollback): the stack's resources exist. */
    DEPLOYED(true);

    private final boolean deployed;

    StackState(boolean deployed) {
        this.deployed = deployed;
    }

    public boolean deployed() {
        return deployed;
    }

    public static StackState of(Optional<String> status) {
        if (status.isEmpty() || status.get().equals("DELETE_COMPLETE")) {
            return ABSENT;
        }
        String s = status.get();
        if (s.equals("ROLLBACK_COMPLETE") || s.equals("REVIEW_IN_PROGRESS")) {
            return NOT_CREATED;
        }
        if (s.endsWith("_FAILED")) {
            return FAILED;
        }
        if (s.endsWith("_IN_PROGRESS")) {
            return IN_PROGRESS;
        }
        return DEPLOYED;
    }
}
