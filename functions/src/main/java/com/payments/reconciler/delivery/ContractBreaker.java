package com.payments.reconciler.delivery;

import com.payments.reconciler.workflow.Timing;

/**
 * Whether a delivery call's answers outside the provider's contract look like the command's problem or the
 * provider's. A rate over the last {@link Timing#CONTRACT_BREAKER_WINDOW} answers, not a count over the call: a
 * sparse poison answer (one command's bad data) is quarantined however large the night, while a provider or URL
 * that answers most requests outside the contract stops the call within its first few answers, before it parks
 * every command. Pure and thread-safe; the senders report each answer as it comes.
 */
final class ContractBreaker {

    private final boolean[] window = new boolean[Timing.CONTRACT_BREAKER_WINDOW];
    private int answers;
    private int violationsInWindow;
    private boolean tripped;

    /** Records an answer the contract covers (a final answer): it can only make tripping less likely. */
    synchronized void answered() {
        record(false);
    }

    /** Records an answer outside the contract about one command; true exactly once, when it trips the breaker. */
    synchronized boolean violated() {
        return record(true);
    }

    synchronized int violationsInWindow() {
        return violationsInWindow;
    }

    synchronized int answersInWindow() {
        return Math.min(answers, window.length);
    }

    private boolean record(boolean violation) {
        int slot = answers % window.length;
        // The answer this one replaces leaves the window (a slot not yet written holds false).
        if (window[slot]) {
            violationsInWindow--;
        }
        window[slot] = violation;
        answers++;
        if (violation) {
            violationsInWindow++;
        }
        if (!tripped && trips(violationsInWindow, answersInWindow())) {
            tripped = true;
            return true;
        }
        return false;
    }

    /** The rule: at least the minimum of violations, and more than half of the answers the window holds. */
    static boolean trips(int violations, int answersInWindow) {
        return violations >= Timing.CONTRACT_BREAKER_MIN_VIOLATIONS && 2 * violations > answersInWindow;
    }
}
