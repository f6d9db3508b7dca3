package com.payments.reconciler.harness.local;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The wall clock plus an offset a scenario can advance: how a local run makes a lease expire while a
 * worker is paused, without waiting five minutes. Handlers only ever see a {@link Clock}.
 */
public final class ShiftableClock extends Clock {

    private final Clock base;
    private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

    public ShiftableClock(Clock base) {
        this.base = base;
    }

    public void advance(Duration by) {
        offset.updateAndGet(current -> current.plus(by));
    }

    /** Back to the wall clock: each chaos schedule starts from now, whatever earlier ones advanced. */
    public void reset() {
        offset.set(Duration.ZERO);
    }

    @Override
    public Instant instant() {
        return base.instant().plus(offset.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("the reconciler works in UTC instants");
    }
}
