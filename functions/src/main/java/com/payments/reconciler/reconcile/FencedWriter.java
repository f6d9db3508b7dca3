package com.payments.reconciler.reconcile;

import com.payments.reconciler.lease.LeaseToken;
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
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import static com.payments.reconciler.store.Attr.n;
import static com.payments.reconciler.store.Attr.s;

/**
 * The protected write (design §4): the only path by which this job changes business state.
 *
 * <p>Every change is one {@code TransactWriteItems} whose first item is a ConditionCheck of the lease's
 * owner <em>and</em> epoch, so the decision, the business update and the outbox command commit
 * together only while we are the leader. DynamoDB serialises transactions on the lease item with the
 * takeover that bumps the epoch; after the takeover commits, no transaction carrying the old epoch
 * can commit (invariant I1). A stale worker's transaction commits only if DynamoDB ordered it before
 * the takeover — that is the guarantee boundary.
 *
 * <p>Outcomes are classified from {@code CancellationReasons} by item index. {@code TransactionConflict}
 * and throttling are retried here with jittered backoff; a failed lease check is {@link ReleaseOutcome.Fenced}
 * and is never retried. Each attempt carries a {@code ClientRequestToken} derived from the operation id,
 * the epoch, the observed version and the count of definitive cancellations so far: an SDK retry after a
 * lost response reuses the token (AWS answers it instead of applying it again), while a retry after a
 * definitive cancellation — which applied nothing — gets a fresh one. Correctness does not depend on the
 * token (the local engine ignores it): a replay meets the version and {@code attribute_not_exists}
 * conditions, and a command carrying our own owner and epoch is recognised as ours.
 */
public final class FencedWriter {

    /** Whether the lease check is in the transaction. Only the negative controls remove it. */
    public enum Fence { LEASE_CHECKED, UNFENCED_NEGATIVE_CONTROL }

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

    private static final int LEASE_INDEX = 0;
    private static final int AUTHORISATION_INDEX = 1;
    private static final int SETTLEMENT_INDEX = 2;
    private static final int COMMAND_INDEX = 3;
    private static final int REDECIDE_LIMIT = 2;

    private final DynamoDbClient dynamo;
    private final TableNames tables;
    private final Backoff backoff;
    private final Fence fence;

    public FencedWriter(DynamoDbClient dynamo, TableNames tables, Backoff backoff) {
        this(dynamo, tables, backoff, Fence.LEASE_CHECKED);
    }

    public FencedWriter(DynamoDbClient dynamo, TableNames tables, Backoff backoff, Fence fence) {
        this.dynamo = dynamo;
        this.tables = tables;
        this.backoff = backoff;
        this.fence = fence;
    }

    /**
     * Decides to release one authorisation: RELEASE_REQUESTED plus a PENDING outbox command, fenced.
     * When the authorisation changed but is still releasable (a newer version, still AUTHORISED and
     * before the cutoff), decides again on what the failed condition returned.
     */
    public ReleaseOutcome requestRelease(LeaseToken lease, Candidate candidate, String windowId, Instant cutoff, Instant now) {
        Candidate current = candidate;
        for (int redecision = 0; ; redecision++) {
            Candidate decided = current;
            ReleaseOutcome outcome = transact(lease, decided.operationId(), decided.observedVersion(),
                    releaseItems(lease, decided, windowId, now),
                    reasons -> classifyRelease(lease, decided, reasons));
            if (outcome instanceof ReleaseOutcome.Stale stale && redecision < REDECIDE_LIMIT) {
                Optional<Candidate> again = stillReleasable(stale.current(), cutoff);
                if (again.isPresent()) {
                    current = again.get();
                    continue;
                }
            }
            return outcome;
        }
    }

    /** Records the provider's final answer on the command, fenced; a command is finalised once. */
    public DeliveryRecord recordDelivery(LeaseToken lease, String operationId, DeliveryRecord.Result result, int attempts, Instant now) {
        List<TransactWriteItem> items = new ArrayList<>();
        leaseCheck(lease).ifPresent(items::add);
        boolean delivered = result instanceof DeliveryRecord.Result.Delivered;
        String detailAttribute = delivered ? ReleaseCommands.PROVIDER_REFERENCE : ReleaseCommands.REJECTION_REASON;
        String detail = switch (result) {
            case DeliveryRecord.Result.Delivered d -> d.providerReference();
            case DeliveryRecord.Result.Rejected r -> r.code() + ": " + r.reason();
        };
        items.add(TransactWriteItem.builder().update(Update.builder()
                .tableName(tables.releaseCommands())
                .key(Map.of(ReleaseCommands.OPERATION_ID, s(operationId)))
                .conditionExpression(STILL_PENDING)
                .updateExpression(RECORD_DELIVERY)
                .expressionAttributeNames(Map.of("#status", ReleaseCommands.STATUS, "#detail", detailAttribute))
                .expressionAttributeValues(Map.of(":pending", s(ReleaseCommands.STATUS_PENDING),
                        ":final", s(delivered ? ReleaseCommands.STATUS_DELIVERED : ReleaseCommands.STATUS_REJECTED),
                        ":now", n(now.toEpochMilli()), ":epoch", n(lease.epoch()), ":attempts", n(attempts),
                        ":detail", s(detail)))
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build()).build());
        int commandIndex = items.size() - 1;
        return transact(lease, operationId, -1, items, reasons -> {
            if (fence == Fence.LEASE_CHECKED && failed(reasons, LEASE_INDEX)) {
                Map<String, AttributeValue> holder = reasons.get(LEASE_INDEX).item();
                return new DeliveryRecord.Fenced(Attr.stringOr(holder, Leases.OWNER, "nobody"), Attr.numberOr(holder, Leases.EPOCH, 0));
            }
            if (failed(reasons, commandIndex)) {
                Map<String, AttributeValue> command = reasons.get(commandIndex).item();
                return new DeliveryRecord.AlreadyFinal(Attr.stringOr(command, ReleaseCommands.STATUS, "MISSING"),
                        Attr.numberOr(command, ReleaseCommands.DELIVERED_EPOCH, 0) == lease.epoch());
            }
            return null;
        }, DeliveryRecord.Recorded.INSTANCE, DeliveryRecord.Contention::new);
    }

    private List<TransactWriteItem> releaseItems(LeaseToken lease, Candidate candidate, String windowId, Instant now) {
        List<TransactWriteItem> items = new ArrayList<>(4);
        leaseCheck(lease).ifPresent(items::add);
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

    private ReleaseOutcome transact(LeaseToken lease, String operationId, long observedVersion, List<TransactWriteItem> items,
                                    Function<List<CancellationReason>, ReleaseOutcome> classify) {
        return transact(lease, operationId, observedVersion, items, classify,
                new ReleaseOutcome.Committed(operationId, false), ReleaseOutcome.Contention::new);
    }

    /**
     * Runs one transaction with in-function retries of conflicts and throttling. {@code classify} returns
     * the final outcome for a cancellation, or null when the cancellation is transient (retry).
     */
    private <T> T transact(LeaseToken lease, String operationId, long observedVersion, List<TransactWriteItem> items,
                           Function<List<CancellationReason>, T> classify, T committed,
                           Function<String, T> contention) {
        int cancellations = 0;
        String lastProblem = "";
        for (int attempt = 1; attempt <= backoff.maxAttempts(); attempt++) {
            TransactWriteItemsRequest request = TransactWriteItemsRequest.builder()
                    .transactItems(items)
                    .clientRequestToken(requestToken(operationId, lease.epoch(), observedVersion, cancellations))
                    .build();
            try {
                dynamo.transactWriteItems(request);
                return committed;
            } catch (TransactionCanceledException cancelled) {
                List<CancellationReason> reasons = cancelled.cancellationReasons();
                T outcome = reasons.stream().anyMatch(FencedWriter::isConditionFailure)
                        && (failed(reasons, LEASE_INDEX) || reasons.stream().noneMatch(FencedWriter::isTransient))
                        ? classify.apply(reasons) : null;
                if (outcome != null) {
                    return outcome;
                }
                if (reasons.stream().noneMatch(FencedWriter::isTransient)) {
                    throw new IllegalStateException("transaction for " + operationId + " cancelled for an unexpected reason: " + codes(reasons));
                }
                cancellations++;
                lastProblem = "cancelled: " + codes(reasons);
            } catch (TransactionInProgressException inProgress) {
                lastProblem = "a transaction with the same token is still in progress";
            } catch (IdempotentParameterMismatchException earlierUse) {
                // The token (operation, epoch, version) was used within 10 minutes by a different request: an
                // earlier call's attempt at this same decision (a task retried after it committed). A fresh token
                // lets the conditions say what that attempt did; our own command is then recognised as ours.
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
        return contention.apply("gave up after " + backoff.maxAttempts() + " attempts for " + operationId + " (" + lastProblem + ")");
    }

    private ReleaseOutcome classifyRelease(LeaseToken lease, Candidate candidate, List<CancellationReason> reasons) {
        int offset = fence == Fence.LEASE_CHECKED ? 0 : -1;
        if (fence == Fence.LEASE_CHECKED && failed(reasons, LEASE_INDEX)) {
            Map<String, AttributeValue> holder = reasons.get(LEASE_INDEX).item();
            return new ReleaseOutcome.Fenced(Attr.stringOr(holder, Leases.OWNER, "nobody"), Attr.numberOr(holder, Leases.EPOCH, 0));
        }
        if (failed(reasons, COMMAND_INDEX + offset)) {
            Map<String, AttributeValue> command = reasons.get(COMMAND_INDEX + offset).item();
            long issuedAt = Attr.numberOr(command, ReleaseCommands.EPOCH, 0);
            boolean ours = issuedAt == lease.epoch() && lease.ownerId().equals(Attr.stringOr(command, ReleaseCommands.ISSUED_BY, ""));
            return ours ? new ReleaseOutcome.Committed(candidate.operationId(), true)
                    : new ReleaseOutcome.AlreadyCommanded(candidate.operationId(), issuedAt);
        }
        if (failed(reasons, SETTLEMENT_INDEX + offset)) {
            return new ReleaseOutcome.Settled(candidate.authorisationId());
        }
        if (failed(reasons, AUTHORISATION_INDEX + offset)) {
            Map<String, AttributeValue> current = reasons.get(AUTHORISATION_INDEX + offset).item();
            return new ReleaseOutcome.Stale(current == null ? Map.of() : current);
        }
        return null;
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

    /** ≤ 36 characters, as DynamoDB requires; stable for one attempt, fresh after a definitive cancellation. */
    static String requestToken(String operationId, long epoch, long observedVersion, int cancellations) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(
                    (operationId + "|" + epoch + "|" + observedVersion + "|" + cancellations).getBytes(StandardCharsets.UTF_8));
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
