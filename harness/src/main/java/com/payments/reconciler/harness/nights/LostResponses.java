package com.payments.reconciler.harness.nights;

import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.cli.operator.ParkedCommands;
import com.payments.reconciler.harness.local.LocalPipeline;
import com.payments.reconciler.local.provider.Fault;
import com.payments.reconciler.reconcile.Candidate;
import com.payments.reconciler.store.Attr;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.workflow.Timing;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * {@code local --nights N --scenario provider-lost-response}: answers the provider loses on the first night that outlive
 * it. On night 1 the provider performs the first release request of {@link #COUNT} due authorisations and drops the
 * response; the same call's retry under the same key gets an answer outside the contract, so the command is parked
 * QUARANTINED with its first attempt stamped and the release performed. Before the first night that starts at least
 * the provider's key retention after those first attempts, an operator requeues them (as a person would after a look at
 * the provider), so they are sent again a later night when the provider no longer knows their keys: only the status
 * lookup can tell that the provider released them. Each must end DELIVERED with its one release.
 */
public final class LostResponses {

    /**
     * Responses lost on night 1. Fewer than {@link Timing#CONTRACT_BREAKER_MIN_VIOLATIONS}, so their answers outside the
     * contract park each command and never stop a call as a provider gone wrong.
     */
    public static final int COUNT = Timing.CONTRACT_BREAKER_MIN_VIOLATIONS - 1;
    static final String REQUEUE_NOTE = "provider-lost-response scenario: the answer was lost; requeued after the provider's key retention";

    /**
     * What became of the lost responses.
     *
     * @param operations          the commands whose first answer was lost on night 1
     * @param requeuedBeforeNight the night (1-based) before which the operator requeued them; null if none was reached
     * @param statuses            each command's status after the last night
     * @param releasesPerformed   the provider's releases of each command's hold, under any key
     * @param eachReleasedOnce    every one DELIVERED, its hold released exactly once
     */
    public record Outcome(List<String> operations, Integer requeuedBeforeNight, Map<String, String> statuses,
                   Map<String, Integer> releasesPerformed, boolean eachReleasedOnce) {
    }

    private final List<String> operations = new ArrayList<>();
    private Integer requeuedBeforeNight;

    /**
     * Before night 1's execution: picks the first {@link #COUNT} authorisations (by id) the night will release — pending,
     * authorised before its cutoff, neither settled nor ended — and has the provider lose their first answers.
     */
    void arm(LocalPipeline pipeline, Instant cutoff, Consumer<String> console) {
        StoreSnapshot snapshot = StoreSnapshot.scan(pipeline.dynamo(), pipeline.tables());
        Set<String> settled = snapshot.of(Settlements.SCHEMA).stream()
                .map(item -> Attr.stringOr(item, Settlements.AUTHORISATION_ID, "")).collect(Collectors.toSet());
        snapshot.of(Authorisations.SCHEMA).stream()
                .filter(item -> Authorisations.STATE_AUTHORISED.equals(Attr.stringOr(item, Authorisations.STATE, ""))
                        && item.containsKey(Authorisations.PENDING_SHARD) && !item.containsKey(Authorisations.END_KIND)
                        && Attr.numberOr(item, Authorisations.AUTHORISED_AT, Long.MAX_VALUE) < cutoff.toEpochMilli())
                .map(item -> Attr.stringOr(item, Authorisations.AUTHORISATION_ID, ""))
                .filter(id -> !id.isEmpty() && !settled.contains(id))
                .sorted().limit(COUNT)
                .forEach(id -> operations.add(Candidate.operationIdFor(id)));
        for (String operation : operations) {
            pipeline.provider().forceNext(operation, Fault.PERFORM_THEN_DROP);
            pipeline.provider().forceNext(operation, Fault.MALFORMED);
        }
        console.accept("scenario provider-lost-response: the provider performs the first release of " + operations.size()
                + " commands tonight and loses the answer; the retry's answer is outside the contract (QUARANTINED)");
    }

    /**
     * Before a later night: once the provider has forgotten every lost command's key by the night's start (its first
     * attempt at least {@code providerKeeps} before), the operator requeues those still parked, keeping their first attempt.
     */
    void requeueOnceForgotten(LocalPipeline pipeline, int night, Instant nightStart, Duration providerKeeps, Instant now,
                              Consumer<String> console) {
        if (requeuedBeforeNight != null || operations.isEmpty()) {
            return;
        }
        List<Instant> firstAttempts = new ArrayList<>();
        for (String operation : operations) {
            Map<String, AttributeValue> item = command(pipeline, operation);
            if (item == null || !item.containsKey(ReleaseCommands.FIRST_ATTEMPT_AT)) {
                return;
            }
            firstAttempts.add(Instant.ofEpochMilli(Attr.numberOr(item, ReleaseCommands.FIRST_ATTEMPT_AT, 0)));
        }
        Instant latest = firstAttempts.stream().max(Instant::compareTo).orElseThrow();
        if (nightStart.isBefore(latest.plus(providerKeeps))) {
            return;
        }
        ParkedCommands parked = new ParkedCommands(pipeline.dynamo(), pipeline.tables().releaseCommands());
        int requeued = 0;
        for (String operation : operations) {
            if (parked.requeue(operation, REQUEUE_NOTE, now) instanceof ParkedCommands.Requeue.Requeued) {
                requeued++;
            }
        }
        requeuedBeforeNight = night;
        console.accept("night " + night + ": the operator requeues " + requeued + " of the " + operations.size()
                + " commands whose answers were lost (first attempted " + Duration.between(latest, nightStart).toHours()
                + " h before tonight; the provider keeps keys " + providerKeeps + ")");
    }

    Optional<Outcome> outcome(LocalPipeline pipeline) {
        if (operations.isEmpty()) {
            return Optional.empty();
        }
        Map<String, String> statuses = new LinkedHashMap<>();
        Map<String, Integer> performed = new LinkedHashMap<>();
        boolean once = true;
        for (String operation : operations) {
            Map<String, AttributeValue> item = command(pipeline, operation);
            String status = item == null ? "MISSING" : Attr.stringOr(item, ReleaseCommands.STATUS, "MISSING");
            String authorisationId = item == null ? "" : Attr.stringOr(item, ReleaseCommands.AUTHORISATION_ID, "");
            int releases = pipeline.provider().releasesOf(authorisationId).size();
            statuses.put(operation, status);
            performed.put(operation, releases);
            once &= ReleaseCommands.STATUS_DELIVERED.equals(status) && releases == 1;
        }
        return Optional.of(new Outcome(List.copyOf(operations), requeuedBeforeNight, statuses, performed, once && requeuedBeforeNight != null));
    }

    private static Map<String, AttributeValue> command(LocalPipeline pipeline, String operationId) {
        Map<String, AttributeValue> item = pipeline.dynamo().getItem(b -> b.tableName(pipeline.tables().releaseCommands()).consistentRead(true)
                .key(Map.of(ReleaseCommands.OPERATION_ID, AttributeValue.fromS(operationId)))).item();
        return item == null || item.isEmpty() ? null : item;
    }
}
