package com.payments.reconciler.store;

import com.payments.reconciler.workflow.Timing;

import java.time.Duration;
import java.util.SplittableRandom;

/**
 * Jittered, bounded backoff for in-function retries of DynamoDB conflicts and throttling
 * ("full jitter": a uniform pause in [0, min(cap, base * 2^attempt))). The pause itself is injected
 * so tests run without waiting; nothing orders concurrent steps by it.
 */
public final class Backoff {

    /** How a retry waits. Production: {@link #SLEEP}. */
    @FunctionalInterface
    public interface Pause {
        void pause(Duration duration);
    }

    public static final Pause SLEEP = duration -> {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during backoff", e);
        }
    };

    private final SplittableRandom random;
    private final Pause pause;
    private final int maxAttempts;
    private final Duration base;
    private final Duration cap;

    public Backoff(long seed, Pause pause, int maxAttempts, Duration base, Duration cap) {
        this.random = new SplittableRandom(seed);
        this.pause = pause;
        this.maxAttempts = maxAttempts;
        this.base = base;
        this.cap = cap;
    }

    public static Backoff standard(long seed) {
        return new Backoff(seed, SLEEP, Timing.STORE_MAX_ATTEMPTS, Timing.STORE_BACKOFF_BASE, Timing.STORE_BACKOFF_CAP);
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    /** Waits before attempt {@code attempt + 1} (attempt counts from 1). */
    public void beforeRetry(int attempt) {
        long ceiling = Math.min(cap.toMillis(), base.toMillis() << Math.min(attempt, 20));
        long millis;
        synchronized (random) {
            millis = ceiling <= 0 ? 0 : random.nextLong(ceiling + 1);
        }
        pause.pause(Duration.ofMillis(millis));
    }
}
