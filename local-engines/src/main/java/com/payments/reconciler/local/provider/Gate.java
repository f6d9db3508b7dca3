package com.payments.reconciler.local.provider;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Holds one request's response until the test opens it: the release has been performed (or replayed)
 * but the caller has no answer yet. Orders a test's steps without sleeping.
 */
public final class Gate {

    private final CountDownLatch arrived = new CountDownLatch(1);
    private final CountDownLatch opened = new CountDownLatch(1);

    /** Waits (at most {@code timeout}) until the held request has been performed and is waiting here. */
    public boolean awaitArrival(Duration timeout) throws InterruptedException {
        return arrived.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    public boolean hasArrived() {
        return arrived.getCount() == 0;
    }

    /** Lets the held response go. */
    public void open() {
        opened.countDown();
    }

    void arriveAndWait() throws InterruptedException {
        arrived.countDown();
        opened.await();
    }
}
