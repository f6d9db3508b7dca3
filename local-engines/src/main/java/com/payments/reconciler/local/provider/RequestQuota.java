package com.payments.reconciler.local.provider;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The simulated provider's quota, as card providers enforce one: a token bucket of {@code requestsPerSecond}
 * holding at most one second's worth (a burst of that many), and a limit on requests in flight. A request
 * beyond either is refused with 429 and a {@code Retry-After} (whole seconds, at least 1, when a token will be
 * there again); every refusal is counted as a quota violation by the client. Real time, not the run's clock:
 * a quota is about how fast requests arrive.
 */
public final class RequestQuota {

    /** Guarded by {@code this}: a chaos schedule lowers it mid-night ({@link #lowerTo}). */
    private double requestsPerSecond;
    private final int maxConcurrent;
    private final LongSupplier nanos;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicLong violations = new AtomicLong();
    private final AtomicLong overConcurrency = new AtomicLong();
    private final AtomicLong admitted = new AtomicLong();
    private final AtomicInteger peakInFlight = new AtomicInteger();
    private double tokens;
    private long refilledAt;

    public RequestQuota(double requestsPerSecond, int maxConcurrent, LongSupplier nanos) {
        if (!(requestsPerSecond > 0) || maxConcurrent < 1) {
            throw new IllegalArgumentException("a provider quota needs requests per second above 0 and at least one concurrent request, was "
                    + requestsPerSecond + " and " + maxConcurrent);
        }
        this.requestsPerSecond = requestsPerSecond;
        this.maxConcurrent = maxConcurrent;
        this.nanos = nanos;
        this.tokens = burst();
        this.refilledAt = nanos.getAsLong();
    }

    public RequestQuota(double requestsPerSecond, int maxConcurrent) {
        this(requestsPerSecond, maxConcurrent, System::nanoTime);
    }

    /** Admits a request (the caller must {@link #done()} it), or returns how long to wait before asking again. */
    Duration admit() {
        synchronized (this) {
            long now = nanos.getAsLong();
            tokens = Math.min(burst(), tokens + (now - refilledAt) / 1e9 * requestsPerSecond);
            refilledAt = now;
            if (tokens < 1) {
                violations.incrementAndGet();
                double seconds = (1 - tokens) / requestsPerSecond;
                return Duration.ofSeconds(Math.max(1, (long) Math.ceil(seconds)));
            }
            if (inFlight.get() >= maxConcurrent) {
                violations.incrementAndGet();
                overConcurrency.incrementAndGet();
                return Duration.ofSeconds(1);
            }
            tokens -= 1;
            int now2 = inFlight.incrementAndGet();
            peakInFlight.accumulateAndGet(now2, Math::max);
        }
        admitted.incrementAndGet();
        return null;
    }

    void done() {
        inFlight.decrementAndGet();
    }

    private double burst() {
        return Math.max(1, requestsPerSecond);
    }

    public synchronized double requestsPerSecond() {
        return requestsPerSecond;
    }

    /**
     * The provider lowers its quota while a night runs (a chaos fault): from now on it refills at {@code lower} and holds
     * one second of it, whatever the night was configured with. Only lower: a raise is not a fault.
     */
    public synchronized void lowerTo(double lower) {
        if (!(lower > 0) || lower > requestsPerSecond) {
            throw new IllegalArgumentException("a lowered quota must be above 0 and at most " + requestsPerSecond + ", was " + lower);
        }
        long now = nanos.getAsLong();
        tokens = Math.min(lower, tokens + (now - refilledAt) / 1e9 * requestsPerSecond);
        refilledAt = now;
        requestsPerSecond = lower;
    }

    public int maxConcurrent() {
        return maxConcurrent;
    }

    /** Requests refused for being over the rate or the concurrency limit. */
    public long violations() {
        return violations.get();
    }

    /** Of those, the requests that came while {@link #maxConcurrent()} were already in flight. */
    public long overConcurrency() {
        return overConcurrency.get();
    }

    public long admitted() {
        return admitted.get();
    }

    public int peakInFlight() {
        return peakInFlight.get();
    }

    public void reset() {
        synchronized (this) {
            violations.set(0);
            overConcurrency.set(0);
            admitted.set(0);
            peakInFlight.set(0);
            tokens = burst();
            refilledAt = nanos.getAsLong();
        }
    }
}
