package com.payments.reconciler.surge;

import com.payments.reconciler.window.WindowId;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The release-surge gate at the end of a window's decisions, before delivery (ReconcilePage's last call): reads the
 * window's record and its history, decides ({@link SurgeDecision}), records the night once, and answers the verdict.
 * A window already held stays held for every run of it (a rerun reads nothing left to decide and must not deliver
 * the held commands) until an operator approved it.
 */
public final class ReleaseSurgeGuard {

    private static final Logger LOG = LoggerFactory.getLogger(ReleaseSurgeGuard.class);
    private final NightRecords records;
    private final SurgeDecision decision;
    private final Clock clock;

    public ReleaseSurgeGuard(NightRecords records, ReleaseSurgePolicy policy, Clock clock) {
        this.records = records;
        this.decision = new SurgeDecision(policy);
        this.clock = clock;
    }

    public SurgeDecision.Verdict check(WindowId window, long releases, long candidatesRead) {
        NightRecords.Lookup lookup = records.lookup(window);
        SurgeDecision.Verdict verdict;
        if (lookup.own().isPresent()) {
            verdict = follow(lookup.own().get(), lookup.history().size());
        } else {
            verdict = decision.decide(releases, lookup.history(), false);
            if (!records.record(window, releases, candidatesRead, verdict, clock.instant())) {
                // Another run of the window recorded first (a racing rerun): its verdict is the night's.
                verdict = follow(records.read(window).orElseThrow(), lookup.history().size());
            }
        }
        LOG.info("window {}: release-surge guard {}", window, verdict);
        return verdict;
    }

    /** The night's verdict was taken by the run that recorded it; every later run of the window follows it. */
    private SurgeDecision.Verdict follow(NightRecords.Night own, int nights) {
        if (own.approved()) {
            return new SurgeDecision.Verdict.Deliver("approved by " + own.approvedBy().orElse("an operator"), own.releases(), own.median());
        }
        if (own.held()) {
            ReleaseSurgePolicy policy = decision.policy();
            return new SurgeDecision.Verdict.Hold(own.releases(), own.median().orElse(0.0), policy.factor(), policy.floor(), nights);
        }
        return new SurgeDecision.Verdict.Deliver("recorded as in range", own.releases(), own.median());
    }
}
