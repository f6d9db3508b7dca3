package com.payments.reconciler.reconcile;

import static com.payments.reconciler.reconcile.CancellationReasons.code;
import static com.payments.reconciler.reconcile.CancellationReasons.failed;
import static com.payments.reconciler.reconcile.CancellationReasons.none;
import static com.payments.reconciler.store.Attr.n;
import static com.payments.reconciler.store.Attr.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.reconcile.BatchRounds.Answer;
import com.payments.reconciler.reconcile.BatchRounds.Round;
import com.payments.reconciler.reconcile.BatchRounds.Undecided;
import com.payments.reconciler.reconcile.BatchRoundsTest.ScriptedTransactions;
import com.payments.reconciler.reconcile.Cancellations.Verdict;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * The edges of the batch protocol beside {@link BatchRoundsTest}'s tables: which codes are transient (exactly four, by
 * their whole name), reasons shorter or longer than the batch, a command of our owner at an older epoch, the images a
 * stale candidate may come back with, the re-decision limit across whole rounds, the waits between attempts, the
 * request tokens after each kind of answer, and the words of a batch given up on.
 */
class BatchRoundsEdgesTest {

    private static final LeaseToken LEASE = new LeaseToken("nightly", "run-2/owner", 2);
    private static final Instant CUTOFF = Instant.parse("2026-11-28T00:00:00Z");
    private static final Instant BEFORE_CUTOFF = Instant.parse("2026-11-20T00:00:00Z");

    // ---- which cancellation codes are transient -----------------------------------------------------------------

    /**
     * Each transient code beside a string with the same {@code hashCode} (the second-last character one higher, the
     * last 31 lower): the look-up is by the whole name, so the look-alike is an unexpected reason, never retried.
     */
    @ParameterizedTest
    @CsvSource({"TransactionConflict, TransactionConflidU", "ThrottlingError, ThrottlingErrpS",
            "ProvisionedThroughputExceeded, ProvisionedThroughputExceedfE", "RequestLimitExceeded, RequestLimitExceedfE"})
    void exactlyTheFourTransientCodesAreRetriedByTheirWholeName(String code, String lookAlike) {
        assertThat(lookAlike.hashCode()).isEqualTo(code.hashCode());
        assertThat(Cancellations.verdict(List.of(none(), code(code)))).isEqualTo(Verdict.TRANSIENT);
        assertThat(Cancellations.verdict(List.of(none(), code(lookAlike)))).isEqualTo(Verdict.UNEXPECTED);
    }

    @Test
    void aReasonWithoutACodeIsUnexpected() {
        assertThat(Cancellations.verdict(List.of(none(), CancellationReason.builder().build()))).isEqualTo(Verdict.UNEXPECTED);
    }

    // ---- reasons that do not match the batch's layout ------------------------------------------------------------

    @Test
    void reasonsShorterThanTheBatchLeaveTheMissingItemsUnfailed() {
        // Only the authorisation item (index 1) is reported, failed: the settlement and command items are read as not failed.
        ReleaseOutcome[] outcomes = Cancellations.releases(LEASE, List.of(candidate("a", 1)), List.of(none(), failed()));
        assertThat(outcomes).hasSize(1);
        assertThat(outcomes[0]).isInstanceOf(ReleaseOutcome.Stale.class);
        assertThat(Cancellations.marks(LEASE, 2, List.of(none(), failed(finalCommand("DELIVERED", 2)))))
                .containsExactly(new DeliveryRecord.AlreadyFinal("DELIVERED", true), null);
    }

    @Test
    void aFailedConditionOnlyBeyondTheMarksIsNoItemOfOursAndFailsLoudly() {
        assertThatThrownBy(() -> Cancellations.marks(LEASE, 1, List.of(none(), none(), failed(finalCommand("DELIVERED", 2)))))
                .isInstanceOf(IllegalStateException.class).hasMessage("a cancelled batch named no item of ours: [None, None, ConditionalCheckFailed]");
    }

    @Test
    void aCommandOfOurOwnerAtAnOlderEpochIsNotOurs() {
        Map<String, AttributeValue> command = Map.of(ReleaseCommands.STATUS, s("PENDING"), ReleaseCommands.EPOCH, n(1),
                ReleaseCommands.ISSUED_BY, s("run-2/owner"));
        ReleaseOutcome[] outcomes = Cancellations.releases(LEASE, List.of(candidate("a", 1)),
                List.of(none(), none(), none(), failed(command)));
        assertThat(outcomes).containsExactly(new ReleaseOutcome.AlreadyCommanded("release-hold:a", 1));
    }

    // ---- the images a stale candidate comes back with ------------------------------------------------------------

    @ParameterizedTest
    @CsvSource({
            // state, still in the pending index, authorised before the cutoff -> decided again
            "AUTHORISED,        true,  true,  true",
            "AUTHORISED,        false, true,  false",
            "RELEASE_REQUESTED, true,  true,  false",
            "SETTLED,           true,  true,  false",
            "AUTHORISED,        true,  false, false"})
    void aStaleCandidateIsDecidedAgainOnlyWhileItIsAuthorisedIndexedAndOlderThanTheCutoff(String state, boolean pending,
                                                                                          boolean beforeCutoff, boolean again) {
        Map<String, AttributeValue> image = authorisation("a", 4, state, pending, beforeCutoff ? BEFORE_CUTOFF : CUTOFF);
        ReleaseOutcome[] result = {new ReleaseOutcome.Stale(image)};
        Round<Undecided, ReleaseOutcome> round = BatchRounds.afterReleases(List.of(new Undecided(0, candidate("a", 3), 0)), result, CUTOFF);
        if (again) {
            assertThat(round.decided()).isEmpty();
            assertThat(round.next()).containsExactly(new Undecided(0, Candidate.fromItem(image), 1));
        } else {
            assertThat(round.decided()).containsExactly(Map.entry(0, result[0]));
            assertThat(round.next()).isEmpty();
        }
    }

    @Test
    void anEmptyImageIsFinal() {
        ReleaseOutcome[] result = {new ReleaseOutcome.Stale(Map.of())};
        Round<Undecided, ReleaseOutcome> round = BatchRounds.afterReleases(List.of(new Undecided(0, candidate("a", 3), 0)), result, CUTOFF);
        assertThat(round.next()).isEmpty();
        assertThat(round.decided()).containsExactly(Map.entry(0, result[0]));
    }

    @Test
    void aCandidateStaleRoundAfterRoundIsDecidedAgainTwiceThenEndsStale() {
        Answer staleAgain = new Answer.Cancelled(List.of(none(), failed(authorisation("a", 9, "AUTHORISED", true, BEFORE_CUTOFF)), none(), none()));
        ScriptedTransactions fake = new ScriptedTransactions(staleAgain, staleAgain, staleAgain);
        List<ReleaseOutcome> outcomes = new BatchRounds(fake, noWait(new ArrayList<>()), "attempt-1")
                .releases(LEASE, List.of(candidate("a", 1)), CUTOFF, BatchRoundsEdgesTest::items);
        assertThat(outcomes).singleElement().isInstanceOf(ReleaseOutcome.Stale.class);
        assertThat(fake.itemCounts).as("the first try and REDECIDE_LIMIT re-decisions").hasSize(1 + BatchRounds.REDECIDE_LIMIT);
    }

    // ---- waits, tokens and the words of a batch given up on ------------------------------------------------------

    @Test
    void eachRetryWaitsOnceAndTheLastAttemptDoesNotWait() {
        List<Duration> waits = new ArrayList<>();
        Answer conflict = new Answer.Cancelled(List.of(none(), code("TransactionConflict"), none(), none()));
        new BatchRounds(new ScriptedTransactions(conflict, conflict, conflict, conflict, conflict, conflict), noWait(waits), "attempt-1")
                .releases(LEASE, List.of(candidate("a", 1)), CUTOFF, BatchRoundsEdgesTest::items);
        assertThat(waits).as("six attempts, five waits between them").hasSize(5);

        waits.clear();
        new BatchRounds(new ScriptedTransactions(new Answer.NoAnswer("reset")), noWait(waits), "attempt-1")
                .releases(LEASE, List.of(candidate("a", 1)), CUTOFF, BatchRoundsEdgesTest::items);
        assertThat(waits).as("one retry after a lost response").hasSize(1);
    }

    @Test
    void theTokenAfterEachDefinitiveCancellationIsTheNextOfTheAttemptsSequence() {
        Answer conflict = new Answer.Cancelled(List.of(none(), code("TransactionConflict"), none(), none()));
        ScriptedTransactions fake = new ScriptedTransactions(conflict, new Answer.TokenReused(), new Answer.InProgress(), new Answer.Committed());
        new BatchRounds(fake, noWait(new ArrayList<>()), "attempt-1").releases(LEASE, List.of(candidate("a", 1)), CUTOFF, BatchRoundsEdgesTest::items);
        String key = "release-hold:a@1";
        assertThat(fake.tokens).containsExactly(BatchRounds.requestToken(key, 2, "attempt-1", 0), BatchRounds.requestToken(key, 2, "attempt-1", 1),
                BatchRounds.requestToken(key, 2, "attempt-1", 2), BatchRounds.requestToken(key, 2, "attempt-1", 2));
    }

    @Test
    void aBatchGivenUpOnSaysWhichBatchAndItsLastProblem() {
        Answer[] noAnswers = new Answer[6];
        Arrays.fill(noAnswers, new Answer.NoAnswer("connection reset"));
        List<ReleaseOutcome> two = new BatchRounds(new ScriptedTransactions(noAnswers), noWait(new ArrayList<>()), "attempt-1")
                .releases(LEASE, List.of(candidate("a", 1), candidate("b", 1)), CUTOFF, BatchRoundsEdgesTest::items);
        assertThat(two).containsOnly(new ReleaseOutcome.Contention(
                "gave up after 6 attempts for a batch of 2 from release-hold:a@1 (no answer: connection reset)"));

        Answer[] throttled = new Answer[6];
        Arrays.fill(throttled, new Answer.Throttled("ProvisionedThroughputExceededException"));
        List<ReleaseOutcome> one = new BatchRounds(new ScriptedTransactions(throttled), noWait(new ArrayList<>()), "attempt-1")
                .releases(LEASE, List.of(candidate("a", 1)), CUTOFF, BatchRoundsEdgesTest::items);
        assertThat(one).containsExactly(new ReleaseOutcome.Contention(
                "gave up after 6 attempts for release-hold:a@1 (throttled: ProvisionedThroughputExceededException)"));
    }

    @Test
    void anUnexpectedReasonNamesTheBatch() {
        ScriptedTransactions fake = new ScriptedTransactions(new Answer.Cancelled(List.of(none(), code("ValidationError"), none(), none(),
                none(), none(), none())));
        assertThatThrownBy(() -> new BatchRounds(fake, noWait(new ArrayList<>()), "attempt-1")
                .releases(LEASE, List.of(candidate("a", 1), candidate("b", 1)), CUTOFF, BatchRoundsEdgesTest::items))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("transaction for a batch of 2 from release-hold:a@1 cancelled for an unexpected reason: "
                        + "[None, ValidationError, None, None, None, None, None]");
    }

    // ---- helpers --------------------------------------------------------------------------------------------------

    private static Backoff noWait(List<Duration> waits) {
        return new Backoff(1, waits::add, 6, Duration.ofMillis(1), Duration.ofMillis(5));
    }

    private static List<TransactWriteItem> items(List<Candidate> round) {
        return IntStream.range(0, 1 + 3 * round.size()).mapToObj(i -> TransactWriteItem.builder().build()).toList();
    }

    private static Candidate candidate(String id, long version) {
        return new Candidate(id, version, 1200, "EUR", BEFORE_CUTOFF, "0");
    }

    private static Map<String, AttributeValue> finalCommand(String status, long deliveredEpoch) {
        return Map.of(ReleaseCommands.STATUS, s(status), ReleaseCommands.DELIVERED_EPOCH, n(deliveredEpoch));
    }

    private static Map<String, AttributeValue> authorisation(String id, long version, String state, boolean pending, Instant authorisedAt) {
        Map<String, AttributeValue> item = new HashMap<>(Map.of(Authorisations.AUTHORISATION_ID, s(id),
                Authorisations.STATE, s(state), Authorisations.VERSION, n(version), Authorisations.AMOUNT_MINOR, n(1200),
                Authorisations.CURRENCY, s("EUR"), Authorisations.AUTHORISED_AT, n(authorisedAt.toEpochMilli())));
        if (pending) {
            item.put(Authorisations.PENDING_SHARD, s("0"));
        }
        return item;
    }
}
