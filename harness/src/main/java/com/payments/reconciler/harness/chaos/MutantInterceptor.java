package com.payments.reconciler.harness.chaos;

import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.store.Tables.Settlements;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.Update;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The DynamoDB-side mutants, applied to the handlers' requests in flight. The store applies exactly what
 * this sends, so moto's write log and the tables (what the auditor reads) show the defect as a real defective
 * worker would leave it. A stripped item's cancellation reason is put back as {@code None} at its index, so the
 * writer reads the answer as it would if its own code had sent the shorter transaction.
 */
final class MutantInterceptor implements ExecutionInterceptor {

    /** The per-authorisation epoch the highest-epoch-seen mutant keeps on each authorisation. */
    static final String HIGHEST_EPOCH = "mutantHighestEpoch";
    private static final ExecutionAttribute<List<Integer>> STRIPPED = new ExecutionAttribute<>("mutant.stripped");
    private static final ExecutionAttribute<Integer> SENT_ITEMS = new ExecutionAttribute<>("mutant.sentItems");
    private static final ExecutionAttribute<Set<String>> BATCH = new ExecutionAttribute<>("mutant.batch");

    private final Mutant mutant;
    private final TableNames tables;
    /** The harness's own client (no interceptors): its writes are the world's, not a handler's. */
    private final DynamoDbClient operator;
    private final Clock clock;
    private final Consumer<String> trace;
    private final AtomicLong effects = new AtomicLong();
    private static final int MAX_PLANTED = 3;
    private final AtomicInteger planted = new AtomicInteger();
    /** Operation ids of decision batches cancelled by a condition: the retry of any subset of one is dropped. */
    private final Set<Set<String>> cancelledBatches = ConcurrentHashMap.newKeySet();

    MutantInterceptor(Mutant mutant, TableNames tables, DynamoDbClient operator, Clock clock, Consumer<String> trace) {
        this.mutant = mutant;
        this.tables = tables;
        this.operator = operator;
        this.clock = clock;
        this.trace = trace;
    }

    /** How many times the defect changed what reached the store (a mutant that never took effect proves nothing). */
    long effects() {
        return effects.get();
    }

    @Override
    public SdkRequest modifyRequest(Context.ModifyRequest context, ExecutionAttributes attributes) {
        SdkRequest request = context.request();
        if (request instanceof TransactWriteItemsRequest tx && isDecision(tx)) {
            return decision(tx, attributes);
        }
        return request;
    }

    private boolean isDecision(TransactWriteItemsRequest tx) {
        return tx.transactItems().stream().anyMatch(i -> i.put() != null && tables.releaseCommands().equals(i.put().tableName()));
    }

    private SdkRequest decision(TransactWriteItemsRequest tx, ExecutionAttributes attributes) {
        List<TransactWriteItem> items = tx.transactItems();
        List<Integer> stripped = new ArrayList<>();
        List<TransactWriteItem> kept = new ArrayList<>();
        // The writer's identity is part of the batch: another run deciding the same authorisations is not "the rest".
        Set<String> batch = items.stream().filter(i -> i.put() != null)
                .flatMap(i -> java.util.stream.Stream.of(i.put().item().get("operationId").s(), "by " + i.put().item().get("issuedBy").s()))
                .collect(Collectors.toSet());
        switch (mutant) {
            case NO_LEASE_CHECK, HIGHEST_EPOCH_SEEN -> {
                String epoch = null;
                for (int k = 0; k < items.size(); k++) {
                    TransactWriteItem item = items.get(k);
                    if (isLeaseCheck(item)) {
                        epoch = item.conditionCheck().expressionAttributeValues().get(":epoch").n();
                        stripped.add(k);
                    } else {
                        kept.add(item);
                    }
                }
                if (mutant == Mutant.HIGHEST_EPOCH_SEEN && epoch != null) {
                    String carried = epoch;
                    kept.replaceAll(item -> isAuthorisationUpdate(item) ? highestEpochSeen(item, carried) : item);
                }
            }
            case SETTLEMENT_CHECK_DROPPED -> keepUnless(items, kept, stripped,
                    i -> i.conditionCheck() != null && tables.settlements().equals(i.conditionCheck().tableName()));
            case SKIP_OUTBOX_PUT -> keepUnless(items, kept, stripped,
                    i -> i.put() != null && tables.releaseCommands().equals(i.put().tableName()));
            case DROP_REST_OF_CANCELLED_BATCH -> {
                attributes.putAttribute(BATCH, batch);
                if (cancelledBatches.stream().anyMatch(c -> c.containsAll(batch))) {
                    // The rest of a cancelled batch: only the lease check goes, which commits nothing and answers success.
                    for (int k = 0; k < items.size(); k++) {
                        if (isLeaseCheck(items.get(k))) {
                            kept.add(items.get(k));
                        } else {
                            stripped.add(k);
                        }
                    }
                    if (kept.isEmpty()) {
                        return tx;
                    }
                    long releases = batch.stream().filter(e -> !e.startsWith("by ")).count();
                    effects.addAndGet(releases);
                    trace.accept("mutant: the rest of a cancelled batch (" + releases + " releases) answered as committed, not applied");
                } else {
                    plantSettlement(items);
                    return tx;
                }
            }
            default -> {
                return tx;
            }
        }
        if (stripped.isEmpty() && mutant != Mutant.HIGHEST_EPOCH_SEEN) {
            return tx;
        }
        if (!stripped.isEmpty() && mutant != Mutant.DROP_REST_OF_CANCELLED_BATCH) {
            effects.incrementAndGet();
        }
        attributes.putAttribute(STRIPPED, List.copyOf(stripped));
        attributes.putAttribute(SENT_ITEMS, kept.size());
        return tx.toBuilder().transactItems(kept).build();
    }

    /**
     * A decision batch of two or more releases meets a settlement written just before it is sent (after the batch's
     * settlement read): the real engine then cancels it on that item's condition, and the correct writer retries the rest.
     */
    private void plantSettlement(List<TransactWriteItem> items) {
        List<String> ids = items.stream().filter(this::isAuthorisationUpdate)
                .map(i -> i.update().key().get(Authorisations.AUTHORISATION_ID).s()).toList();
        // Until one batch has been cancelled by its settlement: a stale worker's batch is refused by the lease check first.
        if (ids.size() < 2 || !cancelledBatches.isEmpty() || planted.incrementAndGet() > MAX_PLANTED) {
            return;
        }
        String id = ids.getLast();
        operator.putItem(b -> b.tableName(tables.settlements()).item(Map.of(
                Settlements.AUTHORISATION_ID, AttributeValue.fromS(id),
                Settlements.SETTLED_AT, AttributeValue.fromN(Long.toString(clock.millis())))));
        trace.accept("settlement arrives for " + id + " between its batch's settlement read and the batch's transaction");
    }

    private static void keepUnless(List<TransactWriteItem> items, List<TransactWriteItem> kept, List<Integer> stripped,
                                   java.util.function.Predicate<TransactWriteItem> strip) {
        for (int k = 0; k < items.size(); k++) {
            if (strip.test(items.get(k))) {
                stripped.add(k);
            } else {
                kept.add(items.get(k));
            }
        }
    }

    private boolean isLeaseCheck(TransactWriteItem item) {
        return item.conditionCheck() != null && tables.leases().equals(item.conditionCheck().tableName());
    }

    private boolean isAuthorisationUpdate(TransactWriteItem item) {
        return item.update() != null && tables.authorisations().equals(item.update().tableName());
    }

    /** A per-item fence: the write must not carry a lower epoch than any that wrote this authorisation before. */
    private static TransactWriteItem highestEpochSeen(TransactWriteItem item, String epoch) {
        Update u = item.update();
        String update = u.updateExpression();
        if (!update.startsWith("SET ")) {
            throw new IllegalStateException("highest-epoch-seen expects a SET update, got: " + update);
        }
        Map<String, AttributeValue> values = new HashMap<>(u.expressionAttributeValues());
        values.put(":mutantEpoch", AttributeValue.fromN(epoch));
        return item.toBuilder().update(u.toBuilder()
                .conditionExpression("(" + u.conditionExpression() + ") AND (attribute_not_exists(" + HIGHEST_EPOCH + ") OR "
                        + HIGHEST_EPOCH + " <= :mutantEpoch)")
                .updateExpression("SET " + HIGHEST_EPOCH + " = :mutantEpoch, " + update.substring("SET ".length()))
                .expressionAttributeValues(values).build()).build();
    }

    @Override
    public SdkResponse modifyResponse(Context.ModifyResponse context, ExecutionAttributes attributes) {
        SdkResponse response = context.response();
        if (mutant != Mutant.SETTLEMENT_CHECK_DROPPED) {
            return response;
        }
        // Settlements only: the feed's watermark and the held-for-feed items share the table, and hiding them would be
        // another defect (a night refused as FeedNotComplete would never reach the check this mutant removes).
        if (response instanceof BatchGetItemResponse batch && batch.responses().containsKey(tables.settlements())) {
            List<Map<String, AttributeValue>> read = batch.responses().get(tables.settlements());
            List<Map<String, AttributeValue>> kept = read.stream().filter(item -> !isSettlement(item)).toList();
            if (kept.size() < read.size()) {
                effects.incrementAndGet();
            }
            Map<String, List<Map<String, AttributeValue>>> rest = new HashMap<>(batch.responses());
            rest.put(tables.settlements(), kept);
            return batch.toBuilder().responses(rest).build();
        }
        if (response instanceof GetItemResponse get && context.request() instanceof GetItemRequest req
                && tables.settlements().equals(req.tableName()) && get.hasItem() && isSettlement(get.item())) {
            effects.incrementAndGet();
            return get.toBuilder().item(null).build();
        }
        return response;
    }

    private static boolean isSettlement(Map<String, AttributeValue> item) {
        AttributeValue key = item.get(Settlements.AUTHORISATION_ID);
        if (key == null) {
            // FeedGate projects the watermark alone.
            return !item.containsKey(Settlements.WATERMARK);
        }
        return !(key.s().startsWith(Settlements.FEED_KEY_PREFIX) || key.s().startsWith(Settlements.HELD_KEY_PREFIX));
    }

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
        if (mutant == Mutant.LEASE_RESET_BY_PUT && context.request() instanceof UpdateItemRequest update
                && tables.leases().equals(update.tableName()) && update.updateExpression().startsWith("REMOVE")) {
            String lease = update.key().get(Leases.LEASE_NAME).s();
            operator.putItem(b -> b.tableName(tables.leases()).item(Map.of(
                    Leases.LEASE_NAME, AttributeValue.fromS(lease),
                    Leases.EPOCH, AttributeValue.fromN("0"),
                    Leases.EXPIRES_AT, AttributeValue.fromN(Long.toString(clock.millis())))));
            effects.incrementAndGet();
            trace.accept("mutant: lease " + lease + " released, then reset by PutItem to epoch 0");
        }
    }

    @Override
    public Throwable modifyException(Context.FailedExecution context, ExecutionAttributes attributes) {
        Throwable failure = context.exception();
        if (!(failure instanceof TransactionCanceledException cancelled) || !cancelled.hasCancellationReasons()) {
            return failure;
        }
        Set<String> batch = attributes.getAttribute(BATCH);
        List<CancellationReason> answered = cancelled.cancellationReasons();
        boolean fenced = !answered.isEmpty() && "ConditionalCheckFailed".equals(answered.getFirst().code());
        if (batch != null && !fenced && answered.stream().anyMatch(r -> "ConditionalCheckFailed".equals(r.code()))) {
            cancelledBatches.add(batch);
        }
        List<Integer> stripped = attributes.getAttribute(STRIPPED);
        Integer sent = attributes.getAttribute(SENT_ITEMS);
        // Only the engine's own answer names the items we sent; a fault layer's made-up reasons are left as they are.
        if (stripped == null || stripped.isEmpty() || sent == null || cancelled.cancellationReasons().size() != sent) {
            return failure;
        }
        List<CancellationReason> reasons = new ArrayList<>(cancelled.cancellationReasons());
        for (int index : stripped) {
            reasons.add(index, CancellationReason.builder().code("None").build());
        }
        return cancelled.toBuilder().cancellationReasons(reasons).build();
    }
}
