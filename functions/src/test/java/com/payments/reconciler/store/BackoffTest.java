package com.payments.reconciler.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BackoffTest {

    private static final Duration BASE = Duration.ofMillis(25);
    private static final Duration CAP = Duration.ofSeconds(1);

    @Test
    void theSeedIsDrawnAtTheFirstRetryNotWhenTheHandlerIsBuilt() {
        // SnapStart snapshots what the constructor did; a seed drawn there is shared by every restored copy.
        AtomicInteger draws = new AtomicInteger();
        Backoff backoff = new Backoff(() -> {
            draws.incrementAndGet();
            return 42L;
        }, d -> { }, 6, BASE, CAP);
        assertThat(draws).hasValue(0);

        backoff.beforeRetry(1);
        backoff.beforeRetry(2);

        assertThat(draws).as("drawn once, at first use").hasValue(1);
    }

    @Test
    void pausesAreFullJitterBelowTheCappedExponentialCeiling() {
        List<Duration> pauses = new ArrayList<>();
        Backoff backoff = new Backoff(7L, pauses::add, 6, BASE, CAP);
        for (int attempt = 1; attempt <= 12; attempt++) {
            backoff.beforeRetry(attempt);
        }
        for (int i = 0; i < pauses.size(); i++) {
            long ceiling = Math.min(CAP.toMillis(), BASE.toMillis() << (i + 1));
            assertThat(pauses.get(i)).isBetween(Duration.ZERO, Duration.ofMillis(ceiling));
        }
        assertThat(pauses).as("jittered, not constant").doesNotHaveDuplicates().hasSize(12);
    }

    @Test
    void theSameSeedGivesTheSamePausesSoTestsAreReproducible() {
        List<Duration> a = new ArrayList<>();
        List<Duration> b = new ArrayList<>();
        Backoff first = new Backoff(99L, a::add, 6, BASE, CAP);
        Backoff second = new Backoff(99L, b::add, 6, BASE, CAP);
        for (int attempt = 1; attempt <= 6; attempt++) {
            first.beforeRetry(attempt);
            second.beforeRetry(attempt);
        }
        assertThat(a).isEqualTo(b);
    }
}
