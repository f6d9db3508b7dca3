package com.payments.reconciler.delivery;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.payments.reconciler.store.AwsClients;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.ConflictRetryingClient;
import com.payments.reconciler.workflow.IdempotencyAlreadyInProgress;
import com.payments.reconciler.workflow.Json;
import com.payments.reconciler.workflow.OperationMismatch;
import com.payments.reconciler.workflow.StoreContention;
import com.payments.reconciler.workflow.Timing;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.lambda.powertools.idempotency.Idempotency;
import software.amazon.lambda.powertools.idempotency.IdempotencyConfig;
import software.amazon.lambda.powertools.idempotency.Idempotent;
import software.amazon.lambda.powertools.idempotency.exceptions.IdempotencyAlreadyInProgressException;
import software.amazon.lambda.powertools.idempotency.exceptions.IdempotencyConfigurationException;
import software.amazon.lambda.powertools.idempotency.exceptions.IdempotencyInconsistentStateException;
import software.amazon.lambda.powertools.idempotency.exceptions.IdempotencyKeyException;
import software.amazon.lambda.powertools.idempotency.exceptions.IdempotencyPersistenceLayerException;
import software.amazon.lambda.powertools.idempotency.exceptions.IdempotencyValidationException;
import software.amazon.lambda.powertools.idempotency.exceptions.IdempotencyItemNotFoundException;
import software.amazon.lambda.powertools.idempotency.persistence.DataRecord;
import software.amazon.lambda.powertools.idempotency.persistence.DynamoDBPersistenceStore;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * {@link OperationGuard} on Powertools idempotency 1.15.0 with its DynamoDB store on the Idempotency
 * table (the one class the build weaves: see {@code functions/pom.xml}).
 *
 * <p>Configuration, for the reasons in the team's Powertools notes:
 * <ul>
 *   <li>key = {@code operationId} and {@code withThrowOnNoIdempotencyKey()}: without it a missing key
 *   silently gives every operation the same record;</li>
 *   <li>payload validation on the fingerprint (authorisation, amount, currency): a repeat of the id with
 *   another request is {@link OperationMismatch}, not a stale answer;</li>
 *   <li>expiry {@link Timing#IDEMPOTENCY_EXPIRY}, longer than the delivery state's whole retry horizon;</li>
 *   <li>the woven method has a request handler's shape, so Powertools takes <em>this call's</em> Lambda
 *   context from its arguments and the in-progress window ends with this invocation's remaining time.
 *   That avoids the library's one global registered context, which concurrent invocations in one JVM
 *   (the local runner) would overwrite, and which SnapStart would restore stale;</li>
 *   <li>the store gets our own client (explicit HTTP client) carrying {@link InProgressExpiryFix}, the
 *   workaround for bug #1281, without which a record left INPROGRESS by a timed-out invocation blocks
 *   every retry for a day.</li>
 * </ul>
 * Errors map to the names the workflow retries: INPROGRESS held by another invocation, and the
 * library's "inconsistent state" at a record's expiry boundary, are {@link IdempotencyAlreadyInProgress};
 * store failures (Powertools 1.15.0 wraps each in {@code IdempotencyPersistenceLayerException}) are
 * {@link StoreContention}, a record write refused with {@code TransactionConflict} only once
 * {@link ConflictRetryingClient} has tried it again with backoff.
 *
 * <p>Not exactly-once: if saving the result fails after the body ran, the record stays INPROGRESS and
 * the body runs again after the in-progress window — which is why the provider call carries its own
 * {@code Idempotency-Key}. Powertools keeps one configuration per JVM; this guard re-installs its own
 * before each call if another replaced it ({@link #LIBRARY_STATE}), and its store is configured once
 * ({@link OnceConfiguredStore}), so one guard's concurrent calls write their records at the same time.
 *
 * <p>Record ids are {@code {AWS_LAMBDA_FUNCTION_NAME}.handleRequest#{md5(operationId)}} ({@link #recordId}):
 * renaming the function or {@link IdempotentBody#handleRequest} re-keys every record.
 */
public final class PowertoolsOperationGuard implements OperationGuard {

    static final String KEY_PATH = "operationId";
    static final String VALIDATION_PATH = "fingerprint";
    /** What Powertools names the function when {@code AWS_LAMBDA_FUNCTION_NAME} is not set (tests, local runs). */
    static final String DEFAULT_FUNCTION_NAME = "testFunction";
    static final String WOVEN_METHOD = "handleRequest";

    private static final ObjectMapper JSON = Json.mapper();
    /**
     * Guards Powertools' JVM-wide configuration, which is the library's static state, not ours: a call's handler takes
     * the installed store when it starts, so a call holds this shared from the check that its own guard's configuration
     * is installed until its body starts (or the call ends without one); replacing the configuration (another guard in
     * the same JVM: tests, a negative control) takes it exclusively. Calls of one guard share it, so their record
     * writes overlap: serialised, a call's senders wrote one record at a time, and at tens of milliseconds per write
     * that capped the call below its share of the provider's quota.
     */
    private static final ReentrantReadWriteLock LIBRARY_STATE = new ReentrantReadWriteLock();

    private final OnceConfiguredStore store;
    private final IdempotencyConfig config;
    private final IdempotentBody body = new IdempotentBody();

    /**
     * @param storeClient the client the persistence store uses; it must carry {@link InProgressExpiryFix}
     *                    (only a negative-control test builds one without)
     */
    public PowertoolsOperationGuard(DynamoDbClient storeClient, String table, Duration expiry) {
        this(storeClient, table, expiry, Backoff.standard());
    }

    /** @param conflicts how a record write refused with TransactionConflict is tried again before it fails the call */
    public PowertoolsOperationGuard(DynamoDbClient storeClient, String table, Duration expiry, Backoff conflicts) {
        this.store = new OnceConfiguredStore(DynamoDBPersistenceStore.builder()
                .withTableName(table)
                .withDynamoDbClient(new ConflictRetryingClient(storeClient, conflicts))
                .build());
        this.config = IdempotencyConfig.builder()
                .withEventKeyJMESPath(KEY_PATH)
                .withPayloadValidationJMESPath(VALIDATION_PATH)
                .withThrowOnNoIdempotencyKey()
                .withExpiration(expiry)
                .withUseLocalCache(false)
                .build();
        install();
    }

    /** The production guard: the Idempotency table, our client with the #1281 fix, the standard expiry. */
    public static PowertoolsOperationGuard create(AwsClients aws, String table) {
        DynamoDbClient client = aws.dynamo(List.of(new InProgressExpiryFix(Clock.systemUTC())));
        return new PowertoolsOperationGuard(client, table, Timing.IDEMPOTENCY_EXPIRY);
    }

    @Override
    public <T> T once(GuardedOperation operation, Context context, Class<T> resultType, Supplier<T> run) {
        Objects.requireNonNull(context, "a Lambda context is required: it bounds the in-progress window");
        String recorded;
        holdInstalled();
        boolean[] holding = {true};
        try {
            GuardedCall call = new GuardedCall(operation, () -> {
                // The call's handler has taken its store by now: another guard may install its own meanwhile. The
                // library runs the body again if it throws IdempotencyInconsistentStateException; unlocked once only.
                if (holding[0]) {
                    holding[0] = false;
                    LIBRARY_STATE.readLock().unlock();
                }
                return serialise(operation, resultType, run.get());
            });
            recorded = body.handleRequest(call, context);
        } catch (IdempotencyAlreadyInProgressException e) {
            throw new IdempotencyAlreadyInProgress("operation " + operation.operationId()
                    + " is being delivered by another invocation; retry after its in-progress window", e);
        } catch (IdempotencyInconsistentStateException e) {
            throw new IdempotencyAlreadyInProgress("the idempotency record of operation " + operation.operationId()
                    + " changed while it was read (at its in-progress or expiry boundary); retry", e);
        } catch (IdempotencyValidationException e) {
            throw new OperationMismatch("operation " + operation.operationId()
                    + " was recorded with a different request (authorisation, amount or currency changed)", e);
        } catch (IdempotencyPersistenceLayerException e) {
            // Powertools wraps every store error in this one type; the cause says which (a TransactionConflict here has
            // outlived the client's retries).
            throw new StoreContention("the idempotency store failed for operation " + operation.operationId() + ": "
                    + (e.getCause() == null ? e.getMessage() : e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage()), e);
        } catch (IdempotencyKeyException | IdempotencyConfigurationException e) {
            throw new IllegalStateException("idempotency guard misconfigured for operation " + operation.operationId(), e);
        } finally {
            if (holding[0]) {
                LIBRARY_STATE.readLock().unlock();
            }
        }
        try {
            return JSON.readerFor(resultType).readValue(recorded);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the idempotency record of operation " + operation.operationId()
                    + " does not hold a " + resultType.getSimpleName(), e);
        }
    }

    @Override
    public <T> Optional<T> recorded(GuardedOperation operation, Class<T> resultType) {
        DataRecord record;
        try {
            record = store.getRecord(recordId(operation.operationId()));
        } catch (IdempotencyItemNotFoundException e) {
            return Optional.empty();
        } catch (RuntimeException e) {
            throw new StoreContention("reading the idempotency record of operation " + operation.operationId() + " failed: "
                    + e.getClass().getSimpleName(), e);
        }
        // Powertools judges expiry on the system clock too.
        if (record.getStatus() != DataRecord.Status.COMPLETED || record.isExpired(Instant.now())) {
            return Optional.empty();
        }
        try {
            return Optional.of(JSON.readerFor(resultType).readValue(record.getResponseData()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the idempotency record of operation " + operation.operationId()
                    + " does not hold a " + resultType.getSimpleName(), e);
        }
    }

    /** The Idempotency table's {@code id} for an operation, as Powertools derives it. */
    public static String recordId(String operationId) {
        String function = System.getenv("AWS_LAMBDA_FUNCTION_NAME");
        return (function != null ? function : DEFAULT_FUNCTION_NAME) + "." + WOVEN_METHOD + "#" + md5(operationId);
    }

    /** The record's {@code validation} value for a fingerprint, as Powertools derives it. */
    public static String validationHash(String fingerprint) {
        return md5(fingerprint);
    }

    private void install() {
        holdInstalled();
        LIBRARY_STATE.readLock().unlock();
    }

    /**
     * Returns holding {@link #LIBRARY_STATE} shared with this guard's configuration installed; another guard (a test's
     * negative control) may have replaced it, and it is then installed again under the exclusive lock.
     */
    private void holdInstalled() {
        LIBRARY_STATE.readLock().lock();
        if (installed()) {
            return;
        }
        LIBRARY_STATE.readLock().unlock();
        LIBRARY_STATE.writeLock().lock();
        try {
            if (!installed()) {
                Idempotency.config().withPersistenceStore(store).withConfig(config).configure();
            }
            LIBRARY_STATE.readLock().lock();
        } finally {
            LIBRARY_STATE.writeLock().unlock();
        }
    }

    private boolean installed() {
        Idempotency idempotency = Idempotency.getInstance();
        return idempotency.getConfig() == config && idempotency.getPersistenceStore() == store;
    }

    private static <T> String serialise(GuardedOperation operation, Class<T> type, T result) {
        try {
            return JSON.writerFor(type).writeValueAsString(result);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot record the result of operation " + operation.operationId(), e);
        }
    }

    private static String md5(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("MD5").digest(text.getBytes(StandardCharsets.UTF_8));
            return String.format("%032x", new java.math.BigInteger(1, digest));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 unavailable", e);
        }
    }

    /**
     * What Powertools sees: its payload is the two getters (key and fingerprint); the body to run is
     * not serialised.
     */
    public static final class GuardedCall {
        private final GuardedOperation operation;
        private final Supplier<String> run;

        GuardedCall(GuardedOperation operation, Supplier<String> run) {
            this.operation = operation;
            this.run = run;
        }

        public String getOperationId() {
            return operation.operationId();
        }

        public String getFingerprint() {
            return operation.fingerprint();
        }

        String run() {
            return run.get();
        }
    }

    /**
     * The woven method. A request handler's shape on purpose: Powertools then reads the Lambda context
     * from the second argument. Renaming the method re-keys every record.
     */
    public static final class IdempotentBody implements RequestHandler<GuardedCall, String> {
        @Idempotent
        @Override
        public String handleRequest(GuardedCall call, Context context) {
            return call.run();
        }
    }
}
