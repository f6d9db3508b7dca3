package com.payments.reconciler.store;

import com.payments.reconciler.workflow.Timing;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;

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

    /**
     * Seeded at the first retry, never in the constructor: handlers build their Backoff at initialisation,
     * which SnapStart snapshots once for every execution environment it restores, and a seed drawn there
     * would give all of them the same jitter, synchronising the retries jitter exists to spread.
     */
    private final LongSupplier seed;
    private SplittableRandom random;
    private final Pause pause;
    private final int maxAttempts;
    private final Duration base;
    private final Duration cap;

    public Backoff(long seed, Pause pause, int maxAttempts, Duration base, Duration cap) {
        this(() -> seed, pause, maxAttempts, base, cap);
    }

    public Backoff(LongSupplier seed, Pause pause, int maxAttempts, Duration base, Duration cap) {
        this.seed = seed;
        this.pause = pause;
        this.maxAttempts = maxAttempts;
        this.base = base;
        this.cap = cap;
    }

    public static Backoff standard(long seed) {
        return new Backoff(seed, SLEEP, Timing.STORE_MAX_ATTEMPTS, Timing.STORE_BACKOFF_BASE, Timing.STORE_BACKOFF_CAP);
    }

    /** What handlers use: seeded from the OS's entropy at the first retry of this environment. */
    public static Backoff standard() {
        return new Backoff(() -> new SecureRandom().nextLong(), SLEEP, Timing.STORE_MAX_ATTEMPTS, Timing.STORE_BACKOFF_BASE,
                Timing.STORE_BACKOFF_CAP);
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    /** Waits before attempt {@code attempt + 1} (attempt counts from 1). */
    public void beforeRetry(int attempt) {
        long ceiling = Math.min(cap.toMillis(), base.toMillis() << Math.min(attempt, 20));
        long millis;
        synchronized (this) {
            if (random == null) {
                random = new SplittableRandom(seed.getAsLong());
            }
            millis = ceiling <= 0 ? 0 : random.nextLong(ceiling + 1);
        }
        pause.pause(Duration.ofMillis(millis));
    }
}
