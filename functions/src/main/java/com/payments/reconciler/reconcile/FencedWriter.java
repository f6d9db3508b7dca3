package com.payments.reconciler.reconcile;

import com.amazonaws.services.lambda.runtime.Context;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.workflow.InvalidInput;
import com.payments.reconciler.store.Attr;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.StoreErrors;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.workflow.StoreContention;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.IdempotentParameterMismatchException;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.TransactionInProgressException;
import software.amazon.awssdk.services.dynamodb.model.Update;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;

import static com.payments.reconciler.store.Attr.n;
import static com.payments.reconciler.store.Attr.s;

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
 * <p>Batches (docs/design.md §4, §11): one transaction carries one lease check and up to
 * {@link #RELEASES_PER_TRANSACTION} releases (three items each) or {@link #MARKS_PER_TRANSACTION}
 * delivery marks — within DynamoDB's {@value #TRANSACTION_ITEM_LIMIT} actions — so the lease check and
 * the request are paid once per batch. A transaction is all or nothing, so a batch is decided in
 * rounds: when the transaction is cancelled because some items' conditions failed, those items get
 * their outcome from {@code CancellationReasons} (by item index) and the rest — which applied nothing —
 * go again as a smaller batch. Every candidate ends with its own outcome; none is silently dropped.
 * Each round removes at least one item, so a batch of n takes at most n rounds (plus redecisions).
 *
 * <p>{@code TransactionConflict} and throttling are retried with jittered backoff; a failed lease check
 * is {@link ReleaseOutcome.Fenced} for the whole batch and is never retried. Each attempt carries a
 * {@code ClientRequestToken} derived from the batch (operation ids and observed versions), the epoch,
 * the task attempt ({@link #forInvocation}: the Lambda request id) and the count of definitive
 * cancellations so far: an SDK retry after a lost response reuses the token (AWS answers it instead of
 * applying it again), while a retry after a definitive cancellation — which applied nothing — gets a
 * fresh one, and so does another task attempt facing the same batch (its request differs: reusing the
 * earlier attempt's token would be {@code IdempotentParameterMismatch}). Correctness does not depend on
 * the token (the local engine ignores it): a replay meets the version and {@code attribute_not_exists}
 * conditions, and a command carrying our own owner and epoch is recognised as ours.
 */
public final class FencedWriter {

    /** Whether the lease check is in the transaction. Only the negative controls remove it. */
    public enum Fence { LEASE_CHECKED, UNFENCED_NEGATIVE_CONTROL }

    /** DynamoDB's limit on the actions of one TransactWriteItems. */
    public static final int TRANSACTION_ITEM_LIMIT = 100;
    private static final int ITEMS_PER_RELEASE = 3;
    /** Releases per transaction: the lease check plus three items each (33). */
    public static final int RELEASES_PER_TRANSACTION = (TRANSACTION_ITEM_LIMIT - 1) / ITEMS_PER_RELEASE;
    /** Delivery marks per transaction: the lease check plus one update each (99). */
    public static final int MARKS_PER_TRANSACTION = TRANSACTION_ITEM_LIMIT - 1;

    // I1: a write commits only while the lease is held by this owner at this epoch.
    static final String LEASE_HELD_BY_US = "#owner = :owner AND epoch = :epoch";
    // Optimistic concurrency: the decision was made on this version, and it must still be AUTHORISED.
    static final String STILL_AS_OBSERVED = "version = :observed AND #state = :authorised";
    static final String REQUEST_RELEASE = "SET #state = :releaseRequested, version = version + :one REMOVE pendingShard";
    // I3: never release an authorisation that has a settlement.
    static final String NOT_SETTLED = "attribute_not_exists(authorisationId)";
    // I2: one command per business operation, whoever issues it.
    static final String NEW_COMMAND = "attribute_not_exists(operationId)";
    // A command is finalised once: a second leader's delivery of the same operation leaves the first record.
    static final String STILL_PENDING = "#status = :pending";
    static final String RECORD_DELIVERY =
            "SET #status = :final, deliveredAt = :now, deliveredEpoch = :epoch, attempts = attempts + :attempts, #detail = :detail REMOVE deliveryShard";
    // I3 at the provider call: a command whose authorisation settled ends unsent, with the settlement it saw.
    static final String END_UNSENT =
            "SET #status = :final, endedAt = :now, endedEpoch = :epoch, settledAt = :settledAt, #detail = :detail REMOVE deliveryShard";
    // Parked for a person: out of the pending index, into the parked one; parkedShard is where a requeue puts it back.
    static final String PARK =
            "SET #status = :final, parkedStatus = :final, endedAt = :now, endedEpoch = :epoch, attempts = attempts + :attempts, #detail = :detail, "
                    + "parkedShard = :shard REMOVE deliveryShard";

    private static final int AUTHORISATION_ITEM = 0;
    private static final int SETTLEMENT_ITEM = 1;
    private static final int COMMAND_ITEM = 2;
    private static final int REDECIDE_LIMIT = 2;

    private final DynamoDbClient dynamo;
    private final TableNames tables;
    private final Backoff backoff;
    private final Fence fence;
    /** Which task attempt's decisions these are: part of every request token. */
    private final String attemptId;

    /**
     * A writer that is an attempt of its own (benchmarks, tests). Handlers build theirs at initialisation, which
     * SnapStart snapshots once for every environment, so they never write through it unbound: each invocation
     * binds it {@link #forInvocation}.
     */
    public FencedWriter(DynamoDbClient dynamo, TableNames tables, Backoff backoff) {
        this(dynamo, tables, backoff, Fence.LEASE_CHECKED);
    }

    public FencedWriter(DynamoDbClient dynamo, TableNames tables, Backoff backoff, Fence fence) {
        this(dynamo, tables, backoff, fence, UUID.randomUUID().toString());
    }

    private FencedWriter(DynamoDbClient dynamo, TableNames tables, Backoff backoff, Fence fence, String attemptId) {
        if (attemptId == null || attemptId.isBlank()) {
            throw new IllegalArgumentException("a fenced writer's attempt identity must not be blank");
        }
        this.dynamo = dynamo;
        this.tables = tables;
        this.backoff = backoff;
        this.fence = fence;
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
        return new FencedWriter(dynamo, tables, backoff, fence, attemptId);
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
        ReleaseOutcome[] outcomes = new ReleaseOutcome[candidates.size()];
        List<Undecided> undecided = new ArrayList<>();
        for (int i = 0; i < candidates.size(); i++) {
            undecided.add(new Undecided(i, candidates.get(i), 0));
        }
        while (!undecided.isEmpty()) {
            List<Undecided> round = undecided;
            List<TransactWriteItem> items = new ArrayList<>(1 + ITEMS_PER_RELEASE * round.size());
            leaseCheck(lease).ifPresent(items::add);
            round.forEach(u -> items.addAll(releaseItems(lease, u.candidate(), windowId, now)));
            String batchKey = String.join(",", round.stream().map(u -> u.candidate().operationId() + "@" + u.candidate().observedVersion()).toList());
            ReleaseOutcome[] result = transact(lease, batchKey, items,
                    reasons -> classifyReleases(lease, round, reasons),
                    () -> fill(round.size(), k -> new ReleaseOutcome.Committed(round.get(k).candidate().operationId(), false), ReleaseOutcome[]::new),
                    detail -> fill(round.size(), k -> new ReleaseOutcome.Contention(detail), ReleaseOutcome[]::new));
            undecided = new ArrayList<>();
            for (int k = 0; k < round.size(); k++) {
                Undecided u = round.get(k);
                ReleaseOutcome outcome = result[k];
                if (outcome == null) {
                    undecided.add(u);       // applied nothing only because another item's condition failed
                    continue;
                }
                if (outcome instanceof ReleaseOutcome.Stale stale && u.redecisions() < REDECIDE_LIMIT) {
                    Optional<Candidate> again;
                    try {
                        again = stillReleasable(stale.current(), cutoff);
                    } catch (InvalidInput malformed) {
                        // As CandidateFinder does for the index: one unreadable item is skipped, never fails the batch.
                        outcomes[u.position()] = new ReleaseOutcome.Malformed(u.candidate().authorisationId(), malformed.getMessage());
                        continue;
                    }
                    if (again.isPresent()) {
                        undecided.add(new Undecided(u.position(), again.get(), u.redecisions() + 1));
                        continue;
                    }
                }
                outcomes[u.position()] = outcome;
            }
        }
        return List.of(outcomes);
    }

    /** Records each provider's final answer on its command, fenced; a command is finalised once. */
    public List<DeliveryRecord> recordDeliveries(LeaseToken lease, List<DeliveryMark> marks, Instant now) {
        checkBatch(marks.stream().map(DeliveryMark::operationId).toList(), MARKS_PER_TRANSACTION, "operation");
        DeliveryRecord[] outcomes = new DeliveryRecord[marks.size()];
        List<Integer> unrecorded = new ArrayList<>();
        for (int i = 0; i < marks.size(); i++) {
            unrecorded.add(i);
        }
        while (!unrecorded.isEmpty()) {
            List<Integer> round = unrecorded;
            List<TransactWriteItem> items = new ArrayList<>(1 + round.size());
            leaseCheck(lease).ifPresent(items::add);
            round.forEach(i -> items.add(markItem(lease, marks.get(i), now)));
            String batchKey = String.join(",", round.stream().map(i -> marks.get(i).operationId()).toList());
            DeliveryRecord[] result = transact(lease, batchKey, items,
                    reasons -> classifyMarks(lease, round.size(), reasons),
                    () -> fill(round.size(), k -> DeliveryRecord.Recorded.INSTANCE, DeliveryRecord[]::new),
                    detail -> fill(round.size(), k -> new DeliveryRecord.Contention(detail), DeliveryRecord[]::new));
            unrecorded = new ArrayList<>();
            for (int k = 0; k < round.size(); k++) {
                if (result[k] == null) {
                    unrecorded.add(round.get(k));
                } else {
                    outcomes[round.get(k)] = result[k];
                }
            }
        }
        return List.of(outcomes);
    }

    /** A candidate still to be decided: its place in the caller's list and how often it was re-decided. */
    private record Undecided(int position, Candidate candidate, int redecisions) {
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

    private TransactWriteItem markItem(LeaseToken lease, DeliveryMark mark, Instant now) {
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":pending", s(ReleaseCommands.STATUS_PENDING),
                ":now", n(now.toEpochMilli()), ":epoch", n(lease.epoch())));
        String expression;
        String status;
        String detailAttribute;
        String detail;
        switch (mark.result()) {
            case DeliveryRecord.Result.Delivered d -> {
                expression = RECORD_DELIVERY;
                status = ReleaseCommands.STATUS_DELIVERED;
                values.put(":attempts", n(mark.attempts()));
                detailAttribute = ReleaseCommands.PROVIDER_REFERENCE;
                detail = d.providerReference();
            }
            case DeliveryRecord.Result.Rejected r -> {
                expression = RECORD_DELIVERY;
                status = ReleaseCommands.STATUS_REJECTED;
                values.put(":attempts", n(mark.attempts()));
                detailAttribute = ReleaseCommands.REJECTION_REASON;
                detail = r.code() + ": " + r.reason();
            }
            case DeliveryRecord.Result.CancelledSettled c -> {
                expression = END_UNSENT;
                status = ReleaseCommands.STATUS_CANCELLED_SETTLED;
                detailAttribute = ReleaseCommands.END_REASON;
                detail = "its authorisation settled at " + c.settledAt() + ", before delivery";
                values.put(":settledAt", n(c.settledAt().toEpochMilli()));
            }
            case DeliveryRecord.Result.Quarantined q -> {
                expression = PARK;
                status = ReleaseCommands.STATUS_QUARANTINED;
                detailAttribute = ReleaseCommands.END_REASON;
                detail = q.answer();
                values.put(":shard", n(q.shard()));
                values.put(":attempts", n(mark.attempts()));
            }
            case DeliveryRecord.Result.Escalated e -> {
                expression = PARK;
                status = ReleaseCommands.STATUS_ESCALATED;
                detailAttribute = ReleaseCommands.END_REASON;
                detail = e.reason();
                values.put(":shard", n(e.shard()));
                values.put(":attempts", n(mark.attempts()));
            }
        }
        values.put(":final", s(status));
        values.put(":detail", s(detail));
        return TransactWriteItem.builder().update(Update.builder()
                .tableName(tables.releaseCommands())
                .key(Map.of(ReleaseCommands.OPERATION_ID, s(mark.operationId())))
                .conditionExpression(STILL_PENDING)
                .updateExpression(expression)
                .expressionAttributeNames(Map.of("#status", ReleaseCommands.STATUS, "#detail", detailAttribute))
                .expressionAttributeValues(values)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build()).build();
    }

    private List<TransactWriteItem> releaseItems(LeaseToken lease, Candidate candidate, String windowId, Instant now) {
        List<TransactWriteItem> items = new ArrayList<>(ITEMS_PER_RELEASE);
        items.add(TransactWriteItem.builder().update(Update.builder()
                .tableName(tables.authorisations())
                .key(Map.of(Authorisations.AUTHORISATION_ID, s(candidate.authorisationId())))
                .conditionExpression(STILL_AS_OBSERVED)
                .updateExpression(REQUEST_RELEASE)
                .expressionAttributeNames(Map.of("#state", Authorisations.STATE))
                .expressionAttributeValues(Map.of(":observed", n(candidate.observedVersion()),
                        ":authorised", s(Authorisations.STATE_AUTHORISED),
                        ":releaseRequested", s(Authorisations.STATE_RELEASE_REQUESTED), ":one", n(1)))
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build()).build());
        items.add(TransactWriteItem.builder().conditionCheck(ConditionCheck.builder()
                .tableName(tables.settlements())
                .key(Map.of(Settlements.AUTHORISATION_ID, s(candidate.authorisationId())))
                .conditionExpression(NOT_SETTLED)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build()).build());
        Map<String, AttributeValue> command = new LinkedHashMap<>();
        command.put(ReleaseCommands.OPERATION_ID, s(candidate.operationId()));
        command.put(ReleaseCommands.AUTHORISATION_ID, s(candidate.authorisationId()));
        command.put(ReleaseCommands.STATUS, s(ReleaseCommands.STATUS_PENDING));
        command.put(ReleaseCommands.EPOCH, n(lease.epoch()));
        command.put(ReleaseCommands.ISSUED_BY, s(lease.ownerId()));
        command.put(ReleaseCommands.WINDOW_ID, s(windowId));
        command.put(ReleaseCommands.CREATED_AT, n(now.toEpochMilli()));
        command.put(ReleaseCommands.ATTEMPTS, n(0));
        command.put(ReleaseCommands.AMOUNT_MINOR, n(candidate.amountMinor()));
        command.put(ReleaseCommands.CURRENCY, s(candidate.currency()));
        command.put(ReleaseCommands.DELIVERY_SHARD, s(candidate.shard()));
        items.add(TransactWriteItem.builder().put(Put.builder()
                .tableName(tables.releaseCommands())
                .item(command)
                .conditionExpression(NEW_COMMAND)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build()).build());
        return items;
    }

    private Optional<TransactWriteItem> leaseCheck(LeaseToken lease) {
        if (fence == Fence.UNFENCED_NEGATIVE_CONTROL) {
            return Optional.empty();
        }
        return Optional.of(TransactWriteItem.builder().conditionCheck(ConditionCheck.builder()
                .tableName(tables.leases())
                .key(Map.of(Leases.LEASE_NAME, s(lease.leaseName())))
                .conditionExpression(LEASE_HELD_BY_US)
                .expressionAttributeNames(Map.of("#owner", Leases.OWNER))
                .expressionAttributeValues(Map.of(":owner", s(lease.ownerId()), ":epoch", n(lease.epoch())))
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build()).build());
    }

    /**
     * Runs one transaction with in-function retries of conflicts and throttling. {@code classify} returns
     * the final outcome for a cancellation, or null when the cancellation is transient (retry).
     */
    private <T> T transact(LeaseToken lease, String batchKey, List<TransactWriteItem> items,
                           Function<List<CancellationReason>, T> classify, Supplier<T> committed,
                           Function<String, T> contention) {
        int cancellations = 0;
        String lastProblem = "";
        for (int attempt = 1; attempt <= backoff.maxAttempts(); attempt++) {
            TransactWriteItemsRequest request = TransactWriteItemsRequest.builder()
                    .transactItems(items)
                    .clientRequestToken(requestToken(batchKey, lease.epoch(), attemptId, cancellations))
                    .build();
            try {
                dynamo.transactWriteItems(request);
                return committed.get();
            } catch (TransactionCanceledException cancelled) {
                List<CancellationReason> reasons = cancelled.cancellationReasons();
                // A failed condition is an answer unless a transient reason beside it means the items were not
                // all evaluated; a failed lease check is final whatever else happened.
                T outcome = reasons.stream().anyMatch(FencedWriter::isConditionFailure)
                        && (failed(reasons, leaseIndex()) || reasons.stream().noneMatch(FencedWriter::isTransient))
                        ? classify.apply(reasons) : null;
                if (outcome != null) {
                    return outcome;
                }
                if (reasons.stream().noneMatch(FencedWriter::isTransient)) {
                    throw new IllegalStateException("transaction for " + describe(batchKey) + " cancelled for an unexpected reason: " + codes(reasons));
                }
                cancellations++;
                lastProblem = "cancelled: " + codes(reasons);
            } catch (TransactionInProgressException inProgress) {
                lastProblem = "a transaction with the same token is still in progress";
            } catch (IdempotentParameterMismatchException earlierUse) {
                // The token was used within 10 minutes by a different request under the same attempt id (a writer
                // bound to one attempt deciding this batch again). A fresh token lets the conditions say what that
                // request did; our own commands are then recognised as ours.
                cancellations++;
                lastProblem = "token used by an earlier request for the same decision";
            } catch (SdkClientException noAnswer) {
                // Outcome unknown (the SDK's own retries are spent): retry with the SAME token.
                lastProblem = "no answer: " + noAnswer.getMessage();
            } catch (AwsServiceException e) {
                if (!StoreErrors.isThrottling(e)) {
                    throw e;
                }
                lastProblem = "throttled: " + e.awsErrorDetails().errorCode();
            }
            if (attempt < backoff.maxAttempts()) {
                backoff.beforeRetry(attempt);
            }
        }
        return contention.apply("gave up after " + backoff.maxAttempts() + " attempts for " + describe(batchKey) + " (" + lastProblem + ")");
    }

    /** Index of the lease check in the transaction, or -1 for the unfenced negative control. */
    private int leaseIndex() {
        return fence == Fence.LEASE_CHECKED ? 0 : -1;
    }

    private int firstBatchItem() {
        return leaseIndex() + 1;
    }

    /**
     * One outcome per candidate of the round: final for those whose own condition failed, null for those
     * that applied nothing only because another item failed (they go again). Per candidate, our own
     * command (a lost response's replay) outranks the settlement and version checks that the replay also fails.
     */
    private ReleaseOutcome[] classifyReleases(LeaseToken lease, List<Undecided> round, List<CancellationReason> reasons) {
        if (failed(reasons, leaseIndex())) {
            Map<String, AttributeValue> holder = reasons.get(leaseIndex()).item();
            ReleaseOutcome fenced = new ReleaseOutcome.Fenced(Attr.stringOr(holder, Leases.OWNER, "nobody"), Attr.numberOr(holder, Leases.EPOCH, 0));
            return fill(round.size(), k -> fenced, ReleaseOutcome[]::new);
        }
        ReleaseOutcome[] outcomes = new ReleaseOutcome[round.size()];
        for (int k = 0; k < round.size(); k++) {
            int base = firstBatchItem() + ITEMS_PER_RELEASE * k;
            Candidate candidate = round.get(k).candidate();
            if (failed(reasons, base + COMMAND_ITEM)) {
                Map<String, AttributeValue> command = reasons.get(base + COMMAND_ITEM).item();
                long issuedAt = Attr.numberOr(command, ReleaseCommands.EPOCH, 0);
                boolean ours = issuedAt == lease.epoch() && lease.ownerId().equals(Attr.stringOr(command, ReleaseCommands.ISSUED_BY, ""));
                outcomes[k] = ours ? new ReleaseOutcome.Committed(candidate.operationId(), true)
                        : new ReleaseOutcome.AlreadyCommanded(candidate.operationId(), issuedAt);
            } else if (failed(reasons, base + SETTLEMENT_ITEM)) {
                outcomes[k] = new ReleaseOutcome.Settled(candidate.authorisationId());
            } else if (failed(reasons, base + AUTHORISATION_ITEM)) {
                Map<String, AttributeValue> current = reasons.get(base + AUTHORISATION_ITEM).item();
                outcomes[k] = new ReleaseOutcome.Stale(current == null ? Map.of() : current);
            }
        }
        return requireProgress(outcomes, reasons);
    }

    private DeliveryRecord[] classifyMarks(LeaseToken lease, int size, List<CancellationReason> reasons) {
        if (failed(reasons, leaseIndex())) {
            Map<String, AttributeValue> holder = reasons.get(leaseIndex()).item();
            DeliveryRecord fenced = new DeliveryRecord.Fenced(Attr.stringOr(holder, Leases.OWNER, "nobody"), Attr.numberOr(holder, Leases.EPOCH, 0));
            return fill(size, k -> fenced, DeliveryRecord[]::new);
        }
        DeliveryRecord[] outcomes = new DeliveryRecord[size];
        for (int k = 0; k < size; k++) {
            int index = firstBatchItem() + k;
            if (failed(reasons, index)) {
                Map<String, AttributeValue> command = reasons.get(index).item();
                long endedBy = Attr.numberOr(command, ReleaseCommands.DELIVERED_EPOCH, Attr.numberOr(command, ReleaseCommands.ENDED_EPOCH, 0));
                outcomes[k] = new DeliveryRecord.AlreadyFinal(Attr.stringOr(command, ReleaseCommands.STATUS, "MISSING"),
                        endedBy == lease.epoch());
            }
        }
        return requireProgress(outcomes, reasons);
    }

    /** A round that decided nothing would repeat forever: a failed condition we cannot place is a bug. */
    private static <T> T[] requireProgress(T[] outcomes, List<CancellationReason> reasons) {
        if (Arrays.stream(outcomes).allMatch(Objects::isNull)) {
            throw new IllegalStateException("a cancelled batch named no item of ours: " + codes(reasons));
        }
        return outcomes;
    }

    private static <T> T[] fill(int size, IntFunction<? extends T> outcome, IntFunction<T[]> array) {
        T[] outcomes = array.apply(size);
        for (int k = 0; k < size; k++) {
            outcomes[k] = outcome.apply(k);
        }
        return outcomes;
    }

    private static String describe(String batchKey) {
        int comma = batchKey.indexOf(',');
        return comma < 0 ? batchKey : "a batch of " + batchKey.split(",").length + " from " + batchKey.substring(0, comma);
    }

    /** The authorisation as the failed condition returned it, if it may still be released in this window. */
    private static Optional<Candidate> stillReleasable(Map<String, AttributeValue> item, Instant cutoff) {
        if (item.isEmpty() || !Authorisations.STATE_AUTHORISED.equals(Attr.stringOr(item, Authorisations.STATE, ""))
                || !item.containsKey(Authorisations.PENDING_SHARD)) {
            return Optional.empty();
        }
        Candidate candidate = Candidate.fromItem(item);
        return candidate.authorisedAt().isBefore(cutoff) ? Optional.of(candidate) : Optional.empty();
    }

    private static boolean failed(List<CancellationReason> reasons, int index) {
        return index >= 0 && index < reasons.size() && isConditionFailure(reasons.get(index));
    }

    private static boolean isConditionFailure(CancellationReason reason) {
        return "ConditionalCheckFailed".equals(reason.code());
    }

    private static boolean isTransient(CancellationReason reason) {
        return switch (reason.code() == null ? "None" : reason.code()) {
            case "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded" -> true;
            default -> false;
        };
    }

    private static String codes(List<CancellationReason> reasons) {
        return reasons.stream().map(CancellationReason::code).toList().toString();
    }

    /**
     * ≤ 36 characters, as DynamoDB requires; stable across the retries of one request (a lost response is
     * answered, not applied again), fresh after a definitive cancellation and for every other task attempt.
     */
    static String requestToken(String batchKey, long epoch, String attempt, int cancellations) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(
                    (batchKey + "|" + epoch + "|" + attempt + "|" + cancellations).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 18);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }

    /** Raised by callers when {@link ReleaseOutcome.Contention} or {@link DeliveryRecord.Contention} reaches the workflow. */
    public static StoreContention contention(String detail) {
        return new StoreContention(detail);
    }
}
