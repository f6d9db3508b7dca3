package com.payments.reconciler.delivery;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Phaser;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One delivery call's concurrency toward the provider: its slots (the parallelism, within its share of the quota) and
 * the deliveries in flight. The coordinating thread takes a slot before it starts a delivery and the delivery thread
 * gives it back; while the coordinating thread waits, for a slot or for the deliveries in flight, it keeps renewing
 * the lease. Interruptions and failed starts halt the call through its {@link DeliveryFailures}.
 */
final class DeliverySlots {

    /** How long the coordinating thread waits for a free slot before it checks the lease renewal again. */
    private static final Duration SLOT_WAIT = Duration.ofMillis(500);

    private final Semaphore slots;
    /** The deliveries started and not finished, apart from the slots: waiting for them cannot hang on a slot. */
    private final Phaser inFlight = new Phaser(1);
    private final LeaseRenewals renewals;
    private final DeliveryFailures failures;

    DeliverySlots(int permits, LeaseRenewals renewals, DeliveryFailures failures) {
        this.slots = new Semaphore(permits);
        this.renewals = renewals;
        this.failures = failures;
    }

    /** Waits for a free slot, renewing the lease meanwhile; false once the call halted. */
    boolean acquire() {
        while (!failures.halted()) {
            renewals.renewIfDue();
            try {
                if (slots.tryAcquire(SLOT_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    // Marks are batched, so no lease check follows each delivery: a call that waited (or was
                    // paused) past its renewal learns whether it still leads before it starts another one.
                    boolean kept = false;
                    try {
                        renewals.renewIfDue();
                        kept = true;
                    } finally {
                        if (!kept) {
                            slots.release();
                        }
                    }
                    return true;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failures.add(new IllegalStateException("interrupted while waiting for a delivery slot", e));
            }
        }
        return false;
    }

    /** Gives back slots taken and not handed to a delivery. */
    void release(int count) {
        slots.release(count);
    }

    /** Hands one held slot over to a delivery thread, which gives it back; false (the slot still held) if it could not start. */
    boolean start(ExecutorService workers, Runnable delivery) {
        inFlight.register();
        try {
            workers.execute(() -> {
                try {
                    delivery.run();
                } finally {
                    slots.release();
                    inFlight.arriveAndDeregister();
                }
            });
        } catch (RuntimeException e) {
            inFlight.arriveAndDeregister();
            failures.add(e);
            return false;
        }
        return true;
    }

    /**
     * Every delivery in flight finishes (each is bounded by the provider timeouts); renewals go on. Waits for the
     * deliveries themselves, not for their slots, so a slot lost on some path cannot hold the call to its timeout.
     */
    void awaitInFlight() {
        int phase = inFlight.arrive();
        while (true) {
            try {
                inFlight.awaitAdvanceInterruptibly(phase, SLOT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                return;
            } catch (TimeoutException e) {
                renewals.renewIfDue();
            } catch (InterruptedException e) {
                // Lambda is ending the invocation; the executor's close still waits for the threads.
                Thread.currentThread().interrupt();
                failures.add(new IllegalStateException("interrupted while waiting for deliveries in flight", e));
                return;
            }
        }
    }
}
