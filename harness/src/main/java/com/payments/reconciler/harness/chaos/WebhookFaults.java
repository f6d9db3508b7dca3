package com.payments.reconciler.harness.chaos;

import com.payments.reconciler.harness.local.AdyenWebhooks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The Adyen webhook path's faults for one schedule ({@code chaos --provider adyen}), a pure function of the schedule's
 * seed drawn from a stream of its own, so every other draw of the schedule ({@link ChaosSchedule}) is unchanged.
 * Every notification is delivered after the night's executions ended (delayed past the night's end), in a shuffled
 * order (reordered), each duplicated with {@link #duplicateRate()}; with {@link #forgeOne()} a forged copy (its outcome
 * turned under the genuine signature) goes before the first genuine one; with {@link #loseOne()} the notification of
 * one authorisation's cancel is lost for good, so only the {@code providerOutcomeTimeout} escalation can end its command.
 *
 * @param delay how long each round waits (the clock moves this far before each)
 * @param duplicateRate the probability each notification is posted twice
 * @param forgeOne whether a forged copy is mixed into the first round
 * @param loseOne whether one cancel's notification is lost for good
 * @param lostPick which authorisation's notification is lost (modulo the night's releasable authorisations)
 */
public record WebhookFaults(Duration delay, double duplicateRate, boolean forgeOne, boolean loseOne, int lostPick) {

    /** Keeps these draws apart from the schedule's own stream. */
    private static final long STREAM = 0xAD7E_40B0_0C5L;
    /** Delivery rounds: every notification not lost is delivered within them (an outstanding one is a finding). */
    static final int ROUNDS = 5;

    public static WebhookFaults generate(long scheduleSeed) {
        SplittableRandom r = new SplittableRandom(scheduleSeed ^ STREAM);
        Duration delay = Duration.ofMinutes(1 + r.nextInt(10));
        double duplicateRate = r.nextDouble() * 0.5;
        boolean forgeOne = r.nextDouble() < 0.7;
        boolean loseOne = r.nextDouble() < 0.4;
        int lostPick = r.nextInt(1 << 20);
        return new WebhookFaults(delay, duplicateRate, forgeOne, loseOne, lostPick);
    }

    /** How the harness plays Adyen's delivery for this schedule. */
    public AdyenWebhooks.Plan plan() {
        return new AdyenWebhooks.Plan(ROUNDS, delay, duplicateRate, forgeOne);
    }

    public String describe() {
        List<String> parts = new ArrayList<>();
        parts.add("webhooks after the night, rounds every " + delay.toMinutes() + " min, reordered, "
                + String.format(java.util.Locale.ROOT, "%.2f", duplicateRate) + " duplicated");
        if (forgeOne) {
            parts.add("a forged notification mixed in");
        }
        if (loseOne) {
            parts.add("one notification lost for good");
        }
        return String.join(", ", parts);
    }
}
