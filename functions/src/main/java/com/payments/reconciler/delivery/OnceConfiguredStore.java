package com.payments.reconciler.delivery;

import software.amazon.lambda.powertools.idempotency.IdempotencyConfig;
import software.amazon.lambda.powertools.idempotency.exceptions.IdempotencyItemAlreadyExistsException;
import software.amazon.lambda.powertools.idempotency.exceptions.IdempotencyItemNotFoundException;
import software.amazon.lambda.powertools.idempotency.persistence.BasePersistenceStore;
import software.amazon.lambda.powertools.idempotency.persistence.DataRecord;

import java.time.Instant;
import java.util.Objects;

/**
 * A Powertools persistence store configured once, whose record I/O is its delegate's (the library's DynamoDB store).
 *
 * <p>Powertools 1.15.0 calls {@code configure} on the store at the start of every guarded call, and {@code configure}
 * rewrites the record-id prefix in two steps ({@code functionName = "testFunction"}, then {@code += ".handleRequest"}): a
 * call computing its record id on another thread meanwhile could write its INPROGRESS or COMPLETED record under the
 * transient prefix, where no later call looks. Configured once, the prefix never changes after the first call, so
 * concurrent calls of one guard need no lock around their record writes.
 */
final class OnceConfiguredStore extends BasePersistenceStore {

    private final BasePersistenceStore delegate;
    private IdempotencyConfig configuredWith;
    private String configuredFor;
    /** Written once under the monitor; read without it on every call. */
    private volatile boolean configured;

    OnceConfiguredStore(BasePersistenceStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public void configure(IdempotencyConfig config, String functionName) {
        if (!configured) {
            configureFirst(config, functionName);
        }
        if (configuredWith != config || !Objects.equals(configuredFor, functionName)) {
            throw new IllegalStateException("this idempotency store serves one configuration and the woven method "
                    + configuredFor + "; it was asked to serve another (" + functionName + ")");
        }
    }

    private synchronized void configureFirst(IdempotencyConfig config, String functionName) {
        if (configured) {
            return;
        }
        super.configure(config, functionName);
        // The delegate reads its own copy of the configuration (payload validation) when it writes a record.
        delegate.configure(config, functionName);
        configuredWith = config;
        configuredFor = functionName;
        configured = true;
    }

    @Override
    public DataRecord getRecord(String idempotencyKey) throws IdempotencyItemNotFoundException {
        return delegate.getRecord(idempotencyKey);
    }

    @Override
    public void putRecord(DataRecord record, Instant now) throws IdempotencyItemAlreadyExistsException {
        delegate.putRecord(record, now);
    }

    @Override
    public void updateRecord(DataRecord record) {
        delegate.updateRecord(record);
    }

    @Override
    public void deleteRecord(String idempotencyKey) {
        delegate.deleteRecord(idempotencyKey);
    }
}
