package com.payments.reconciler.reconcile;

import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.store.Attr;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.workflow.InvalidInput;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * The batch protocol of the protected write (docs/design.md §4), behind one small interface for its only I/O,
 * {@link Transactions}: which items go in each round, what each answer means, which request token each attempt
 * carries, when to retry and when to give up. {@link FencedWriter} supplies the DynamoDB transaction; tests
 * supply a fake.
 *
 * <p>A transaction is all or nothing, so a batch is decided in rounds: when it is cancelled because some items'
 * conditions failed, those items get their outcome ({@link Cancellations}) and the rest, which applied nothing, go
 * again as a smaller batch; a stale authorisation that is still releasable goes again on the image its failed
 * condition returned, at most {@link #REDECIDE_LIMIT} times. Each round removes at least one item or re-decides one,
 * so every candidate ends with its own outcome. {@code TransactionConflict} and throttling are retried with
 * jittered backoff; a failed lease check fences the whole round and is never retried.
 *
 * <p>Request tokens are derived from the round (operation ids and observed versions), the epoch, the task attempt
 * and the definitive cancellations so far: a retry after a lost response reuses the token (AWS answers it instead
 * of applying it again); a retry after a definitive cancellation, which applied nothing, gets a fresh one, and so
 * does another task attempt facing the same batch (docs/decisions.md, "Request tokens are unique per task attempt").
 */
final class BatchRounds {

    static final int REDECIDE_LIMIT = 2;

    /** The one I/O of the protocol: send one transaction under one request token and say how it was answered. */
    interface Transactions {
        Answer send(List<TransactWriteItem> items, String clientRequestToken);
    }

    /** How DynamoDB answered one TransactWriteItems, as far as the protocol cares. */
    sealed interface Answer {
        record Committed() implements Answer {
        }

        record Cancelled(List<CancellationReason> reasons) implements Answer {
        }

        /** A transaction with the same token is still in progress. */
        record InProgress() implements Answer {
        }

        /** The token was used within 10 minutes by a different request (IdempotentParameterMismatch). */
        record TokenReused() implements Answer {
        }

        /** No answer after the SDK's own retries: the outcome is unknown. */
        record NoAnswer(String detail) implements Answer {
        }

        record Throttled(String errorCode) implements Answer {
        }
    }

    /** A candidate still to be decided: its place in the caller's list and how often it was re-decided. */
    record Undecided(int position, Candidate candidate, int redecisions) {
    }

    /** One round's result: the outcomes it settled, by position in the caller's list, and what goes again. */
    record Round<U, O>(Map<Integer, O> decided, List<U> next) {
    }

    private final Transactions transactions;
    private final Backoff backoff;
    private final String attemptId;

    BatchRounds(Transactions transactions, Backoff backoff, String attemptId) {
        this.transactions = transactions;
        this.backoff = backoff;
        this.attemptId = attemptId;
    }

    /** Decides every candidate; {@code itemsOf} builds a round's items (lease check first, three per candidate). */
    List<ReleaseOutcome> releases(LeaseToken lease, List<Candidate> candidates, Instant cutoff,
                                  Function<List<Candidate>, List<TransactWriteItem>> itemsOf) {
        ReleaseOutcome[] outcomes = new ReleaseOutcome[candidates.size()];
        List<Undecided> undecided = new ArrayList<>();
        for (int i = 0; i < candidates.size(); i++) {
            undecided.add(new Undecided(i, candidates.get(i), 0));
        }
        while (!undecided.isEmpty()) {
            List<Candidate> round = undecided.stream().map(Undecided::candidate).toList();
            String batchKey = String.join(",", round.stream().map(c -> c.operationId() + "@" + c.observedVersion()).toList());
            ReleaseOutcome[] result = transact(lease, batchKey, round.size(), itemsOf.apply(round),
                    reasons -> Cancellations.releases(lease, round, reasons),
                    k -> new ReleaseOutcome.Committed(round.get(k).operationId(), false),
                    ReleaseOutcome.Contention::new, ReleaseOutcome[]::new);
            Round<Undecided, ReleaseOutcome> next = afterReleases(undecided, result, cutoff);
            next.decided().forEach((position, outcome) -> outcomes[position] = outcome);
            undecided = next.next();
        }
        return List.of(outcomes);
    }

    /** Records every mark; {@code itemsOf} builds a round's items (lease check first, one per mark). */
    List<DeliveryRecord> marks(LeaseToken lease, List<DeliveryMark> marks, Function<List<DeliveryMark>, List<TransactWriteItem>> itemsOf) {
        DeliveryRecord[] outcomes = new DeliveryRecord[marks.size()];
        List<Integer> unrecorded = new ArrayList<>();
        for (int i = 0; i < marks.size(); i++) {
            unrecorded.add(i);
        }
        while (!unrecorded.isEmpty()) {
            List<DeliveryMark> round = unrecorded.stream().map(marks::get).toList();
            String batchKey = String.join(",", round.stream().map(DeliveryMark::operationId).toList());
            DeliveryRecord[] result = transact(lease, batchKey, round.size(), itemsOf.apply(round),
                    reasons -> Cancellations.marks(lease, round.size(), reasons),
                    k -> DeliveryRecord.Recorded.INSTANCE, DeliveryRecord.Contention::new, DeliveryRecord[]::new);
            Round<Integer, DeliveryRecord> next = after(unrecorded, result, position -> position);
            next.decided().forEach((position, outcome) -> outcomes[position] = outcome);
            unrecorded = next.next();
        }
        return List.of(outcomes);
    }

    /**
     * What a release round's per-candidate result leaves: final outcomes, and the candidates that go again — those
     * that applied nothing only because another item failed (null), and stale ones still releasable on the returned
     * image (at most {@link #REDECIDE_LIMIT} times each). An image that cannot be read is {@code Malformed}.
     */
    static Round<Undecided, ReleaseOutcome> afterReleases(List<Undecided> round, ReleaseOutcome[] result, Instant cutoff) {
        Map<Integer, ReleaseOutcome> decided = new LinkedHashMap<>();
        List<Undecided> next = new ArrayList<>();
        for (int k = 0; k < round.size(); k++) {
            Undecided u = round.get(k);
            ReleaseOutcome outcome = result[k];
            if (outcome == null) {
                next.add(u);
                continue;
            }
            if (outcome instanceof ReleaseOutcome.Stale stale && u.redecisions() < REDECIDE_LIMIT) {
                Optional<Candidate> again;
                try {
                    again = stillReleasable(stale.current(), cutoff);
                } catch (InvalidInput malformed) {
                    // As CandidateFinder does for the index: one unreadable item is skipped, never fails the batch.
                    decided.put(u.position(), new ReleaseOutcome.Malformed(u.candidate().authorisationId(), malformed.getMessage()));
                    continue;
                }
                if (again.isPresent()) {
                    next.add(new Undecided(u.position(), again.get(), u.redecisions() + 1));
                    continue;
                }
            }
            decided.put(u.position(), outcome);
        }
        return new Round<>(decided, next);
    }

    private static <U, O> Round<U, O> after(List<U> round, O[] result, Function<U, Integer> position) {
        Map<Integer, O> decided = new LinkedHashMap<>();
        List<U> next = new ArrayList<>();
        for (int k = 0; k < round.size(); k++) {
            if (result[k] == null) {
                next.add(round.get(k));
            } else {
                decided.put(position.apply(round.get(k)), result[k]);
            }
        }
        return new Round<>(decided, next);
    }

    /** One round's transaction with in-function retries; one result per item of the round, null for "goes again". */
    private <T> T[] transact(LeaseToken lease, String batchKey, int size, List<TransactWriteItem> items,
                             Function<List<CancellationReason>, T[]> classify, IntFunction<T> committed,
                             Function<String, T> contention, IntFunction<T[]> array) {
        int cancellations = 0;
        String lastProblem = "";
        for (int attempt = 1; attempt <= backoff.maxAttempts(); attempt++) {
            switch (transactions.send(items, requestToken(batchKey, lease.epoch(), attemptId, cancellations))) {
                case Answer.Committed c -> {
                    return fill(array.apply(size), committed);
                }
                case Answer.Cancelled(List<CancellationReason> reasons) -> {
                    switch (Cancellations.verdict(reasons)) {
                        case ANSWERED -> {
                            return classify.apply(reasons);
                        }
                        case UNEXPECTED -> throw new IllegalStateException("transaction for " + describe(batchKey)
                                + " cancelled for an unexpected reason: " + Cancellations.codes(reasons));
                        case TRANSIENT -> {
                            cancellations++;
                            lastProblem = "cancelled: " + Cancellations.codes(reasons);
                        }
                    }
                }
                case Answer.InProgress p -> lastProblem = "a transaction with the same token is still in progress";
                case Answer.TokenReused r -> {
                    // A fresh token lets the conditions say what the earlier request did; our own commands are recognised.
                    cancellations++;
                    lastProblem = "token used by an earlier request for the same decision";
                }
                case Answer.NoAnswer(String detail) -> lastProblem = "no answer: " + detail;
                case Answer.Throttled(String code) -> lastProblem = "throttled: " + code;
            }
            if (attempt < backoff.maxAttempts()) {
                backoff.beforeRetry(attempt);
            }
        }
        String detail = "gave up after " + backoff.maxAttempts() + " attempts for " + describe(batchKey) + " (" + lastProblem + ")";
        return fill(array.apply(size), k -> contention.apply(detail));
    }

    private static <T> T[] fill(T[] outcomes, IntFunction<T> outcome) {
        Arrays.setAll(outcomes, outcome);
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
        // A hold valid until a given instant (an increment may just have moved it) is not decided again here, where the
        // window's start is not known: it stays in the index, and the page's own check (HoldValidity) decides it later.
        return candidate.authorisedAt().isBefore(cutoff) && candidate.holdUntil().isEmpty() ? Optional.of(candidate) : Optional.empty();
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
}
