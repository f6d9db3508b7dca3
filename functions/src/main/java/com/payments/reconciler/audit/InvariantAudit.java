package com.payments.reconciler.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.store.Attr;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.store.Tables.Settlements;
import com.payments.reconciler.reconcile.Candidate;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks the invariants of design §9 from what the store and the provider recorded — never from
 * the workers' own reports.
 *
 * <ul>
 *   <li><b>I1 no stale commit</b>: walking the applied writes in order, no business write carrying epoch
 *   e is applied after a takeover to an epoch &gt; e was applied.</li>
 *   <li><b>I2 one effect per operation</b>: the provider performed every operation id at most once.</li>
 *   <li><b>I3 no release of a settled authorisation</b>: no release decision was applied after that
 *   authorisation's settlement was; and, at the provider call, no release was performed after the
 *   {@code settledAt} of a settlement in the Settlements table (however it was written). The second holds
 *   for settlements that arrived before the delivery read them; one arriving while the provider performs is
 *   out of any worker's reach and would be reported here.</li>
 *   <li><b>I4 nothing lost</b> (checked only when asked, once the window and its reruns are complete):
 *   every authorisation authorised before the cutoff and not settled is RELEASE_REQUESTED with a
 *   DELIVERED command (or a REJECTED one: the provider's permanent answer; or one parked for a person,
 *   QUARANTINED or ESCALATED; each counted in the report).</li>
 *   <li><b>I5</b>: lease epochs only grow across takeovers and every lease item still exists.</li>
 * </ul>
 */
public final class InvariantAudit {

    private final TableNames tables;

    public InvariantAudit(TableNames tables) {
        this.tables = tables;
    }

    public record Violation(String invariant, String detail) {
    }

    public record Report(Map<String, Boolean> invariants, List<Violation> violations, int rejectedCommands, int parkedCommands) {
        public boolean allHold() {
            return violations.isEmpty();
        }
    }

    /**
     * When to check I4: the window (and its reruns) is complete.
     *
     * @param cutoff the window's cutoff: authorisations before it are eligible
     * @param requireDelivered whether the command must also be DELIVERED (false when only decisions ran)
     */
    public record Completion(Instant cutoff, boolean requireDelivered) {
    }

    /**
     * @param completion when I4 is to be checked, or null while the window is still open
     */
    public Report audit(StoreSnapshot state, List<AppliedWrite> writes, List<ProviderEffect> effects, Completion completion) {
        List<Violation> violations = new ArrayList<>();
        Set<String> leasesSeen = new HashSet<>();
        Map<String, Long> maxEpoch = new HashMap<>();
        Map<String, Long> settledAtSeq = new HashMap<>();

        for (AppliedWrite write : writes) {
            switch (write.operation()) {
                case "UpdateItem" -> {
                    JsonNode req = write.request();
                    if (tables.leases().equals(req.path("TableName").asText())) {
                        String lease = req.path("Key").path(Leases.LEASE_NAME).path("S").asText();
                        leasesSeen.add(lease);
                        JsonNode epochNode = write.response().path("Attributes").path(Leases.EPOCH).path("N");
                        if (req.path("UpdateExpression").asText().contains("if_not_exists(epoch") && !epochNode.isMissingNode()) {
                            long epoch = Long.parseLong(epochNode.asText());
                            long before = maxEpoch.getOrDefault(lease, 0L);
                            if (epoch <= before) {
                                violations.add(new Violation("I5", "takeover of " + lease + " at write " + write.seq()
                                        + " produced epoch " + epoch + " after epoch " + before));
                            }
                            maxEpoch.put(lease, Math.max(before, epoch));
                        }
                    } else if (isBusinessTable(req.path("TableName").asText())) {
                        violations.add(new Violation("I1", "unfenced UpdateItem on " + req.path("TableName").asText() + " at write " + write.seq()));
                    }
                }
                case "PutItem", "DeleteItem", "BatchWriteItem" -> {
                    JsonNode req = write.request();
                    String table = req.path("TableName").asText();
                    if (tables.settlements().equals(table) && "PutItem".equals(write.operation())) {
                        settledAtSeq.putIfAbsent(req.path("Item").path(Settlements.AUTHORISATION_ID).path("S").asText(), write.seq());
                    }
                    if (tables.leases().equals(table) && "DeleteItem".equals(write.operation())) {
                        violations.add(new Violation("I5", "lease item deleted at write " + write.seq()));
                    }
                }
                case "TransactWriteItems" -> auditTransaction(write, maxEpoch, settledAtSeq, violations);
                default -> {
                }
            }
        }

        for (String lease : leasesSeen) {
            boolean exists = state.of(com.payments.reconciler.store.Tables.Leases.SCHEMA).stream()
                    .anyMatch(item -> lease.equals(Attr.stringOr(item, Leases.LEASE_NAME, null)));
            if (!exists) {
                violations.add(new Violation("I5", "lease item " + lease + " no longer exists"));
            }
        }
        for (ProviderEffect effect : effects) {
            if (effect.performed() > 1) {
                violations.add(new Violation("I2", effect.operationId() + " performed " + effect.performed() + " times"));
            }
        }
        auditReleasesAfterSettlement(state, effects, violations);
        int[] endings = {0, 0};
        if (completion != null) {
            endings = auditNothingLost(state, effects, completion, violations);
        }

        Map<String, Boolean> invariants = new LinkedHashMap<>();
        for (String name : List.of("I1", "I2", "I3", "I4", "I5")) {
            invariants.put(name, violations.stream().noneMatch(v -> v.invariant().equals(name)));
        }
        return new Report(invariants, List.copyOf(violations), endings[0], endings[1]);
    }

    /** I3 at the provider call: every performed release against the settlement's own time. */
    private static void auditReleasesAfterSettlement(StoreSnapshot state, List<ProviderEffect> effects, List<Violation> violations) {
        Map<String, Long> settledAt = new HashMap<>();
        state.of(com.payments.reconciler.store.Tables.Settlements.SCHEMA).forEach(item -> settledAt.put(
                Attr.stringOr(item, Settlements.AUTHORISATION_ID, ""), Attr.numberOr(item, Settlements.SETTLED_AT, Long.MIN_VALUE)));
        for (ProviderEffect effect : effects) {
            Long settled = settledAt.get(effect.authorisationId());
            if (settled == null) {
                continue;
            }
            effect.performedAt().stream().filter(at -> at > settled).findFirst().ifPresent(at -> violations.add(new Violation("I3",
                    effect.authorisationId() + " released by the provider at " + Instant.ofEpochMilli(at) + " after its settlement at "
                            + (settled == Long.MIN_VALUE ? "an unrecorded time" : Instant.ofEpochMilli(settled)))));
        }
    }

    private void auditTransaction(AppliedWrite write, Map<String, Long> maxEpoch, Map<String, Long> settledAtSeq,
                                  List<Violation> violations) {
        Long carried = null;
        String leaseName = null;
        List<String> releasedIds = new ArrayList<>();
        for (JsonNode item : write.request().path("TransactItems")) {
            JsonNode check = item.path("ConditionCheck");
            if (!check.isMissingNode() && tables.leases().equals(check.path("TableName").asText())) {
                leaseName = check.path("Key").path(Leases.LEASE_NAME).path("S").asText();
                carried = Long.parseLong(check.path("ExpressionAttributeValues").path(":epoch").path("N").asText());
            }
            JsonNode put = item.path("Put");
            if (!put.isMissingNode() && tables.releaseCommands().equals(put.path("TableName").asText()) && carried == null) {
                carried = Long.parseLong(put.path("Item").path(ReleaseCommands.EPOCH).path("N").asText("0"));
            }
            JsonNode update = item.path("Update");
            if (!update.isMissingNode()) {
                String table = update.path("TableName").asText();
                if (tables.authorisations().equals(table)
                        && update.path("ExpressionAttributeValues").has(":releaseRequested")) {
                    releasedIds.add(update.path("Key").path(Authorisations.AUTHORISATION_ID).path("S").asText());
                }
                if (tables.releaseCommands().equals(table) && carried == null
                        && update.path("ExpressionAttributeValues").has(":epoch")) {
                    carried = Long.parseLong(update.path("ExpressionAttributeValues").path(":epoch").path("N").asText());
                }
            }
        }
        if (carried != null) {
            long newest = leaseName != null ? maxEpoch.getOrDefault(leaseName, 0L)
                    : maxEpoch.values().stream().mapToLong(Long::longValue).max().orElse(0L);
            if (carried < newest) {
                violations.add(new Violation("I1", "write " + write.seq() + " carrying epoch " + carried
                        + " applied after the takeover to epoch " + newest
                        + (releasedIds.isEmpty() ? "" : " (released " + String.join(", ", releasedIds) + ")")));
            }
        }
        for (String id : releasedIds) {
            Long settled = settledAtSeq.get(id);
            if (settled != null && settled < write.seq()) {
                violations.add(new Violation("I3", id + " released at write " + write.seq() + " after its settlement at write " + settled));
            }
        }
    }

    /** Returns {rejected, parked}. */
    private int[] auditNothingLost(StoreSnapshot state, List<ProviderEffect> effects, Completion completion, List<Violation> violations) {
        Instant cutoff = completion.cutoff();
        Set<String> settled = new HashSet<>();
        state.of(com.payments.reconciler.store.Tables.Settlements.SCHEMA)
                .forEach(item -> settled.add(Attr.stringOr(item, Settlements.AUTHORISATION_ID, "")));
        Map<String, Map<String, AttributeValue>> commands = new HashMap<>();
        state.of(com.payments.reconciler.store.Tables.ReleaseCommands.SCHEMA)
                .forEach(item -> commands.put(Attr.stringOr(item, ReleaseCommands.OPERATION_ID, ""), item));
        Map<String, Integer> performed = new HashMap<>();
        effects.forEach(e -> performed.merge(e.operationId(), e.performed(), Integer::sum));
        int rejected = 0;
        int parked = 0;
        for (Map<String, AttributeValue> auth : state.of(com.payments.reconciler.store.Tables.Authorisations.SCHEMA)) {
            String id = Attr.stringOr(auth, Authorisations.AUTHORISATION_ID, "");
            long authorisedAt = Attr.numberOr(auth, Authorisations.AUTHORISED_AT, Long.MAX_VALUE);
            if (settled.contains(id) || authorisedAt >= cutoff.toEpochMilli()) {
                continue;
            }
            String stateName = Attr.stringOr(auth, Authorisations.STATE, "");
            Map<String, AttributeValue> command = commands.get(Candidate.operationIdFor(id));
            String status = command == null ? "none" : Attr.stringOr(command, ReleaseCommands.STATUS, "?");
            if (ReleaseCommands.STATUS_REJECTED.equals(status)) {
                rejected++;
                continue;
            }
            if (ReleaseCommands.PARKED.contains(status)) {
                parked++;
                continue;
            }
            boolean commandOk = completion.requireDelivered() ? ReleaseCommands.STATUS_DELIVERED.equals(status) : command != null;
            if (!Authorisations.STATE_RELEASE_REQUESTED.equals(stateName) || !commandOk) {
                violations.add(new Violation("I4", id + " is " + stateName + " with command " + status));
            } else if (performed.getOrDefault(Candidate.operationIdFor(id), 1) < 1) {
                violations.add(new Violation("I4", id + " marked DELIVERED but the provider never performed it"));
            }
        }
        return new int[] {rejected, parked};
    }

    private boolean isBusinessTable(String table) {
        return tables.authorisations().equals(table) || tables.releaseCommands().equals(table);
    }
}
