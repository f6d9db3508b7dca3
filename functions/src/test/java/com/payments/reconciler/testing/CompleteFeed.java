package com.payments.reconciler.testing;

import com.payments.reconciler.reconcile.FeedGate;
import com.payments.reconciler.workflow.MaxSettlementFeedLag;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;

/**
 * A feed gate that always finds the settlement feed complete (its watermark is its clock's now), for tests about
 * something else; FeedGateTest and the feed scenarios use the stored watermark.
 */
public final class CompleteFeed {

    private CompleteFeed() {
    }

    public static FeedGate gate() {
        Clock clock = Clock.fixed(Instant.parse("2026-12-01T02:00:00Z"), ZoneOffset.UTC);
        return new FeedGate(() -> Optional.of(clock.instant()), MaxSettlementFeedLag.DEFAULT, clock);
    }
}
