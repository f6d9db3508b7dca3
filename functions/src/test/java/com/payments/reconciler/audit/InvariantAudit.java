package com.payments.reconciler.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.audit.AppliedWrite.WrittenItem;
import com.payments.reconciler.store.Attr;
import com.payments.reconciler.store.TableNames;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import com.payments.reconciler.store.Tables.Settlements;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Checks the invariants of docs/design.md §9 from the world only: a scan of the tables, the engine's log of applied
 * writes with each written item's image before and after ({@link AppliedWrite}), and the provider's record of
 * every release it performed ({@link ProviderRelease}). It never reads the workers' reports, and it reads their
 * requests only for what an applied write leaves no trace of in any item: which lease a transaction's
 * ConditionCheck named and the epoch and owner it claimed.
 *
 * <ul>
 *   <li><b>I1 no stale commit</b>: following each lease item's epoch and holder through its applied images,
 *   every protected write — any change to a ReleaseCommands item (except the operator's requeue of a parked
 *   command, counted in {@link Report#operatorRequeues}, and an asynchronous provider's outcome written by IngestEvents
 *   without the lease, counted in {@link Report#providerOutcomes}) and any write leaving an authorisation
 *   RELEASE_REQUESTED or changing one that was (except ingestion's note beside a decision, which leaves its state,
 *   version and pending shard as they were) — carries the lease's current epoch at the moment it was
 *   applied, while the lease had a holder. A command carries the epoch of its status ({@code epoch} while
 *   PENDING, {@code deliveredEpoch} once DELIVERED or REJECTED, {@code endedEpoch} once CANCELLED_SETTLED,
 *   CANCELLED_ENDED, QUARANTINED or ESCALATED), as its new image shows; an authorisation carries none, so it carries its
 *   transaction's lease check, or, without one, the epoch of the command written beside it. A lease
 *   ConditionCheck's claimed epoch and owner must also be the lease's at that moment. A protected write that
 *   carries no epoch at all is a violation; one that carries the current epoch but was applied without a lease
 *   check is not a stale commit and is listed in {@link Report#unfencedWrites}.</li>
 *   <li><b>I2 one release per hold</b>: the provider performed at most one release per authorisation, counted
 *   from its record by authorisation, whichever keys the requests carried; and the outbox holds at most one
 *   command per authorisation.</li>
 *   <li><b>I3 no release of a settled authorisation</b>: no release decision (an authorisation becoming
 *   RELEASE_REQUESTED, or a command created) was applied while a settlement for it was stored — a settlement
 *   however it was written, including one already there when the log began; and no release was performed by
 *   the provider after the {@code settledAt} of a settlement in the Settlements table. The second holds for
 *   settlements that arrived before the delivery read them; one arriving while the provider performs is out
 *   of any worker's reach and would be reported here.</li>
 *   <li><b>I4 nothing lost</b> (checked only when asked, once the window and its reruns are complete): every
 *   authorisation authorised before the cutoff and without a settlement is RELEASE_REQUESTED with a command
 *   (looked up by the command's own {@code authorisationId}) that is DELIVERED and whose release the provider
 *   performed exactly once, under that command's operation id; or that ended in a state the design allows:
 *   REJECTED (the provider's permanent refusal), QUARANTINED or ESCALATED (parked for a person), each counted
 *   in the report; or CANCELLED_ENDED when ingestion recorded an end (a void, an expiry) on the authorisation, counted.
 *   A CANCELLED_SETTLED command of an authorisation that has no settlement is lost, and so is a CANCELLED_ENDED one
 *   whose authorisation records no end. An authorisation
 *   the platform voided or expired before any decision (VOIDED, no command: docs/integration.md) was never eligible.</li>
 *   <li><b>I5 the lease record</b>: across each lease item's applied history it is never deleted, never
 *   overwritten by a Put (PutItem, a transaction's Put, a BatchWriteItem PutRequest), its epoch never
 *   decreases or disappears, a new holder always gets a higher epoch than the item had, and every lease item
 *   ever seen still exists with at least the highest epoch it had.</li>
 * </ul>
 *
 * <p>What this proves is bounded by its inputs: the write log must record every applied write (the local
 * engine's does; it serves one request at a time, so images and order are exact), and the provider's record
 * is the simulated provider's.
 */
public final class InvariantAudit {

    private final TableNames tables;

    public InvariantAudit(TableNames tables) {
        this.tables = tables;
    }

    public record Violation(String invariant, String detail) {
    }

    /**
     * @param rejectedCommands eligible authorisations whose command the provider permanently refused
     * @param parkedCommands eligible authorisations whose command waits for a person (QUARANTINED, ESCALATED)
     * @param cancelledSettledCommands commands ended unsent because their authorisation settled
     * @param cancelledEndedCommands commands ended unsent because their authorisation was voided or expired
     * @param operatorRequeues parked commands an operator put back to PENDING (the one unfenced write the design allows)
     * @param unfencedWrites protected writes that carried the current epoch but were applied without a lease check
     * @param providerOutcomes commands ended by an asynchronous provider's outcome (IngestEvents' {@code provider.outcome}
     *                         write, made without the lease by design: the provider's fact, not a decision)
     */
    public record Report(Map<String, Boolean> invariants, List<Violation> violations, int rejectedCommands, int parkedCommands,
                         int cancelledSettledCommands, int cancelledEndedCommands, int operatorRequeues, List<String> unfencedWrites,
                         int providerOutcomes) {
        public boolean allHold() {
            return violations.isEmpty();
        }
    }

    /**
     * When to check I4: the window (and its reruns) is complete.
     *
     * @param cutoff the window's cutoff: authorisations before it are eligible
     * @param requireDelivered whether the command must also be DELIVERED and performed (false when only decisions ran)
     * @param declaredBacklog commands the run reported left PENDING for the next run: up to this many may be
     *                        PENDING; one more is lost. What the run declared is checked against the tables, not trusted.
     * @param heldWhole the ingestion dead-letter queue held messages (or could not be read) while the night ran, read by the
     *                  caller with the night's own rule ({@code DeadLetterDepth}): every AUTHORISED, uncommanded
     *                  authorisation was held for feed, kept and not lost (design.md, "Held for feed")
     */
    public record Completion(Instant cutoff, boolean requireDelivered, long declaredBacklog, boolean heldWhole) {
        public Completion(Instant cutoff, boolean requireDelivered, long declaredBacklog) {
            this(cutoff, requireDelivered, declaredBacklog, false);
        }

        public Completion(Instant cutoff, boolean requireDelivered) {
            this(cutoff, requireDelivered, 0);
        }
    }

    /** A lease item as its applied images left it. */
    private static final class LeaseState {
        boolean exists;
        long epoch;
        String owner;
        long highest;

        LeaseState(JsonNode image) {
            set(image);
            highest = epoch;
        }

        void set(JsonNode image) {
            exists = image != null;
            epoch = image == null ? 0 : number(image, Leases.EPOCH, 0);
            owner = image == null ? null : text(image, Leases.OWNER);
            highest = Math.max(highest, epoch);
        }
    }

    /** One write's problems, each with the items it concerns: one violation per problem and write, as one commit. */
    private static final class Findings {
        final Map<Map.Entry<String, String>, List<String>> problems = new LinkedHashMap<>();

        void add(String invariant, String problem, String item) {
            List<String> items = problems.computeIfAbsent(Map.entry(invariant, problem), k -> new ArrayList<>());
            if (!items.contains(item)) {
                items.add(item);
            }
        }
    }

    /** What a transaction's ConditionCheck on a lease item claimed. */
    private record LeaseCheck(String lease, Long epoch, String owner) {
    }

    /**
     * @param releases every release the provider performed (its own record)
     * @param completion when I4 is to be checked, or null while the window is still open
     * @throws IllegalArgumentException when a logged write records no item images: such a log cannot be audited
     */
    /** A TransactWriteItems whose actions are all ConditionChecks names no item it writes. */
    private static boolean namesNoWrittenItem(AppliedWrite write) {
        if (!"TransactWriteItems".equals(write.operation())) {
            return false;
        }
        for (com.fasterxml.jackson.databind.JsonNode action : write.request().path("TransactItems")) {
            if (!action.has("ConditionCheck") || action.size() != 1) {
                return false;
            }
        }
        return true;
    }

    public Report audit(StoreSnapshot state, List<AppliedWrite> writes, List<ProviderRelease> releases, Completion completion) {
        List<Violation> violations = new ArrayList<>();
        List<String> unfenced = new ArrayList<>();
        int[] requeues = {0, 0}; // operator requeues, provider outcomes: the two writes to commands made without the lease

        Map<String, LeaseState> leases = initialLeases(state, writes);
        Set<String> settledNow = initialSettlements(state, writes);
        Map<String, Long> settledSince = new HashMap<>();

        for (AppliedWrite write : writes) {
            if (write.items().isEmpty()) {
                if (namesNoWrittenItem(write)) {
                    continue;   // e.g. a transaction of condition checks only: it wrote nothing
                }
                throw new IllegalArgumentException("write " + write.seq() + " (" + write.operation()
                        + ") records no item images: the engine's write log must record them");
            }
            // Within one write (atomic), the lease and settlements are taken as they are after it: a stale item
            // committed together with a takeover is still stale.
            for (WrittenItem item : write.items()) {
                if (tables.leases().equals(item.table())) {
                    auditLeaseWrite(write, item, leases, violations);
                } else if (tables.settlements().equals(item.table())) {
                    String id = text(item.newImage() != null ? item.newImage() : item.oldImage(), Settlements.AUTHORISATION_ID);
                    if (item.newImage() != null) {
                        if (settledNow.add(id)) {
                            settledSince.put(id, write.seq());
                        }
                    } else {
                        settledNow.remove(id);
                    }
                }
            }
            List<LeaseCheck> checks = leaseChecks(write);
            Findings findings = new Findings();
            for (WrittenItem item : write.items()) {
                if (tables.authorisations().equals(item.table()) || tables.releaseCommands().equals(item.table())) {
                    auditBusinessWrite(write, item, checks, leases, settledNow, settledSince, findings, unfenced, requeues);
                }
            }
            String at = "write " + write.seq() + " (" + write.operation() + ") ";
            findings.problems.forEach((problem, items) -> violations.add(new Violation(problem.getKey(),
                    at + problem.getValue() + " (" + String.join(", ", items) + ")")));
        }

        Map<String, Map<String, AttributeValue>> snapshotLeases = new HashMap<>();
        state.of(com.payments.reconciler.store.Tables.Leases.SCHEMA)
                .forEach(item -> snapshotLeases.put(Attr.stringOr(item, Leases.LEASE_NAME, ""), item));
        leases.forEach((name, lease) -> {
            Map<String, AttributeValue> stored = snapshotLeases.get(name);
            if (stored == null) {
                violations.add(new Violation("I5", "lease item " + name + " no longer exists"));
            } else if (Attr.numberOr(stored, Leases.EPOCH, 0) < lease.highest) {
                violations.add(new Violation("I5", "lease item " + name + " is stored at epoch " + Attr.numberOr(stored, Leases.EPOCH, 0)
                        + " after it reached epoch " + lease.highest));
            }
        });

        auditOneReleasePerHold(state, releases, violations);
        auditReleasesAfterSettlement(state, releases, violations);
        int[] endings = {0, 0, 0, 0};
        state.of(com.payments.reconciler.store.Tables.ReleaseCommands.SCHEMA).forEach(c -> {
            String status = Attr.stringOr(c, ReleaseCommands.STATUS, "");
            if (ReleaseCommands.STATUS_CANCELLED_SETTLED.equals(status)) {
                endings[2]++;
            } else if (ReleaseCommands.STATUS_CANCELLED_ENDED.equals(status)) {
                endings[3]++;
            }
        });
        if (completion != null) {
            int[] counted = auditNothingLost(state, releases, completion, violations);
            endings[0] = counted[0];
            endings[1] = counted[1];
        }

        Map<String, Boolean> invariants = new LinkedHashMap<>();
        for (String name : List.of("I1", "I2", "I3", "I4", "I5")) {
            invariants.put(name, violations.stream().noneMatch(v -> v.invariant().equals(name)));
        }
        return new Report(invariants, List.copyOf(violations), endings[0], endings[1], endings[2], endings[3], requeues[0], List.copyOf(unfenced),
                requeues[1]);
    }

    /** Each lease as it was when the log began: its first logged write's old image, or the snapshot if never written. */
    private Map<String, LeaseState> initialLeases(StoreSnapshot state, List<AppliedWrite> writes) {
        Map<String, LeaseState> leases = new TreeMap<>();
        for (AppliedWrite write : writes) {
            for (WrittenItem item : write.items()) {
                if (tables.leases().equals(item.table())) {
                    String name = item.key().path(Leases.LEASE_NAME).path("S").asText();
                    leases.computeIfAbsent(name, n -> new LeaseState(item.oldImage()));
                }
            }
        }
        for (Map<String, AttributeValue> item : state.of(com.payments.reconciler.store.Tables.Leases.SCHEMA)) {
            String name = Attr.stringOr(item, Leases.LEASE_NAME, "");
            if (!leases.containsKey(name)) {
                LeaseState lease = new LeaseState(null);
                lease.exists = true;
                lease.epoch = Attr.numberOr(item, Leases.EPOCH, 0);
                lease.owner = Attr.stringOr(item, Leases.OWNER, null);
                lease.highest = lease.epoch;
                leases.put(name, lease);
            }
        }
        return leases;
    }

    /** Settlements stored when the log began: those its first logged write found, and those it never touched. */
    private Set<String> initialSettlements(StoreSnapshot state, List<AppliedWrite> writes) {
        Set<String> touched = new HashSet<>();
        Set<String> present = new HashSet<>();
        for (AppliedWrite write : writes) {
            for (WrittenItem item : write.items()) {
                if (tables.settlements().equals(item.table())) {
                    String id = item.key().path(Settlements.AUTHORISATION_ID).path("S").asText();
                    if (touched.add(id) && item.oldImage() != null) {
                        present.add(id);
                    }
                }
            }
        }
        for (Map<String, AttributeValue> item : state.of(com.payments.reconciler.store.Tables.Settlements.SCHEMA)) {
            String id = Attr.stringOr(item, Settlements.AUTHORISATION_ID, "");
            if (!touched.contains(id)) {
                present.add(id);
            }
        }
        return present;
    }

    /** I5 from one applied write to a lease item, whatever request produced it. */
    private static void auditLeaseWrite(AppliedWrite write, WrittenItem item, Map<String, LeaseState> leases, List<Violation> violations) {
        String name = item.key().path(Leases.LEASE_NAME).path("S").asText();
        LeaseState lease = leases.get(name);
        JsonNode before = item.oldImage();
        JsonNode after = item.newImage();
        String at = " at write " + write.seq() + " (" + write.operation() + ")";
        if (before != null && after == null) {
            violations.add(new Violation("I5", "lease item " + name + " deleted" + at + " at epoch " + lease.epoch));
        } else if (before != null && isPut(write, item)) {
            violations.add(new Violation("I5", "lease item " + name + " overwritten by a Put" + at + ": epoch "
                    + lease.epoch + " -> " + describeEpoch(after)));
        }
        if (after != null) {
            long epoch = number(after, Leases.EPOCH, Long.MIN_VALUE);
            String owner = text(after, Leases.OWNER);
            if (epoch == Long.MIN_VALUE && lease.highest > 0) {
                violations.add(new Violation("I5", "lease item " + name + " lost its epoch" + at + " after epoch " + lease.highest));
            } else if (epoch != Long.MIN_VALUE && epoch < lease.highest) {
                violations.add(new Violation("I5", "lease item " + name + " epoch decreased to " + epoch + at + " after epoch " + lease.highest));
            } else if (owner != null && !owner.equals(lease.owner) && epoch <= lease.epoch && lease.exists) {
                violations.add(new Violation("I5", "lease item " + name + " passed to " + owner + at + " without a higher epoch (still "
                        + epoch + ")"));
            }
        }
        lease.set(after);
    }

    /** Whether {@code item} was written by a Put of this write (PutItem, a transaction's Put, a BatchWriteItem PutRequest). */
    private static boolean isPut(AppliedWrite write, WrittenItem item) {
        return switch (write.operation()) {
            case "PutItem" -> true;
            case "TransactWriteItems" -> {
                for (JsonNode action : write.request().path("TransactItems")) {
                    JsonNode put = action.path("Put");
                    if (!put.isMissingNode() && item.table().equals(put.path("TableName").asText()) && sameKey(item, put.path("Item"))) {
                        yield true;
                    }
                }
                yield false;
            }
            case "BatchWriteItem" -> {
                for (JsonNode request : write.request().path("RequestItems").path(item.table())) {
                    if (request.has("PutRequest") && sameKey(item, request.path("PutRequest").path("Item"))) {
                        yield true;
                    }
                }
                yield false;
            }
            default -> false;
        };
    }

    private static boolean sameKey(WrittenItem item, JsonNode attributes) {
        for (var field : item.key().properties()) {
            if (!field.getValue().equals(attributes.path(field.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** The lease ConditionChecks of a transaction: which lease, and the epoch and owner they claimed. */
    private List<LeaseCheck> leaseChecks(AppliedWrite write) {
        List<LeaseCheck> checks = new ArrayList<>();
        if (!"TransactWriteItems".equals(write.operation())) {
            return checks;
        }
        for (JsonNode action : write.request().path("TransactItems")) {
            JsonNode check = action.path("ConditionCheck");
            if (check.isMissingNode() || !tables.leases().equals(check.path("TableName").asText())) {
                continue;
            }
            // The claimed values, whatever they are named: one number (the epoch) and one string (the owner).
            List<Long> numbers = new ArrayList<>();
            List<String> strings = new ArrayList<>();
            check.path("ExpressionAttributeValues").forEach(value -> {
                if (value.has("N")) {
                    numbers.add(Long.parseLong(value.path("N").asText()));
                } else if (value.has("S")) {
                    strings.add(value.path("S").asText());
                }
            });
            checks.add(new LeaseCheck(check.path("Key").path(Leases.LEASE_NAME).path("S").asText(),
                    numbers.size() == 1 ? numbers.getFirst() : null, strings.size() == 1 ? strings.getFirst() : null));
        }
        return checks;
    }

    private void auditBusinessWrite(AppliedWrite write, WrittenItem item, List<LeaseCheck> checks, Map<String, LeaseState> leases,
                                    Set<String> settledNow, Map<String, Long> settledSince, Findings findings,
                                    List<String> unfenced, int[] requeues) {
        JsonNode before = item.oldImage();
        JsonNode after = item.newImage();
        boolean command = tables.releaseCommands().equals(item.table());
        String authorisationId;
        Long carried;
        String what;
        boolean decision;
        if (command) {
            String oldStatus = before == null ? null : text(before, ReleaseCommands.STATUS);
            String newStatus = after == null ? null : text(after, ReleaseCommands.STATUS);
            if (oldStatus != null && ReleaseCommands.PARKED.contains(oldStatus) && ReleaseCommands.STATUS_PENDING.equals(newStatus)
                    && after.has(ReleaseCommands.REQUEUED_AT) && !after.path(ReleaseCommands.REQUEUED_AT).equals(before.path(ReleaseCommands.REQUEUED_AT))) {
                requeues[0]++; // a person's decision on a command no worker holds; not a worker's write
                return;
            }
            if (checks.isEmpty() && providerOutcome(before, after)) {
                requeues[1]++; // the provider's fact about a request already made (ProviderOutcomes), written without the lease
                return;
            }
            authorisationId = text(after != null ? after : before, ReleaseCommands.AUTHORISATION_ID);
            carried = after == null ? null : commandEpoch(after);
            if (before != null && after != null && ReleaseCommands.STATUS_PENDING.equals(oldStatus) && ReleaseCommands.STATUS_PENDING.equals(newStatus)
                    && sameBut(before, after, ReleaseCommands.FIRST_ATTEMPT_AT)) {
                // A delivery's first-attempt stamp: the command's epoch is its issuer's, the write's is its lease check's.
                carried = null;
            }
            decision = before == null && after != null;
            what = item.key().path(ReleaseCommands.OPERATION_ID).path("S").asText()
                    + (after == null ? " deleted" : " " + (oldStatus == null ? "created" : oldStatus + " ->") + " " + newStatus);
        } else {
            boolean releasedBefore = before != null && Authorisations.STATE_RELEASE_REQUESTED.equals(text(before, Authorisations.STATE));
            boolean releasedAfter = after != null && Authorisations.STATE_RELEASE_REQUESTED.equals(text(after, Authorisations.STATE));
            boolean settledAfter = after != null && Authorisations.STATE_SETTLED.equals(text(after, Authorisations.STATE));
            if (!releasedAfter && !(releasedBefore && !settledAfter)) {
                return; // the card system's and ingestion's writes: not this job's to fence
            }
            if (releasedBefore && releasedAfter && unchanged(before, after, Authorisations.STATE, Authorisations.VERSION,
                    Authorisations.PENDING_SHARD)) {
                return; // ingestion's note beside a decision (a void after it): nothing the leader decided has moved
            }
            authorisationId = item.key().path(Authorisations.AUTHORISATION_ID).path("S").asText();
            decision = releasedAfter && !releasedBefore;
            carried = commandEpochBeside(write, authorisationId);
            what = "released " + authorisationId;
            if (!releasedAfter) {
                what = authorisationId + " changed from RELEASE_REQUESTED to " + (after == null ? "deleted" : text(after, Authorisations.STATE));
            }
        }
        if (decision && authorisationId != null && settledNow.contains(authorisationId)) {
            Long since = settledSince.get(authorisationId);
            findings.add("I3", "decided a release while its settlement was stored ("
                    + (since == null ? "since before the log began" : "written at write " + since) + ")", authorisationId);
        }

        if (checks.isEmpty()) {
            if (carried == null) {
                findings.add("I1", "carrying no epoch, without a lease check", what);
                return;
            }
            LeaseState lease = soleOrNewest(leases);
            if (lease == null) {
                findings.add("I1", "carrying epoch " + carried + " with no lease in existence", what);
            } else if (!staleOrAhead(carried, lease, findings, what)) {
                if (lease.owner == null) {
                    findings.add("I1", "carrying epoch " + carried + " applied while the lease had no holder", what);
                } else {
                    unfenced.add("write " + write.seq() + " (" + write.operation() + ") " + what + " carrying the current epoch "
                            + carried + " without a lease check");
                }
            }
            return;
        }
        for (LeaseCheck check : checks) {
            LeaseState lease = leases.get(check.lease());
            if (lease == null || !lease.exists) {
                findings.add("I1", "checked lease " + check.lease() + ", which did not exist", what);
                continue;
            }
            if (check.epoch() == null) {
                findings.add("I1", "checked lease " + check.lease() + " claiming no single epoch", what);
            } else {
                staleOrAhead(check.epoch(), lease, findings, what);
            }
            if (carried != null && !carried.equals(check.epoch())) {
                staleOrAhead(carried, lease, findings, what);
            }
            if (lease.owner == null) {
                findings.add("I1", "applied while lease " + check.lease() + " had no holder", what);
            } else if (check.owner() != null && !check.owner().equals(lease.owner)) {
                findings.add("I1", "claimed lease " + check.lease() + " for " + check.owner() + " while " + lease.owner + " held it", what);
            }
        }
    }

    /** Whether the item images agree on every attribute but {@code except}. */
    /** What IngestEvents' provider.outcome write changes on a command, and nothing else (ProviderOutcomes.DELIVER/REJECT). */
    private static final java.util.Set<String> OUTCOME_ATTRIBUTES = java.util.Set.of(ReleaseCommands.STATUS,
            ReleaseCommands.DELIVERED_AT, ReleaseCommands.REQUEST_REFERENCE, ReleaseCommands.OUTCOME_EVENT_ID,
            ReleaseCommands.OUTCOME_AT, ReleaseCommands.REJECTION_REASON, ReleaseCommands.DELIVERY_SHARD,
            ReleaseCommands.AWAITING_SHARD);

    /**
     * A provider outcome: a command PENDING or ACKNOWLEDGED ended DELIVERED or REJECTED with an outcome event id it did not
     * have, changing only the outcome's attributes (never its epoch, attempts, amount or issuer).
     */
    private static boolean providerOutcome(JsonNode before, JsonNode after) {
        if (before == null || after == null) {
            return false;
        }
        String oldStatus = text(before, ReleaseCommands.STATUS);
        String newStatus = text(after, ReleaseCommands.STATUS);
        if (oldStatus == null || newStatus == null
                || !List.of(ReleaseCommands.STATUS_PENDING, ReleaseCommands.STATUS_ACKNOWLEDGED).contains(oldStatus)
                || !List.of(ReleaseCommands.STATUS_DELIVERED, ReleaseCommands.STATUS_REJECTED).contains(newStatus)
                || before.has(ReleaseCommands.OUTCOME_EVENT_ID) || !after.has(ReleaseCommands.OUTCOME_EVENT_ID)) {
            return false;
        }
        java.util.Set<String> names = new java.util.HashSet<>();
        before.fieldNames().forEachRemaining(names::add);
        after.fieldNames().forEachRemaining(names::add);
        names.removeAll(OUTCOME_ATTRIBUTES);
        return names.stream().allMatch(name -> before.path(name).equals(after.path(name)));
    }

    private static boolean sameBut(JsonNode before, JsonNode after, String except) {
        java.util.Set<String> names = new java.util.HashSet<>();
        before.fieldNames().forEachRemaining(names::add);
        after.fieldNames().forEachRemaining(names::add);
        names.remove(except);
        for (String name : names) {
            if (!before.path(name).equals(after.path(name))) {
                return false;
            }
        }
        return true;
    }

    /** Whether the item images agree on each of {@code attributes} (both absent counts as agreeing). */
    private static boolean unchanged(JsonNode before, JsonNode after, String... attributes) {
        for (String attribute : attributes) {
            if (!before.path(attribute).equals(after.path(attribute))) {
                return false;
            }
        }
        return true;
    }

    /** Records an epoch other than the lease's current one; returns whether it did. */
    private static boolean staleOrAhead(long epoch, LeaseState lease, Findings findings, String what) {
        if (epoch < lease.epoch) {
            findings.add("I1", "carrying epoch " + epoch + " applied after the takeover to epoch " + lease.epoch, what);
            return true;
        }
        if (epoch > lease.epoch) {
            findings.add("I1", "carrying epoch " + epoch + " applied while the lease was at epoch " + lease.epoch, what);
            return true;
        }
        return false;
    }

    /** The epoch a command's image carries for its status: the one stamped by the write that gave it that status. */
    private static Long commandEpoch(JsonNode command) {
        String status = text(command, ReleaseCommands.STATUS);
        String attribute = switch (status == null ? "" : status) {
            case ReleaseCommands.STATUS_PENDING -> ReleaseCommands.EPOCH;
            case ReleaseCommands.STATUS_DELIVERED, ReleaseCommands.STATUS_REJECTED -> ReleaseCommands.DELIVERED_EPOCH;
            case ReleaseCommands.STATUS_CANCELLED_SETTLED, ReleaseCommands.STATUS_CANCELLED_ENDED, ReleaseCommands.STATUS_QUARANTINED,
                 ReleaseCommands.STATUS_ESCALATED ->
                    ReleaseCommands.ENDED_EPOCH;
            default -> null;
        };
        if (attribute == null || !command.path(attribute).has("N")) {
            return null;
        }
        return command.path(attribute).path("N").asLong();
    }

    /** An authorisation carries no epoch: the epoch of the command for it that the same write produced, if any. */
    private Long commandEpochBeside(AppliedWrite write, String authorisationId) {
        for (WrittenItem other : write.items()) {
            if (tables.releaseCommands().equals(other.table()) && other.newImage() != null
                    && authorisationId.equals(text(other.newImage(), ReleaseCommands.AUTHORISATION_ID))) {
                return commandEpoch(other.newImage());
            }
        }
        return null;
    }

    /** Without a lease check there is no lease name: the only lease, or the one with the highest epoch. */
    private static LeaseState soleOrNewest(Map<String, LeaseState> leases) {
        return leases.values().stream().filter(l -> l.exists).max(java.util.Comparator.comparingLong(l -> l.epoch)).orElse(null);
    }

    /** I2 from the provider's record, by hold; and the outbox side, by the commands' own authorisation ids. */
    private static void auditOneReleasePerHold(StoreSnapshot state, List<ProviderRelease> releases, List<Violation> violations) {
        Map<String, List<ProviderRelease>> byHold = releases.stream()
                .collect(Collectors.groupingBy(ProviderRelease::authorisationId, TreeMap::new, Collectors.toList()));
        byHold.forEach((id, performed) -> {
            if (performed.size() > 1) {
                violations.add(new Violation("I2", id + " released " + performed.size() + " times by the provider (keys "
                        + performed.stream().map(ProviderRelease::operationId).toList() + ")"));
            }
        });
        Map<String, List<String>> commands = new TreeMap<>();
        state.of(com.payments.reconciler.store.Tables.ReleaseCommands.SCHEMA).forEach(c -> commands
                .computeIfAbsent(Attr.stringOr(c, ReleaseCommands.AUTHORISATION_ID, ""), k -> new ArrayList<>())
                .add(Attr.stringOr(c, ReleaseCommands.OPERATION_ID, "")));
        commands.forEach((id, ops) -> {
            if (ops.size() > 1) {
                violations.add(new Violation("I2", id + " has " + ops.size() + " release commands " + ops));
            }
        });
    }

    /** I3 at the provider call: every performed release against the settlement's own time. */
    private static void auditReleasesAfterSettlement(StoreSnapshot state, List<ProviderRelease> releases, List<Violation> violations) {
        Map<String, Long> settledAt = new HashMap<>();
        state.of(com.payments.reconciler.store.Tables.Settlements.SCHEMA).forEach(item -> settledAt.put(
                Attr.stringOr(item, Settlements.AUTHORISATION_ID, ""), Attr.numberOr(item, Settlements.SETTLED_AT, Long.MIN_VALUE)));
        Set<String> reported = new HashSet<>();
        for (ProviderRelease release : releases) {
            Long settled = settledAt.get(release.authorisationId());
            if (settled != null && release.performedAt() > settled && reported.add(release.authorisationId())) {
                violations.add(new Violation("I3", release.authorisationId() + " released by the provider at "
                        + Instant.ofEpochMilli(release.performedAt()) + " after its settlement at "
                        + (settled == Long.MIN_VALUE ? "an unrecorded time" : Instant.ofEpochMilli(settled))));
            }
        }
    }

    /** Returns {rejected, parked}. */
    private static int[] auditNothingLost(StoreSnapshot state, List<ProviderRelease> releases, Completion completion, List<Violation> violations) {
        Instant cutoff = completion.cutoff();
        Set<String> settled = new HashSet<>();
        state.of(com.payments.reconciler.store.Tables.Settlements.SCHEMA)
                .forEach(item -> settled.add(Attr.stringOr(item, Settlements.AUTHORISATION_ID, "")));
        Map<String, Map<String, AttributeValue>> commands = new HashMap<>();
        state.of(com.payments.reconciler.store.Tables.ReleaseCommands.SCHEMA)
                .forEach(item -> commands.putIfAbsent(Attr.stringOr(item, ReleaseCommands.AUTHORISATION_ID, ""), item));
        Map<String, List<ProviderRelease>> performed = releases.stream().collect(Collectors.groupingBy(ProviderRelease::authorisationId));
        int rejected = 0;
        int parked = 0;
        List<String> pending = new ArrayList<>();
        for (Map<String, AttributeValue> auth : state.of(com.payments.reconciler.store.Tables.Authorisations.SCHEMA)) {
            String id = Attr.stringOr(auth, Authorisations.AUTHORISATION_ID, "");
            long authorisedAt = Attr.numberOr(auth, Authorisations.AUTHORISED_AT, Long.MAX_VALUE);
            if (settled.contains(id) || authorisedAt >= cutoff.toEpochMilli()) {
                continue;
            }
            String stateName = Attr.stringOr(auth, Authorisations.STATE, "");
            Map<String, AttributeValue> command = commands.get(id);
            boolean heldForFeed = completion.heldWhole() || settled.contains(Settlements.NIGHT_WIDE_HOLD_KEY)
                    || settled.contains(Settlements.heldKey(id));
            if (heldForFeed && Authorisations.STATE_AUTHORISED.equals(stateName) && command == null) {
                continue; // held for feed: a refused settlement may concern it, so it is kept, not lost (design.md, "Held for feed")
            }
            String status = command == null ? "none" : Attr.stringOr(command, ReleaseCommands.STATUS, "?");
            if (Authorisations.STATE_VOIDED.equals(stateName) && command == null) {
                continue; // voided or expired at the platform before any decision: no hold left to release
            }
            if (!Authorisations.STATE_RELEASE_REQUESTED.equals(stateName)) {
                violations.add(new Violation("I4", id + " is " + stateName + " with command " + status));
                continue;
            }
            if (command == null) {
                violations.add(new Violation("I4", id + " is RELEASE_REQUESTED with no command"));
                continue;
            }
            if (ReleaseCommands.STATUS_REJECTED.equals(status)) {
                // A refusal is an end only when nothing was released for this command: a command whose own operation the
                // provider performed (a lost answer, then a repeat the provider no longer recognised) is not "rejected".
                String operationId = Attr.stringOr(command, ReleaseCommands.OPERATION_ID, "");
                if (performed.getOrDefault(id, List.of()).stream().anyMatch(r -> r.operationId().equals(operationId))) {
                    violations.add(new Violation("I4", id + " command ended REJECTED but the provider performed its release under "
                            + operationId));
                    continue;
                }
                rejected++;
                continue;
            }
            if (ReleaseCommands.PARKED.contains(status)) {
                parked++;
                continue;
            }
            if (ReleaseCommands.STATUS_CANCELLED_SETTLED.equals(status)) {
                violations.add(new Violation("I4", id + " command ended CANCELLED_SETTLED but no settlement exists for it"));
                continue;
            }
            if (ReleaseCommands.STATUS_CANCELLED_ENDED.equals(status)) {
                if (!auth.containsKey(Authorisations.END_KIND)) {
                    violations.add(new Violation("I4", id + " command ended CANCELLED_ENDED but its authorisation records no end"));
                }
                continue;
            }
            if (!completion.requireDelivered()) {
                continue;
            }
            if (ReleaseCommands.STATUS_PENDING.equals(status) && pending.size() < completion.declaredBacklog()) {
                pending.add(id);
                continue;
            }
            if (!ReleaseCommands.STATUS_DELIVERED.equals(status)) {
                violations.add(new Violation("I4", id + " is " + stateName + " with command " + status
                        + (completion.declaredBacklog() > 0 ? " beyond the " + completion.declaredBacklog() + " the run declared left" : "")));
                continue;
            }
            String operationId = Attr.stringOr(command, ReleaseCommands.OPERATION_ID, "");
            List<ProviderRelease> done = performed.getOrDefault(id, List.of());
            long underItsKey = done.stream().filter(r -> r.operationId().equals(operationId)).count();
            if (done.isEmpty()) {
                violations.add(new Violation("I4", id + " marked DELIVERED but the provider never performed its release"));
            } else if (underItsKey != 1 || done.size() != 1) {
                violations.add(new Violation("I4", id + " marked DELIVERED but the provider performed " + done.size()
                        + " release(s) for it, " + underItsKey + " under " + operationId));
            }
        }
        return new int[] {rejected, parked};
    }

    private static String describeEpoch(JsonNode image) {
        long epoch = image == null ? Long.MIN_VALUE : number(image, Leases.EPOCH, Long.MIN_VALUE);
        return epoch == Long.MIN_VALUE ? "none" : Long.toString(epoch);
    }

    private static String text(JsonNode image, String attribute) {
        JsonNode value = image == null ? null : image.path(attribute).get("S");
        return value == null ? null : value.asText();
    }

    private static long number(JsonNode image, String attribute, long otherwise) {
        JsonNode value = image == null ? null : image.path(attribute).get("N");
        return value == null ? otherwise : Long.parseLong(value.asText());
    }
}
