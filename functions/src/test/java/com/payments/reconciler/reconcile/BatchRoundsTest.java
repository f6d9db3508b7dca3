package com.payments.reconciler.reconcile;

import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.reconcile.BatchRounds.Answer;
import com.payments.reconciler.reconcile.BatchRounds.Round;
import com.payments.reconciler.reconcile.BatchRounds.Undecided;
import com.payments.reconciler.reconcile.Cancellations.Verdict;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.Leases;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static com.payments.reconciler.reconcile.CancellationReasons.code;
import static com.payments.reconciler.reconcile.CancellationReasons.failed;
import static com.payments.reconciler.reconcile.CancellationReasons.none;
import static com.payments.reconciler.store.Attr.n;
import static com.payments.reconciler.store.Attr.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The batch protocol of the protected write without any engine, in the manner of client-go's leaderelection tests:
 * tables of what DynamoDB answered (the batch, its {@code CancellationReasons} by item index: the lease check, then
 * authorisation, settlement and command per candidate) with the outcomes and next round each must give; then whole
 * batches against a fake {@link BatchRounds.Transactions} that answers from a script and records the request tokens.
 * The table is shown to catch a known-bad classification: a failed lease check read as a stale authorisation.
 */
class BatchRoundsTest {

    private static final LeaseToken LEASE = new LeaseToken("nightly", "run-2/owner", 2);
    private static final Instant CUTOFF = Instant.parse("2026-11-28T00:00:00Z");
    private static final Instant BEFORE_CUTOFF = Instant.parse("2026-11-20T00:00:00Z");
    private static final Instant NOW = Instant.parse("2026-12-01T02:00:00Z");
    private static final Backoff NO_WAIT = new Backoff(1, d -> { }, 6, Duration.ofMillis(1), Duration.ofMillis(5));

    // ---- one round: the batch, the reasons, the outcomes, the next round -------------------------------------

    /** What the protocol does with one round's cancellation. */
    interface RoundRule {
        Round<Undecided, ReleaseOutcome> apply(LeaseToken lease, List<Undecided> round, List<CancellationReason> reasons, Instant cutoff);
    }

    static final RoundRule THE_PROTOCOL = (lease, round, reasons, cutoff) -> BatchRounds.afterReleases(round,
            Cancellations.releases(lease, round.stream().map(Undecided::candidate).toList(), reasons), cutoff);

    /**
     * @param batch the round, each {@code id@version} or {@code id@version/redecisions}
     * @param reasons what DynamoDB returned, by item index
     * @param decided the outcomes the round settles, by position
     * @param next what goes again, each {@code position:id@version}
     */
    record Row(String name, List<String> batch, List<CancellationReason> reasons, Map<Integer, String> decided, List<String> next) {
    }

    static final List<Row> ROWS = List.of(
            new Row("a settlement cancels the batch: that candidate is Settled, the others go again",
                    List.of("a@1", "b@1", "c@1"), reasons(none(), none(), none(), none(), none(), failed(), none(), none(), none(), none()),
                    Map.of(1, "Settled(b)"), List.of("0:a@1", "2:c@1")),
            new Row("our own command after a replayed commit outranks the version and settlement checks it also fails",
                    List.of("a@1", "b@1"), reasons(none(), none(), none(), none(), failed(), failed(), failed(command(2, "run-2/owner"))),
                    Map.of(1, "Committed(b, recognised)"), List.of("0:a@1")),
            new Row("another leader's command: already commanded, at its epoch",
                    List.of("a@1"), reasons(none(), none(), none(), failed(command(1, "run-1/owner"))),
                    Map.of(0, "AlreadyCommanded(a, epoch 1)"), List.of()),
            new Row("our epoch but another owner's command is not ours",
                    List.of("a@1"), reasons(none(), failed(), none(), failed(command(2, "someone-else"))),
                    Map.of(0, "AlreadyCommanded(a, epoch 2)"), List.of()),
            new Row("an existing command outranks a settlement",
                    List.of("a@1"), reasons(none(), none(), failed(), failed(command(1, "run-1/owner"))),
                    Map.of(0, "AlreadyCommanded(a, epoch 1)"), List.of()),
            new Row("a settlement outranks a changed version",
                    List.of("a@1"), reasons(none(), failed(authorisation("a", 2, "AUTHORISED", true, BEFORE_CUTOFF)), failed(), none()),
                    Map.of(0, "Settled(a)"), List.of()),
            new Row("stale but still releasable: decided again on the returned image",
                    List.of("a@1", "b@1"), reasons(none(), failed(authorisation("a", 3, "AUTHORISED", true, BEFORE_CUTOFF)), none(), none(),
                            none(), none(), none()),
                    Map.of(), List.of("0:a@3", "1:b@1")),
            new Row("stale and no longer AUTHORISED: final",
                    List.of("a@1"), reasons(none(), failed(authorisation("a", 2, "RELEASE_REQUESTED", false, BEFORE_CUTOFF)), none(), none()),
                    Map.of(0, "Stale"), List.of()),
            new Row("stale and now authorised after the cutoff: final",
                    List.of("a@1"), reasons(none(), failed(authorisation("a", 2, "AUTHORISED", true, CUTOFF.plusSeconds(1))), none(), none()),
                    Map.of(0, "Stale"), List.of()),
            new Row("stale and now valid until a given instant (an increment moved holdUntil): final here, a later night decides",
                    List.of("a@1"), reasons(none(), failed(held(authorisation("a", 2, "AUTHORISED", true, BEFORE_CUTOFF))), none(), none()),
                    Map.of(0, "Stale"), List.of()),
            new Row("stale after two re-decisions already: final",
                    List.of("a@1/2"), reasons(none(), failed(authorisation("a", 3, "AUTHORISED", true, BEFORE_CUTOFF)), none(), none()),
                    Map.of(0, "Stale"), List.of()),
            new Row("stale without an image (the item is gone): final",
                    List.of("a@1"), reasons(none(), failed(), none(), none()),
                    Map.of(0, "Stale"), List.of()),
            new Row("a returned image that cannot be read is skipped as Malformed",
                    List.of("a@1"), reasons(none(), failed(malformed("a")), none(), none()),
                    Map.of(0, "Malformed(a)"), List.of()),
            new Row("lease check failed: the whole round is fenced, whatever else failed, none goes again",
                    List.of("a@1", "b@1"), reasons(failed(lease("run-3/owner", 3)), none(), none(), none(), none(), failed(), none()),
                    Map.of(0, "Fenced(run-3/owner, 3)", 1, "Fenced(run-3/owner, 3)"), List.of()));

    @Test
    void everyRowOfTheCancellationTableGivesItsOutcomesAndNextRound() {
        assertThat(mismatches(THE_PROTOCOL)).isEmpty();
    }

    /** Known-bad: a refused lease check read as the authorisations having changed (their version checks failing). */
    static final RoundRule LEASE_FAILURE_AS_STALE = (lease, round, reasons, cutoff) -> {
        if (!"ConditionalCheckFailed".equals(reasons.getFirst().code())) {
            return THE_PROTOCOL.apply(lease, round, reasons, cutoff);
        }
        List<CancellationReason> asStale = new ArrayList<>(reasons);
        asStale.set(0, none());
        for (int k = 0; k < round.size(); k++) {
            asStale.set(1 + 3 * k, failed());
        }
        return THE_PROTOCOL.apply(lease, round, asStale, cutoff);
    };

    @Test
    void theTableCatchesALeaseCheckFailureTreatedAsStale() {
        assertThat(mismatches(LEASE_FAILURE_AS_STALE))
                .singleElement().asString().startsWith("lease check failed").contains("Stale");
    }

    private static List<String> mismatches(RoundRule rule) {
        List<String> wrong = new ArrayList<>();
        for (Row row : ROWS) {
            List<Undecided> round = IntStream.range(0, row.batch().size()).mapToObj(k -> undecided(k, row.batch().get(k))).toList();
            Round<Undecided, ReleaseOutcome> result = rule.apply(LEASE, round, row.reasons(), CUTOFF);
            Map<Integer, String> decided = new TreeMap<>();
            result.decided().forEach((position, outcome) -> decided.put(position, describe(outcome)));
            List<String> next = result.next().stream().map(u -> u.position() + ":" + u.candidate().authorisationId() + "@" + u.candidate().observedVersion()).toList();
            if (!decided.equals(new TreeMap<>(row.decided())) || !next.equals(row.next())) {
                wrong.add(row.name() + ": decided " + decided + " next " + next + ", expected " + new TreeMap<>(row.decided()) + " next " + row.next());
            }
        }
        return wrong;
    }

    @Test
    void aCancellationThatNamesNoItemOfOursFailsLoudly() {
        List<Candidate> round = List.of(candidate("a", 1));
        assertThatThrownBy(() -> Cancellations.releases(LEASE, round, reasons(none(), none(), none(), none())))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("named no item of ours");
    }

    // ---- whole cancellations: answered, transient, unexpected ------------------------------------------------

    @Test
    void aCancellationIsAnAnswerOnlyWhenEveryItemWasEvaluatedOrTheLeaseCheckFailed() {
        record VerdictRow(List<CancellationReason> reasons, Verdict expected) {
        }
        List<VerdictRow> rows = List.of(
                new VerdictRow(reasons(none(), none(), failed(), none()), Verdict.ANSWERED),
                new VerdictRow(reasons(failed(), code("TransactionConflict"), none(), none()), Verdict.ANSWERED),
                new VerdictRow(reasons(none(), failed(), code("TransactionConflict"), none()), Verdict.TRANSIENT),
                new VerdictRow(reasons(none(), code("TransactionConflict"), none(), none()), Verdict.TRANSIENT),
                new VerdictRow(reasons(none(), code("ThrottlingError"), none(), none()), Verdict.TRANSIENT),
                new VerdictRow(reasons(none(), code("ProvisionedThroughputExceeded"), none(), none()), Verdict.TRANSIENT),
                new VerdictRow(reasons(none(), code("RequestLimitExceeded"), none(), none()), Verdict.TRANSIENT),
                new VerdictRow(reasons(none(), code("ValidationError"), none(), none()), Verdict.UNEXPECTED),
                new VerdictRow(reasons(), Verdict.UNEXPECTED));
        for (VerdictRow row : rows) {
            assertThat(Cancellations.verdict(row.reasons())).as(Cancellations.codes(row.reasons())).isEqualTo(row.expected());
        }
    }

    // ---- marks --------------------------------------------------------------------------------------------------

    @Test
    void marksAreFinalisedOnceAndFencedTogether() {
        DeliveryRecord[] split = Cancellations.marks(LEASE, 3, reasons(none(), none(),
                failed(finalCommand("DELIVERED", ReleaseCommands.DELIVERED_EPOCH, 2)), none()));
        assertThat(split).containsExactly(null, new DeliveryRecord.AlreadyFinal("DELIVERED", true), null);
        assertThat(Cancellations.marks(LEASE, 1, reasons(none(), failed(finalCommand("CANCELLED_SETTLED", ReleaseCommands.ENDED_EPOCH, 1)))))
                .containsExactly(new DeliveryRecord.AlreadyFinal("CANCELLED_SETTLED", false));
        assertThat(Cancellations.marks(LEASE, 2, reasons(failed(lease("run-3/owner", 3)), failed(), none())))
                .containsOnly(new DeliveryRecord.Fenced("run-3/owner", 3));
    }

    // ---- whole batches against a fake transaction ---------------------------------------------------------------

    /** Answers from a script, in order; records each request's item count and token. */
    static final class ScriptedTransactions implements BatchRounds.Transactions {
        final Deque<Answer> script;
        final List<Integer> itemCounts = new ArrayList<>();
        final List<String> tokens = new ArrayList<>();

        ScriptedTransactions(Answer... answers) {
            script = new ArrayDeque<>(Arrays.asList(answers));
        }

        @Override
        public Answer send(List<TransactWriteItem> items, String token) {
            itemCounts.add(items.size());
            tokens.add(token);
            return script.isEmpty() ? new Answer.Committed() : script.removeFirst();
        }
    }

    private static List<ReleaseOutcome> release(ScriptedTransactions fake, String... ids) {
        List<Candidate> batch = Arrays.stream(ids).map(id -> candidate(id, 1)).toList();
        return new BatchRounds(fake, NO_WAIT, "attempt-1").releases(LEASE, batch, CUTOFF, BatchRoundsTest::items);
    }

    @Test
    void aBatchSplitByASettlementCommitsTheRestInASmallerRoundUnderAFreshToken() {
        ScriptedTransactions fake = new ScriptedTransactions(
                new Answer.Cancelled(reasons(none(), none(), none(), none(), none(), failed(), none(), none(), none(), none())));
        assertThat(release(fake, "a", "b", "c")).extracting(BatchRoundsTest::describe)
                .containsExactly("Committed(a)", "Settled(b)", "Committed(c)");
        assertThat(fake.itemCounts).containsExactly(10, 7);
        assertThat(fake.tokens.get(1)).isNotEqualTo(fake.tokens.get(0)).hasSizeLessThanOrEqualTo(36);
    }

    @Test
    void aLostResponseIsRetriedUnderTheSameTokenAndOurOwnCommandIsRecognised() {
        ScriptedTransactions fake = new ScriptedTransactions(new Answer.NoAnswer("connection reset"),
                new Answer.Cancelled(reasons(none(), failed(), none(), failed(command(2, "run-2/owner")))));
        assertThat(release(fake, "a")).extracting(BatchRoundsTest::describe).containsExactly("Committed(a, recognised)");
        assertThat(fake.tokens).hasSize(2).containsOnly(fake.tokens.getFirst());
    }

    @Test
    void throttlingAndAnInProgressTransactionKeepTheTokenAReusedTokenGetsAFreshOne() {
        ScriptedTransactions fake = new ScriptedTransactions(new Answer.Throttled("ThrottlingException"), new Answer.InProgress(),
                new Answer.TokenReused(), new Answer.Committed());
        assertThat(release(fake, "a")).extracting(BatchRoundsTest::describe).containsExactly("Committed(a)");
        assertThat(fake.tokens.subList(0, 3)).containsOnly(fake.tokens.getFirst());
        assertThat(fake.tokens.get(3)).isNotEqualTo(fake.tokens.getFirst());
    }

    @Test
    void aRefusedLeaseCheckFencesTheBatchAndIsNeverRetried() {
        ScriptedTransactions fake = new ScriptedTransactions(
                new Answer.Cancelled(reasons(failed(lease("run-3/owner", 3)), none(), none(), none(), none(), none(), none())));
        assertThat(release(fake, "a", "b")).extracting(BatchRoundsTest::describe).containsOnly("Fenced(run-3/owner, 3)");
        assertThat(fake.itemCounts).hasSize(1);
    }

    @Test
    void conflictsThatOutliveTheAttemptsAreContentionEachUnderAFreshToken() {
        Answer conflict = new Answer.Cancelled(reasons(none(), code("TransactionConflict"), none(), none()));
        ScriptedTransactions fake = new ScriptedTransactions(conflict, conflict, conflict, conflict, conflict, conflict);
        List<ReleaseOutcome> outcomes = release(fake, "a");
        assertThat(outcomes).singleElement().isInstanceOfSatisfying(ReleaseOutcome.Contention.class,
                c -> assertThat(c.detail()).contains("gave up after 6 attempts").contains("TransactionConflict"));
        assertThat(fake.tokens).hasSize(6).doesNotHaveDuplicates();
    }

    @Test
    void anUnexpectedReasonFailsLoudlyInsteadOfRetrying() {
        ScriptedTransactions fake = new ScriptedTransactions(new Answer.Cancelled(reasons(none(), code("ValidationError"), none(), none())));
        assertThatThrownBy(() -> release(fake, "a")).isInstanceOf(IllegalStateException.class).hasMessageContaining("unexpected reason");
        assertThat(fake.itemCounts).hasSize(1);
    }

    @Test
    void aStaleCandidateIsDecidedAgainOnItsNewVersionUnderItsOwnBatchKey() {
        ScriptedTransactions fake = new ScriptedTransactions(
                new Answer.Cancelled(reasons(none(), failed(authorisation("a", 5, "AUTHORISED", true, BEFORE_CUTOFF)), none(), none())));
        assertThat(release(fake, "a")).extracting(BatchRoundsTest::describe).containsExactly("Committed(a)");
        assertThat(fake.tokens.get(1)).isEqualTo(BatchRounds.requestToken("release-hold:a@5", LEASE.epoch(), "attempt-1", 0));
    }

    @Test
    void marksGoAgainWithoutTheOneAlreadyFinal() {
        ScriptedTransactions fake = new ScriptedTransactions(new Answer.Cancelled(reasons(none(), none(),
                failed(finalCommand("DELIVERED", ReleaseCommands.DELIVERED_EPOCH, 1)), none())));
        List<DeliveryMark> marks = IntStream.range(0, 3)
                .mapToObj(i -> new DeliveryMark("release-hold:m" + i, new DeliveryRecord.Result.Delivered("ref-" + i), 1)).toList();
        List<DeliveryRecord> records = new BatchRounds(fake, NO_WAIT, "attempt-1").marks(LEASE, marks,
                round -> IntStream.rangeClosed(0, round.size()).mapToObj(i -> TransactWriteItem.builder().build()).toList());
        assertThat(records).containsExactly(DeliveryRecord.Recorded.INSTANCE, new DeliveryRecord.AlreadyFinal("DELIVERED", false),
                DeliveryRecord.Recorded.INSTANCE);
        assertThat(fake.itemCounts).containsExactly(4, 3);
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    private static List<TransactWriteItem> items(List<Candidate> round) {
        List<TransactWriteItem> items = new ArrayList<>();
        items.add(TransactWriteItem.builder().conditionCheck(ConditionCheck.builder().tableName("Leases").build()).build());
        round.forEach(c -> IntStream.range(0, 3).forEach(i -> items.add(TransactWriteItem.builder().build())));
        return items;
    }

    private static Undecided undecided(int position, String spec) {
        String[] idAndRest = spec.split("@");
        String[] versionAndRedecisions = idAndRest[1].split("/");
        return new Undecided(position, candidate(idAndRest[0], Long.parseLong(versionAndRedecisions[0])),
                versionAndRedecisions.length > 1 ? Integer.parseInt(versionAndRedecisions[1]) : 0);
    }

    private static Candidate candidate(String id, long version) {
        return new Candidate(id, version, 1200, "EUR", BEFORE_CUTOFF, "0");
    }

    static String describe(Object outcome) {
        return switch (outcome) {
            case ReleaseOutcome.Committed c -> "Committed(" + c.operationId().substring("release-hold:".length())
                    + (c.recognisedAfterLostResponse() ? ", recognised)" : ")");
            case ReleaseOutcome.Settled s -> "Settled(" + s.authorisationId() + ")";
            case ReleaseOutcome.AlreadyCommanded a -> "AlreadyCommanded(" + a.operationId().substring("release-hold:".length())
                    + ", epoch " + a.issuedAtEpoch() + ")";
            case ReleaseOutcome.Stale s -> "Stale";
            case ReleaseOutcome.Malformed m -> "Malformed(" + m.authorisationId() + ")";
            case ReleaseOutcome.Fenced f -> "Fenced(" + f.currentOwner() + ", " + f.currentEpoch() + ")";
            case ReleaseOutcome.Contention c -> "Contention";
            default -> outcome.toString();
        };
    }

    private static List<CancellationReason> reasons(CancellationReason... reasons) {
        return List.of(reasons);
    }

    private static Map<String, AttributeValue> lease(String owner, long epoch) {
        return Map.of(Leases.LEASE_NAME, s("nightly"), Leases.OWNER, s(owner), Leases.EPOCH, n(epoch));
    }

    private static Map<String, AttributeValue> command(long epoch, String issuedBy) {
        return Map.of(ReleaseCommands.STATUS, s("PENDING"), ReleaseCommands.EPOCH, n(epoch), ReleaseCommands.ISSUED_BY, s(issuedBy));
    }

    private static Map<String, AttributeValue> finalCommand(String status, String epochAttribute, long epoch) {
        return Map.of(ReleaseCommands.STATUS, s(status), epochAttribute, n(epoch));
    }

    private static Map<String, AttributeValue> authorisation(String id, long version, String state, boolean pending, Instant authorisedAt) {
        Map<String, AttributeValue> item = new java.util.HashMap<>(Map.of(Authorisations.AUTHORISATION_ID, s(id),
                Authorisations.STATE, s(state), Authorisations.VERSION, n(version), Authorisations.AMOUNT_MINOR, n(1200),
                Authorisations.CURRENCY, s("EUR"), Authorisations.AUTHORISED_AT, n(authorisedAt.toEpochMilli())));
        if (pending) {
            item.put(Authorisations.PENDING_SHARD, s("0"));
        }
        return item;
    }

    /** The image with a holdUntil (contract version 2), as an increment or a create may have stored it. */
    private static Map<String, AttributeValue> held(Map<String, AttributeValue> image) {
        Map<String, AttributeValue> item = new java.util.HashMap<>(image);
        item.put(Authorisations.HOLD_UNTIL, n(BEFORE_CUTOFF.plus(java.time.Duration.ofDays(31)).toEpochMilli()));
        return item;
    }

    private static Map<String, AttributeValue> malformed(String id) {
        Map<String, AttributeValue> item = new java.util.HashMap<>(authorisation(id, 2, "AUTHORISED", true, BEFORE_CUTOFF));
        item.put(Authorisations.CURRENCY, s("euro"));
        return item;
    }
}
