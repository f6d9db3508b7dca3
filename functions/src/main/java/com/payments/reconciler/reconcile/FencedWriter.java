package com.payments.reconciler.reconcile;

import com.amazonaws.services.lambda.runtime.Context;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.reconcile.BatchRounds.Answer;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.StoreErrors;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.workflow.StoreContention;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.IdempotentParameterMismatchException;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.TransactionInProgressException;

import com.payments.reconciler.store.Attr;
import com.payments.reconciler.store.Tables.Leases;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The protected write (docs/design.md §4): the only path by which this job changes business state.
 *
 * <p>Every change is one {@code TransactWriteItems} whose first item is a ConditionCheck of the lease's
 * owner <em>and</em> epoch, so the decisions, the business updates and the outbox commands commit
 * together only while we are the leader. DynamoDB serialises transactions on the lease item with the
 * takeover that bumps the epoch; after the takeover commits, no transaction carrying the old epoch
 * can commit (invariant I1). A stale worker's transaction commits only if DynamoDB ordered it before
 * the takeover — that is the guarantee boundary.
 *
 * <p>This class is the transaction executor: it sends each transaction and turns the SDK's exceptions into
 * {@link Answer}s. What goes in each transaction, what the answers mean, the rounds of a batch and the request
 * tokens are the pure protocol, {@link BatchRounds}, {@link Cancellations} and {@link ProtectedWriteItems}. There
 * is no way to build it without the lease check (docs/design.md §4, §11).
 */
public final class FencedWriter {

    private static final Logger LOG = LoggerFactory.getLogger(FencedWriter.class);

    /** DynamoDB's limit on the actions of one TransactWriteItems. */
    public static final int TRANSACTION_ITEM_LIMIT = ProtectedWriteItems.TRANSACTION_ITEM_LIMIT;
    /** Releases per transaction: the lease check plus three items each (33). */
    public static final int RELEASES_PER_TRANSACTION = (TRANSACTION_ITEM_LIMIT - 1) / ProtectedWriteItems.ITEMS_PER_RELEASE;
    /** Settled candidates per cleanup transaction: the lease check plus one update each (99; a page's batch holds at most 33). */
    public static final int CLEANUPS_PER_TRANSACTION = (TRANSACTION_ITEM_LIMIT - 1) / ProtectedWriteItems.ITEMS_PER_CLEANUP;
    /** Delivery marks per transaction: the lease check plus one update each (99). */
    public static final int MARKS_PER_TRANSACTION = TRANSACTION_ITEM_LIMIT - 1;

    private final DynamoDbClient dynamo;
    private final TableNames tables;
    private final ProtectedWriteItems items;
    private final Backoff backoff;
    /** Which task attempt's decisions these are: part of every request token. */
    private final String attemptId;

    /**
     * A writer that is an attempt of its own (benchmarks, tests). Handlers build theirs at initialisation, which
     * SnapStart snapshots once for every environment, so they never write through it unbound: each invocation
     * binds it {@link #forInvocation}.
     */
    public FencedWriter(DynamoDbClient dynamo, TableNames tables, Backoff backoff) {
        this(dynamo, tables, backoff, UUID.randomUUID().toString());
    }

    private FencedWriter(DynamoDbClient dynamo, TableNames tables, Backoff backoff, String attemptId) {
        if (attemptId == null || attemptId.isBlank()) {
            throw new IllegalArgumentException("a fenced writer's attempt identity must not be blank");
        }
        this.dynamo = dynamo;
        this.tables = tables;
        this.items = new ProtectedWriteItems(tables);
        this.backoff = backoff;
        this.attemptId = attemptId;
    }

    /**
     * This writer for one task attempt. Every Lambda invocation has its own request id, and a task the
     * workflow retries is a new invocation; without a request id (no context) the attempt gets a random one,
     * which no other attempt shares either.
     */
    public FencedWriter forInvocation(Context invocation) {
        String requestId = invocation == null ? null : invocation.getAwsRequestId();
        return forAttempt(requestId == null || requestId.isBlank() ? UUID.randomUUID().toString() : requestId);
    }

    /** This writer for the attempt named {@code attemptId}: the same decisions under another attempt get other tokens. */
    public FencedWriter forAttempt(String attemptId) {
        return new FencedWriter(dynamo, tables, backoff, attemptId);
    }

    /** {@link #requestReleases} for one candidate. */
    public ReleaseOutcome requestRelease(LeaseToken lease, Candidate candidate, String windowId, Instant cutoff, Instant now) {
        return requestReleases(lease, List.of(candidate), windowId, cutoff, now).getFirst();
    }

    /**
     * Decides to release each candidate: RELEASE_REQUESTED plus a PENDING outbox command, fenced, as few
     * transactions as the cancellations allow. When an authorisation changed but is still releasable (a
     * newer version, still AUTHORISED and before the cutoff), it is decided again on what the failed
     * condition returned. Returns one outcome per candidate, in the candidates' order; {@code Fenced} or
     * {@code Contention} for those still undecided when the lease was refused or contention outlived the
     * retries.
     */
    public List<ReleaseOutcome> requestReleases(LeaseToken lease, List<Candidate> candidates, String windowId,
                                                Instant cutoff, Instant now) {
        checkBatch(candidates.stream().map(Candidate::authorisationId).toList(), RELEASES_PER_TRANSACTION, "authorisation");
        return rounds().releases(lease, candidates, cutoff, round -> items.releases(lease, round, windowId, now));
    }

    /** What the cleanup of settled candidates did: how many left the index, or the lease refused it. */
    public sealed interface IndexCleanup {
        record Removed(int removed, int unchanged) implements IndexCleanup {
        }

        record Fenced(String currentOwner, long currentEpoch) implements IndexCleanup {
        }
    }

    /**
     * Takes settled candidates out of the {@code pending-by-age} index (items written before ingestion did it, or a
     * settlement whose follow-up write was lost), fenced: one transaction of the lease check and one update per
     * candidate. An item that changed since it was read (decided, ended, already out) is left as it is; contention
     * that outlives the retries leaves the rest for the next night, which meets them again. A refused lease check is
     * final and returned, for the caller to stop the run.
     */
    public IndexCleanup removeSettledFromIndex(LeaseToken lease, List<Candidate> settled) {
        checkBatch(settled.stream().map(Candidate::authorisationId).toList(), CLEANUPS_PER_TRANSACTION, "authorisation");
        List<Candidate> round = settled;
        int cancellations = 0;
        String batchKey = "leave-index:" + String.join(",", settled.stream().map(c -> c.authorisationId() + "@" + c.observedVersion()).toList());
        for (int attempt = 1; attempt <= backoff.maxAttempts() && !round.isEmpty(); attempt++) {
            switch (send(items.leaveIndex(lease, round), BatchRounds.requestToken(batchKey, lease.epoch(), attemptId, cancellations))) {
                case Answer.Committed c -> {
                    return new IndexCleanup.Removed(round.size(), settled.size() - round.size());
                }
                case Answer.Cancelled(List<CancellationReason> reasons) -> {
                    cancellations++;
                    switch (Cancellations.verdict(reasons)) {
                        case ANSWERED -> {
                            if (Cancellations.conditionFailed(reasons, ProtectedWriteItems.LEASE_CHECK)) {
                                Map<String, AttributeValue> holder = reasons.get(ProtectedWriteItems.LEASE_CHECK).item();
                                return new IndexCleanup.Fenced(Attr.stringOr(holder, Leases.OWNER, "nobody"), Attr.numberOr(holder, Leases.EPOCH, 0));
                            }
                            // Those that failed a condition of their own moved on since the night read them (decided, ended,
                            // already out, or their settlement is gone): leave them be.
                            List<Candidate> next = new ArrayList<>();
                            for (int k = 0; k < round.size(); k++) {
                                int first = ProtectedWriteItems.FIRST_BATCH_ITEM + ProtectedWriteItems.ITEMS_PER_CLEANUP * k;
                                if (!Cancellations.conditionFailed(reasons, first + ProtectedWriteItems.CLEANUP_UPDATE_ITEM)
                                        && !Cancellations.conditionFailed(reasons, first + ProtectedWriteItems.CLEANUP_SETTLEMENT_ITEM)) {
                                    next.add(round.get(k));
                                }
                            }
                            round = next;
                            continue;
                        }
                        case UNEXPECTED -> {
                            // The cleanup only saves later nights' reads: it never stops a night's releases. Left for the
                            // next night, which meets these items again.
                            LOG.warn("index cleanup of {} settled authorisations cancelled for an unexpected reason {}; left for the next night",
                                    settled.size(), Cancellations.codes(reasons));
                            return new IndexCleanup.Removed(0, settled.size());
                        }
                        case TRANSIENT -> { }
                    }
                }
                case Answer.TokenReused r -> cancellations++;
                case Answer.InProgress p -> { }
                case Answer.NoAnswer n -> { }
                case Answer.Throttled t -> { }
            }
            if (attempt < backoff.maxAttempts()) {
                backoff.beforeRetry(attempt);
            }
        }
        // Committed nothing more: the next night reads what is left and tries again.
        return new IndexCleanup.Removed(0, settled.size());
    }

    /** Records each provider's final answer on its command, fenced; a command is finalised once. */
    public List<DeliveryRecord> recordDeliveries(LeaseToken lease, List<DeliveryMark> marks, Instant now) {
        checkBatch(marks.stream().map(DeliveryMark::operationId).toList(), MARKS_PER_TRANSACTION, "operation");
        return rounds().marks(lease, marks, round -> items.marks(lease, round, now));
    }

    /**
     * Stamps each command's first attempt at {@code at} unless it has one, fenced, before the first request of any of
     * them leaves (a stamp earlier than the request only makes the attempt look older: it is asked about sooner, never
     * trusted longer). Up to {@link #MARKS_PER_TRANSACTION} per transaction.
     *
     * @throws com.payments.reconciler.workflow.Fenced when the lease check fails
     * @throws StoreContention when contention outlives the retries
     */
    public void recordFirstAttempts(LeaseToken lease, List<String> operationIds, Instant at) {
        for (int from = 0; from < operationIds.size(); from += MARKS_PER_TRANSACTION) {
            List<String> chunk = operationIds.subList(from, Math.min(operationIds.size(), from + MARKS_PER_TRANSACTION));
            checkBatch(chunk, MARKS_PER_TRANSACTION, "operation");
            List<TransactWriteItem> transaction = items.firstAttempts(lease, chunk, at);
            // The stamp is if_not_exists, so a repeat applies nothing: a fresh token per try is safe.
            String lastProblem = "";
            boolean done = false;
            for (int attempt = 1; attempt <= backoff.maxAttempts() && !done; attempt++) {
                switch (send(transaction, UUID.randomUUID().toString())) {
                    case Answer.Committed c -> done = true;
                    case Answer.Cancelled(var reasons) -> {
                        if ("ConditionalCheckFailed".equals(reasons.get(ProtectedWriteItems.LEASE_CHECK).code())) {
                            throw new com.payments.reconciler.workflow.Fenced("lease " + lease.leaseName() + " refused epoch "
                                    + lease.epoch() + " while recording first attempts");
                        }
                        lastProblem = "cancelled: " + Cancellations.codes(reasons);
                    }
                    case Answer.InProgress p -> lastProblem = "in progress";
                    case Answer.TokenReused r -> lastProblem = "token reused";
                    case Answer.NoAnswer(String detail) -> lastProblem = "no answer: " + detail;
                    case Answer.Throttled(String code) -> lastProblem = "throttled: " + code;
                }
                if (!done && attempt < backoff.maxAttempts()) {
                    backoff.beforeRetry(attempt);
                }
            }
            if (!done) {
                throw contention("gave up recording first attempts after " + backoff.maxAttempts() + " attempts (" + lastProblem + ")");
            }
        }
    }

    /**
     * Records the night-wide hold {@code held#*} with {@code reason}, fenced: the lease check and a Put made only where
     * no such hold is. True when this call wrote it, false when one was already there (nothing changed).
     *
     * @throws com.payments.reconciler.workflow.Fenced when the lease check fails
     * @throws StoreContention when contention outlives the retries
     */
    public boolean holdNightWide(LeaseToken lease, String reason, Instant at) {
        List<TransactWriteItem> transaction = items.nightWideHold(lease, reason, at);
        // The Put is conditional on no hold being there, so a repeat of a committed try changes nothing: a fresh token per try is safe.
        String lastProblem = "";
        for (int attempt = 1; attempt <= backoff.maxAttempts(); attempt++) {
            switch (send(transaction, UUID.randomUUID().toString())) {
                case Answer.Committed c -> {
                    return true;
                }
                case Answer.Cancelled(var reasons) -> {
                    if (Cancellations.conditionFailed(reasons, ProtectedWriteItems.LEASE_CHECK)) {
                        throw new com.payments.reconciler.workflow.Fenced("lease " + lease.leaseName() + " refused epoch "
                                + lease.epoch() + " while recording the night-wide hold");
                    }
                    if (Cancellations.conditionFailed(reasons, ProtectedWriteItems.NIGHT_WIDE_HOLD_ITEM)) {
                        return false;
                    }
                    lastProblem = "cancelled: " + Cancellations.codes(reasons);
                }
                case Answer.InProgress p -> lastProblem = "in progress";
                case Answer.TokenReused r -> lastProblem = "token reused";
                case Answer.NoAnswer(String detail) -> lastProblem = "no answer: " + detail;
                case Answer.Throttled(String code) -> lastProblem = "throttled: " + code;
            }
            if (attempt < backoff.maxAttempts()) {
                backoff.beforeRetry(attempt);
            }
        }
        throw contention("gave up recording the night-wide hold after " + backoff.maxAttempts() + " attempts (" + lastProblem + ")");
    }

    private BatchRounds rounds() {
        return new BatchRounds(this::send, backoff, attemptId);
    }

    /** One transaction, and how it was answered; any other service error propagates. */
    private Answer send(List<TransactWriteItem> transactItems, String clientRequestToken) {
        try {
            dynamo.transactWriteItems(TransactWriteItemsRequest.builder()
                    .transactItems(transactItems).clientRequestToken(clientRequestToken).build());
            return new Answer.Committed();
        } catch (TransactionCanceledException cancelled) {
            return new Answer.Cancelled(cancelled.cancellationReasons());
        } catch (TransactionInProgressException inProgress) {
            return new Answer.InProgress();
        } catch (IdempotentParameterMismatchException earlierUse) {
            return new Answer.TokenReused();
        } catch (SdkClientException noAnswer) {
            // Outcome unknown (the SDK's own retries are spent): the protocol retries with the SAME token.
            return new Answer.NoAnswer(noAnswer.getMessage());
        } catch (AwsServiceException e) {
            if (!StoreErrors.isThrottling(e)) {
                throw e;
            }
            return new Answer.Throttled(e.awsErrorDetails().errorCode());
        }
    }

    private static void checkBatch(List<String> ids, int limit, String what) {
        if (ids.isEmpty() || ids.size() > limit) {
            throw new IllegalArgumentException("a fenced batch holds 1 to " + limit + " items, was " + ids.size());
        }
        // DynamoDB refuses a transaction that touches one item twice (ValidationException for the whole batch).
        if (new HashSet<>(ids).size() != ids.size()) {
            throw new IllegalArgumentException("a fenced batch names each " + what + " once, was " + ids);
        }
    }

    /** Raised by callers when {@link ReleaseOutcome.Contention} or {@link DeliveryRecord.Contention} reaches the workflow. */
    public static StoreContention contention(String detail) {
        return new StoreContention(detail);
    }
}
