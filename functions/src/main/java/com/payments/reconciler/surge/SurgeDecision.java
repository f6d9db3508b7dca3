package com.payments.reconciler.surge;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Whether a night's releases may be delivered (pure: tested with a table of cases, ReleaseSurgeDecisionTest).
 *
 * <p>The measure is the night's count of releases decided (commands committed by the run that ended the window's
 * decisions) against the median count of its last {@link ReleaseSurgePolicy#HISTORY_NIGHTS} completed nights. It is
 * not releases over candidates read: a settled authorisation leaves the pending index when its settlement is stored,
 * so the candidates a night reads are the unsettled ones and that ratio is about 1 every night (measured: 8,589 read,
 * 8,589 released), and it stays 1 when settlements go missing. A count moves with the settlements that went missing;
 * it also moves with the platform's volume, which is why the factor is 2 and a held night is one command to approve.
 */
public final class SurgeDecision {

    private final ReleaseSurgePolicy policy;

    public SurgeDecision(ReleaseSurgePolicy policy) {
        this.policy = policy;
    }

    ReleaseSurgePolicy policy() {
        return policy;
    }

    /** What the guard decided, with the figures the report and the error message name. */
    public sealed interface Verdict {
        /** Delivery may go on. */
        record Deliver(String why, long releases, Optional<Double> median) implements Verdict {
        }

        /** A surge: delivery waits for {@code approve} or a later night in range. */
        record Hold(long releases, double median, double factor, long floor, int nights) implements Verdict {
            public String message(String windowId) {
                return "window " + windowId + ": " + releases + " releases decided, above " + factor + " x the median " + median
                        + " of the last " + nights + " completed nights (and at least " + floor + "); the commands stay PENDING "
                        + "until `reconciler approve --window " + windowId + " --note TEXT` or a later night in range";
            }
        }
    }

    /**
     * @param releases the night's releases decided
     * @param history  the releases of completed nights, newest first (only the first {@link ReleaseSurgePolicy#HISTORY_NIGHTS} count)
     * @param approved an operator approved this window's surge
     */
    public Verdict decide(long releases, List<Long> history, boolean approved) {
        if (approved) {
            return new Verdict.Deliver("approved by an operator", releases, Optional.empty());
        }
        List<Long> recent = history.subList(0, Math.min(history.size(), ReleaseSurgePolicy.HISTORY_NIGHTS));
        if (recent.size() < ReleaseSurgePolicy.MIN_HISTORY_NIGHTS) {
            return new Verdict.Deliver("guard off: " + recent.size() + " completed nights of history, fewer than "
                    + ReleaseSurgePolicy.MIN_HISTORY_NIGHTS, releases, Optional.empty());
        }
        double median = median(recent);
        if (releases < policy.floor()) {
            return new Verdict.Deliver("below the floor of " + policy.floor() + " releases", releases, Optional.of(median));
        }
        if (releases > policy.factor() * median) {
            return new Verdict.Hold(releases, median, policy.factor(), policy.floor(), recent.size());
        }
        return new Verdict.Deliver("in range: at most " + policy.factor() + " x the median " + median, releases, Optional.of(median));
    }

    static double median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2.0;
    }
}
