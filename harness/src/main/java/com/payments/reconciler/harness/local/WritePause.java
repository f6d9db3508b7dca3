package com.payments.reconciler.harness.local;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;

/**
 * A GC pause at the worst moment: holds the n-th release decision (first by default) of one execution's
 * worker (its owner id starts with the execution name) after it has read and checked its candidate and
 * before the write reaches DynamoDB, until the scenario lets it go. Local scenarios and tests only.
 */
public final class WritePause implements ExecutionInterceptor {

    private static final ExecutionAttribute<Boolean> HELD = new ExecutionAttribute<>("reconciler.WritePause.held");

    private final String ownerPrefix;
    private final int decisionToHold;
    private final AtomicInteger decisionsSeen = new AtomicInteger();
    private final AtomicReference<String> heldAuthorisation = new AtomicReference<>();
    private final AtomicBoolean armed = new AtomicBoolean(true);
    private final CountDownLatch paused = new CountDownLatch(1);
    private final CountDownLatch resume = new CountDownLatch(1);
    private final CountDownLatch written = new CountDownLatch(1);
    private final AtomicBoolean holding = new AtomicBoolean(false);
    private final AtomicBoolean resumed = new AtomicBoolean(false);

    public WritePause(String executionName) {
        this(executionName, 1);
    }

    /** Holds the {@code decisionToHold}-th release decision (from 1) of {@code executionName}'s workers. */
    public WritePause(String executionName, int decisionToHold) {
        if (decisionToHold < 1) {
            throw new IllegalArgumentException("decisionToHold counts from 1, was " + decisionToHold);
        }
        this.ownerPrefix = executionName + "/";
        this.decisionToHold = decisionToHold;
    }

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        // beforeExecution runs before the SDK starts its API-call timer: the pause is the worker's, not the request's.
        SdkRequest request = context.request();
        if (request instanceof TransactWriteItemsRequest tx && isOurs(tx) && decisionsSeen.incrementAndGet() == decisionToHold
                && armed.compareAndSet(true, false)) {
            heldAuthorisation.set(authorisationOf(tx));
            attributes.putAttribute(HELD, Boolean.TRUE);
            holding.set(true);
            paused.countDown();
            try {
                if (!resume.await(10, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("the paused worker was never resumed");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while paused", e);
            }
        }
    }

    /** A release decision (it puts an outbox command) by a worker of our execution. */
    private boolean isOurs(TransactWriteItemsRequest tx) {
        boolean decision = tx.transactItems().stream().anyMatch(item -> item.put() != null);
        for (TransactWriteItem item : tx.transactItems()) {
            if (decision && item.put() != null) {
                AttributeValue issuedBy = item.put().item().get(ReleaseCommands.ISSUED_BY);
                if (issuedBy != null && issuedBy.s() != null && issuedBy.s().startsWith(ownerPrefix)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String authorisationOf(TransactWriteItemsRequest tx) {
        return tx.transactItems().stream().filter(item -> item.put() != null)
                .map(item -> item.put().item().get(ReleaseCommands.AUTHORISATION_ID))
                .filter(v -> v != null && v.s() != null).map(AttributeValue::s).findFirst().orElse("?");
    }

    /** The authorisation whose release decision is held (once paused). */
    public String heldAuthorisationId() {
        return heldAuthorisation.get();
    }

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
        finished(attributes);
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        finished(attributes);
    }

    /** Only the held request's own answer counts: other workers' requests finish through this interceptor too. */
    private void finished(ExecutionAttributes attributes) {
        if (Boolean.TRUE.equals(attributes.getAttribute(HELD)) && holding.compareAndSet(true, false)) {
            written.countDown();
        }
    }

    /** Waits until the held write, once resumed, has been answered (committed or refused). */
    public boolean awaitWritten(long timeout, TimeUnit unit) throws InterruptedException {
        return written.await(timeout, unit);
    }

    /** Whether the pause is still waiting for its worker's first write. */
    public boolean armed() {
        return armed.get();
    }

    public boolean awaitPaused(long timeout, TimeUnit unit) throws InterruptedException {
        return paused.await(timeout, unit);
    }

    /** Lets the held write go on; true the first time (when it was still held back). */
    public boolean resume() {
        // Read before letting go: once released, the write may be answered (and holding cleared) before this returns.
        boolean heldBack = resumed.compareAndSet(false, true) && holding.get();
        resume.countDown();
        return heldBack;
    }

    /** Whether the write is held or, once resumed, not yet answered. */
    public boolean holding() {
        return holding.get();
    }
}
