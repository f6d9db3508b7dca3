package com.payments.reconciler.cli.local;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;

/**
 * A GC pause at the worst moment: holds the first fenced transaction of one execution's worker (its
 * owner id starts with the execution name) after it has read and checked its candidate and before the
 * write reaches DynamoDB, until the scenario lets it go. Local scenarios and tests only.
 */
public final class WritePause implements ExecutionInterceptor {

    private final String ownerPrefix;
    private final AtomicBoolean armed = new AtomicBoolean(true);
    private final CountDownLatch paused = new CountDownLatch(1);
    private final CountDownLatch resume = new CountDownLatch(1);
    private final CountDownLatch written = new CountDownLatch(1);
    private final AtomicBoolean holding = new AtomicBoolean(false);

    public WritePause(String executionName) {
        this.ownerPrefix = executionName + "/";
    }

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        // beforeExecution runs before the SDK starts its API-call timer: the pause is the worker's, not the request's.
        SdkRequest request = context.request();
        if (request instanceof TransactWriteItemsRequest tx && isOurs(tx) && armed.compareAndSet(true, false)) {
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

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
        finished();
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        finished();
    }

    private void finished() {
        if (holding.compareAndSet(true, false)) {
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

    public void resume() {
        resume.countDown();
    }
}
