package com.payments.reconciler.local.provider;

import com.payments.reconciler.local.SeededHash;
import java.time.Duration;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Seeded fault injection for the {@link SimulatedProvider}. Each probability applies per request.
 *
 * <p>Which faults hit a request is a pure function of the seed, the request's idempotency key and how
 * many requests with that key came before it — not of the order concurrent requests happen to arrive
 * in — so a run with the same seed meets the same faults however its threads interleave.
 *
 * @param performThenDrop the release is performed, then the connection is closed without a response
 * @param error5xx a 503 is returned before anything is performed
 * @param slow the response is delayed by {@code slowDelay} (after performing)
 * @param slowDelay how long a slow response takes
 * @param seed the seed of every fault decision
 * @param malformed the release is performed, then answered outside the contract (a 200 with an HTML body)
 */
public record ProviderFaults(double performThenDrop, double error5xx, double slow, Duration slowDelay, long seed,
                             double malformed) {

    /** No faults. */
    public static final ProviderFaults NONE = new ProviderFaults(0, 0, 0, Duration.ZERO, 0, 0);

    public ProviderFaults(double performThenDrop, double error5xx, double slow, Duration slowDelay, long seed) {
        this(performThenDrop, error5xx, slow, slowDelay, seed, 0);
    }

    public ProviderFaults {
        probability("performThenDrop", performThenDrop);
        probability("error5xx", error5xx);
        probability("slow", slow);
        probability("malformed", malformed);
        Objects.requireNonNull(slowDelay, "slowDelay");
        if (slowDelay.isNegative()) {
            throw new IllegalArgumentException("slowDelay must not be negative, was " + slowDelay);
        }
    }

    /**
     * The faults of the {@code attempt}-th request (counting from 1) carrying {@code idempotencyKey}.
     * A 503 excludes the others: nothing was performed, so there is nothing to delay or drop.
     */
    public Fault.Plan decide(String idempotencyKey, int attempt) {
        SplittableRandom random = new SplittableRandom(SeededHash.mix(SeededHash.of(seed, idempotencyKey) + attempt));
        boolean unavailable = random.nextDouble() < error5xx;
        boolean delayed = random.nextDouble() < slow;
        boolean dropped = random.nextDouble() < performThenDrop;
        // Drawn last, so a seed's other faults are the same with or without this kind.
        boolean garbled = !dropped && random.nextDouble() < malformed;
        return unavailable ? Fault.Plan.of(Fault.ERROR_5XX) : new Fault.Plan(false, delayed, dropped, garbled);
    }

    private static void probability(String field, double value) {
        if (!(value >= 0 && value <= 1)) {
            throw new IllegalArgumentException(field + " must be a probability from 0 to 1, was " + value);
        }
    }
}
