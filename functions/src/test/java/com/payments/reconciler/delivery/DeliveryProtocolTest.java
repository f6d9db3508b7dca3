package com.payments.reconciler.delivery;

import com.payments.reconciler.delivery.ProviderAnswers.Step;
import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.reconcile.DeliveryMark;
import com.payments.reconciler.reconcile.DeliveryRecord;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.testing.MutableClock;
import com.payments.reconciler.workflow.Deadline;
import com.payments.reconciler.workflow.Fenced;
import com.payments.reconciler.workflow.ProviderContractViolation;
import com.payments.reconciler.workflow.ProviderQuota;
import com.payments.reconciler.workflow.ProviderUnavailable;
import com.payments.reconciler.workflow.StoreContention;
import com.payments.reconciler.workflow.Timing;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The delivery call's protocol without any engine, in the manner of {@code BatchRoundsTest}: tables of what a command
 * meets (its round's decision and the guard's record, the provider's answer, the fenced write's outcome, the night
 * plan) with what each must lead to; then one command's whole delivery against a scripted fake provider and a
 * pass-through guard. Known-bad rules are kept as proof that the tables catch them: a throttling answer counted
 * as an unavailable attempt, tonight's settlement preferred over the provider's recorded answer, and the plan's
 * allotment charged for every end (or only for requests).
 */
class DeliveryProtocolTest {

    private static final Instant NOW = Instant.parse("2026-12-01T02:30:00Z");
    private static final int SHARD = 3;
    private static final int ATTEMPTS = ProviderAnswers.ATTEMPTS_PER_COMMAND;
    private static final long LIMIT_MS = Timing.THROTTLED_WITHOUT_PROGRESS_LIMIT.toMillis();
    private static final ProviderResult.Released RELEASED = new ProviderResult.Released("prov-1");
    private static final ProviderResult.Rejected REJECTED = new ProviderResult.Rejected("HOLD_NOT_FOUND", "no such hold");
    private static final ProviderResult.Throttled THROTTLED = new ProviderResult.Throttled(429, Optional.of(Duration.ofSeconds(2)));
    private static final ProviderResult.Unavailable DOWN = new ProviderResult.Unavailable("503");

    // ---- the provider's answer: what next for the command ------------------------------------------------------

    interface AnswerRule {
        Step after(ProviderResult answer, String operationId, int unavailableAnswers, int requests,
                   long throttledSinceAnswerMillis, boolean superseded);
    }

    static final AnswerRule THE_PROTOCOL = ProviderAnswers::after;

    /**
     * @param unavailable unavailable answers so far, this one included
     * @param requests    requests so far, this one included
     */
    record AnswerRow(String name, ProviderResult answer, int unavailable, int requests, long throttledMs, boolean superseded,
                     String expected) {
    }

    static final List<AnswerRow> ANSWER_ROWS = List.of(
            new AnswerRow("released: marked with it", RELEASED, 0, 1, 0, false, "Answered(Released)"),
            new AnswerRow("refused: a final answer too, never sent again", REJECTED, 0, 1, 0, false, "Answered(Rejected)"),
            new AnswerRow("released after unavailable answers", RELEASED, ATTEMPTS - 1, ATTEMPTS, 0, false, "Answered(Released)"),
            new AnswerRow("a final answer counts even when superseded meanwhile (the caller drops it)", RELEASED, 0, 1, 0, true,
                    "Answered(Released)"),
            new AnswerRow("unavailable with attempts left: back off, then again", DOWN, 1, 1, 0, false,
                    "BackOff(1)"),
            new AnswerRow("unavailable for the last attempt: the provider is down", DOWN, ATTEMPTS, ATTEMPTS, 0, false, "ProviderDown"),
            new AnswerRow("unavailable after a takeover: no backoff, the call ends", DOWN, 1, 1, 0, true, "ProviderDown"),
            new AnswerRow("throttled: send again, no attempt used up", THROTTLED, 0, 1, 2_000, false, "SendAgain"),
            new AnswerRow("throttled many times, well inside the limit: still sending", THROTTLED, 0, ATTEMPTS + 3, 10_000, false,
                    "SendAgain"),
            new AnswerRow("throttled exactly up to the limit: still sending", THROTTLED, 0, 5, LIMIT_MS, false, "SendAgain"),
            new AnswerRow("throttled past the limit without one answer: treated as down", THROTTLED, 0, 5, LIMIT_MS + 1, false,
                    "ProviderDown"));

    @Test
    void everyRowOfTheAnswerTableGivesItsStep() {
        assertThat(ATTEMPTS).as("the tables assume a command gets a second attempt within a call").isGreaterThan(1);
        assertThat(answerMismatches(THE_PROTOCOL)).isEmpty();
    }

    /** Known-bad: a throttling answer spends one of the command's unavailable attempts (a slow provider reads as down). */
    static final AnswerRule THROTTLING_USES_AN_ATTEMPT = (answer, id, unavailable, requests, throttledMs, superseded) ->
            answer instanceof ProviderResult.Throttled
                    ? THE_PROTOCOL.after(DOWN, id, unavailable + 1, requests, throttledMs, superseded)
                    : THE_PROTOCOL.after(answer, id, unavailable, requests, throttledMs, superseded);

    @Test
    void theAnswerTableCatchesThrottlingCountedAsAnAttempt() {
        assertThat(answerMismatches(THROTTLING_USES_AN_ATTEMPT)).isNotEmpty()
                .anyMatch(m -> m.startsWith("throttled: send again"));
    }

    private static List<String> answerMismatches(AnswerRule rule) {
        List<String> out = new ArrayList<>();
        for (AnswerRow row : ANSWER_ROWS) {
            String actual = describe(rule.after(row.answer(), "release-hold:a-1", row.unavailable(), row.requests(),
                    row.throttledMs(), row.superseded()));
            if (!actual.equals(row.expected())) {
                out.add(row.name() + ": expected " + row.expected() + ", was " + actual);
            }
        }
        return out;
    }

    private static String describe(Step step) {
        return switch (step) {
            case Step.Answered answered -> "Answered(" + answered.answer().getClass().getSimpleName() + ")";
            case Step.SendAgain again -> "SendAgain";
            case Step.BackOff backOff -> "BackOff(" + backOff.unavailableAnswers() + ")";
            case Step.ProviderDown down -> "ProviderDown";
        };
    }

    // ---- a command not sent in its round: what it is marked with -----------------------------------------------

    interface UnsentRule {
        UnsentCommand of(DeliveryDecision decision, Optional<ProviderResult.Final> answeredBefore, int shard);
    }

    static final UnsentRule THE_UNSENT_RULE = UnsentCommand::of;

    record UnsentRow(String name, DeliveryDecision decision, Optional<ProviderResult.Final> answeredBefore, String expected) {
    }

    private static final Instant SETTLED_AT = Instant.parse("2026-12-01T01:00:00Z");

    static final List<UnsentRow> UNSENT_ROWS = List.of(
            new UnsentRow("settled, never sent: cancelled as settled at its settlement", new DeliveryDecision.CancelSettled(SETTLED_AT),
                    Optional.empty(), "CancelledSettled(" + SETTLED_AT + ")"),
            new UnsentRow("too old, never sent: escalated to a person", new DeliveryDecision.Escalate(Duration.ofDays(30)),
                    Optional.empty(), "Escalated(shard " + SHARD + ")"),
            new UnsentRow("settled since, but released in an earlier attempt: the release is the truth",
                    new DeliveryDecision.CancelSettled(SETTLED_AT), Optional.of(RELEASED), "Delivered(prov-1), sent before"),
            new UnsentRow("settled since, refused in an earlier attempt: the refusal is recorded",
                    new DeliveryDecision.CancelSettled(SETTLED_AT), Optional.of(REJECTED), "Rejected(HOLD_NOT_FOUND), sent before"),
            new UnsentRow("too old, released in an earlier attempt: recorded, not escalated",
                    new DeliveryDecision.Escalate(Duration.ofDays(30)), Optional.of(RELEASED), "Delivered(prov-1), sent before"));

    @Test
    void everyRowOfTheUnsentTableGivesItsMark() {
        assertThat(unsentMismatches(THE_UNSENT_RULE)).isEmpty();
    }

    /** Known-bad: tonight's settlement wins over a release the provider already made (the outbox would say it never happened). */
    static final UnsentRule SETTLEMENT_BEFORE_THE_RECORD = (decision, answeredBefore, shard) ->
            decision instanceof DeliveryDecision.CancelSettled
                    ? THE_UNSENT_RULE.of(decision, Optional.empty(), shard)
                    : THE_UNSENT_RULE.of(decision, answeredBefore, shard);

    @Test
    void theUnsentTableCatchesASettlementPreferredOverTheRecordedAnswer() {
        assertThat(unsentMismatches(SETTLEMENT_BEFORE_THE_RECORD))
                .anyMatch(m -> m.startsWith("settled since, but released in an earlier attempt"));
    }

    private static List<String> unsentMismatches(UnsentRule rule) {
        List<String> out = new ArrayList<>();
        for (UnsentRow row : UNSENT_ROWS) {
            UnsentCommand unsent = rule.of(row.decision(), row.answeredBefore(), SHARD);
            String actual = describe(unsent.result()) + (unsent.sentBefore() ? ", sent before" : "");
            if (!actual.equals(row.expected())) {
                out.add(row.name() + ": expected " + row.expected() + ", was " + actual);
            }
        }
        return out;
    }

    private static String describe(DeliveryRecord.Result result) {
        return switch (result) {
            case DeliveryRecord.Result.Delivered d -> "Delivered(" + d.providerReference() + ")";
            case DeliveryRecord.Result.Acknowledged a -> "Acknowledged(" + a.requestReference().orElseGet(() -> "stored " + a.storedError().orElseThrow()) + ")";
            case DeliveryRecord.Result.Rejected r -> "Rejected(" + r.code() + ")";
            case DeliveryRecord.Result.CancelledSettled c -> "CancelledSettled(" + c.settledAt() + ")";
            case DeliveryRecord.Result.CancelledEnded c -> "CancelledEnded(" + c.endKind() + ")";
            case DeliveryRecord.Result.Quarantined q -> "Quarantined(shard " + q.shard() + ")";
            case DeliveryRecord.Result.Escalated e -> "Escalated(shard " + e.shard() + ")";
            case DeliveryRecord.Result.OutcomeOverdue o -> "OutcomeOverdue(shard " + o.shard() + ")";
        };
    }

    // ---- the fenced write's outcome for one mark ---------------------------------------------------------------

    @Test
    void everyOutcomeOfAMarkGivesItsVerdict() {
        LeaseToken lease = new LeaseToken("nightly", "run-2/owner", 2);
        DeliveryMark mark = new DeliveryMark("release-hold:a-1", new DeliveryRecord.Result.Delivered("prov-1"), 1);
        record Row(String name, DeliveryRecord outcome, Class<? extends MarkVerdict> expected) {
        }
        List<Row> rows = List.of(
                new Row("recorded: counted under its result", DeliveryRecord.Recorded.INSTANCE, MarkVerdict.Counted.class),
                new Row("a newer epoch holds the lease: superseded", new DeliveryRecord.Fenced("run-3/owner", 3), MarkVerdict.Superseded.class),
                new Row("already final: counted nowhere", new DeliveryRecord.AlreadyFinal("DELIVERED", false), MarkVerdict.AlreadyFinal.class),
                new Row("contention after the writer's retries", new DeliveryRecord.Contention("TransactionConflict"), MarkVerdict.Contended.class));
        for (Row row : rows) {
            assertThat(MarkVerdict.of(lease, mark, row.outcome())).as(row.name()).isInstanceOf(row.expected());
        }
        assertThat(((MarkVerdict.Counted) MarkVerdict.of(lease, mark, DeliveryRecord.Recorded.INSTANCE)).result()).isEqualTo(mark.result());
        Fenced fenced = ((MarkVerdict.Superseded) MarkVerdict.of(lease, mark, new DeliveryRecord.Fenced("run-3/owner", 3))).error();
        assertThat(fenced.getMessage()).contains("epoch 2", "newer epoch 3", "run-3/owner", mark.operationId());
        assertThat(((MarkVerdict.Contended) MarkVerdict.of(lease, mark, new DeliveryRecord.Contention("x"))).error())
                .isInstanceOf(StoreContention.class);
    }

    // ---- the night plan: what a call may start, and when the shard is done -------------------------------------

    @Test
    void thePlanBoundsWhatACallStartsAndSaysWhenTheShardIsDone() {
        ShardPlan plan = new ShardPlan(100, 40, NOW.plusSeconds(600).toEpochMilli(), 0, 0);
        record Row(String name, long sentBefore, long started, Instant now, long startable) {
        }
        for (Row row : List.of(
                new Row("first call, nothing sent", 0, 0, NOW, 40),
                new Row("earlier calls sent some, this one started some", 25, 10, NOW, 5),
                new Row("one short of the allotment", 30, 9, NOW, 1),
                new Row("the allotment is used up", 30, 10, NOW, 0),
                new Row("started past the allotment (never negative)", 30, 20, NOW, 0),
                new Row("a millisecond before the budget ends: still the allotment", 0, 0, NOW.plusMillis(599_999), 40),
                new Row("the budget passed: none", 0, 0, NOW.plusSeconds(600), 0))) {
            assertThat(plan.startable(row.sentBefore(), row.started(), row.now())).as(row.name()).isEqualTo(row.startable());
        }
        assertThat(plan.spent(39, InstantSource.fixed(NOW))).isFalse();
        assertThat(plan.spent(39, InstantSource.fixed(NOW.plusSeconds(600)))).isTrue();
        AtomicInteger readings = new AtomicInteger();
        InstantSource counted = () -> {
            readings.incrementAndGet();
            return NOW;
        };
        assertThat(plan.spent(40, counted)).as("the allotment reached").isTrue();
        assertThat(readings).as("the clock is not read once the allotment is reached").hasValue(0);
        assertThat(ShardPlan.unplanned().startable(1_000_000, 1_000_000, NOW)).isPositive();
    }

    interface QuotaRule {
        boolean usedQuota(DeliveryRecord.Result result, int requests);
    }

    static final QuotaRule THE_QUOTA_RULE = ShardPlan::usedQuota;

    /** A command's end, the requests this call made for it, and whether the plan's allotment counts it. */
    record QuotaRow(String name, DeliveryRecord.Result result, int requests, boolean counts) {
    }

    static final List<QuotaRow> QUOTA_ROWS = List.of(
            new QuotaRow("delivered at its first request", new DeliveryRecord.Result.Delivered("prov-1"), 1, true),
            new QuotaRow("delivered after retries: one command, counted once", new DeliveryRecord.Result.Delivered("prov-1"), 3, true),
            new QuotaRow("delivered from the guard's record of an earlier request", new DeliveryRecord.Result.Delivered("prov-1"), 0, true),
            new QuotaRow("refused by the provider", new DeliveryRecord.Result.Rejected("HOLD_NOT_FOUND", "no such hold"), 1, true),
            new QuotaRow("refused, answered from the guard's record", new DeliveryRecord.Result.Rejected("HOLD_NOT_FOUND", "x"), 0, true),
            new QuotaRow("acknowledged by an asynchronous provider", new DeliveryRecord.Result.Acknowledged("ref-1", SHARD), 1, true),
            new QuotaRow("acknowledged, from the guard's record", new DeliveryRecord.Result.Acknowledged("ref-1", SHARD), 0, true),
            new QuotaRow("quarantined after an answer outside the contract", new DeliveryRecord.Result.Quarantined("<html>", SHARD), 1, true),
            new QuotaRow("quarantined: an answer is always a request", new DeliveryRecord.Result.Quarantined("<html>", SHARD), 0, true),
            new QuotaRow("cancelled as settled in its round: no request", new DeliveryRecord.Result.CancelledSettled(SETTLED_AT), 0, false),
            new QuotaRow("cancelled as settled after an unanswered request", new DeliveryRecord.Result.CancelledSettled(SETTLED_AT), 1, true),
            new QuotaRow("cancelled as ended in its round: no request", new DeliveryRecord.Result.CancelledEnded("VOIDED", SETTLED_AT), 0, false),
            new QuotaRow("cancelled as ended after an unanswered request", new DeliveryRecord.Result.CancelledEnded("VOIDED", SETTLED_AT), 2, true),
            new QuotaRow("escalated as too old, never sent", new DeliveryRecord.Result.Escalated("too old", SHARD), 0, false),
            new QuotaRow("escalated after a status lookup (a request)", new DeliveryRecord.Result.Escalated("unverifiable", SHARD), 1, true),
            new QuotaRow("an acknowledgement overdue, escalated by the sweep", new DeliveryRecord.Result.OutcomeOverdue("overdue", SHARD), 0, false),
            new QuotaRow("overdue with a request (none today): counted", new DeliveryRecord.Result.OutcomeOverdue("overdue", SHARD), 1, true));

    @Test
    void theAllotmentCountsCommandsSentNotCommandsEndedWithoutARequest() {
        assertThat(quotaMismatches(THE_QUOTA_RULE)).isEmpty();
    }

    /**
     * Known-bad: every end counts against the allotment (the rule before): a backlog night whose commands settle before
     * delivery stopped with time and quota left.
     */
    static final QuotaRule EVERY_END_COUNTS = (result, requests) -> true;

    /** Known-bad: the requests made count (retries too), so a command sent from the guard's record would not. */
    static final QuotaRule ONLY_REQUESTS_COUNT = (result, requests) -> requests > 0;

    @Test
    void theQuotaTableCatchesEveryEndCountedAndOnlyRequestsCounted() {
        assertThat(quotaMismatches(EVERY_END_COUNTS)).isNotEmpty().anyMatch(m -> m.startsWith("cancelled as settled in its round"));
        assertThat(quotaMismatches(ONLY_REQUESTS_COUNT)).isNotEmpty()
                .anyMatch(m -> m.startsWith("delivered from the guard's record"));
    }

    private static List<String> quotaMismatches(QuotaRule rule) {
        List<String> out = new ArrayList<>();
        for (QuotaRow row : QUOTA_ROWS) {
            boolean actual = rule.usedQuota(row.result(), row.requests());
            if (actual != row.counts()) {
                out.add(row.name() + ": expected " + row.counts() + ", was " + actual);
            }
        }
        return out;
    }

    // ---- one command's delivery against a scripted provider ----------------------------------------------------

    /**
     * What one command's delivery came to: its mark (if any), the requests made, the error the call ends with, and
     * whether it ended (or stayed) without any request, giving its place in the plan back ({@code notSent}).
     */
    record Delivery(String mark, long requests, long throttled, boolean deferred, String error, long notSent) {
        Delivery(String mark, long requests, long throttled, boolean deferred, String error) {
            this(mark, requests, throttled, deferred, error, 0);
        }
    }

    private static Delivery deliver(List<Supplier<ProviderResult>> script, Duration remaining) {
        return deliver(script, remaining, () -> true, requests -> false);
    }

    private static Delivery deliver(List<Supplier<ProviderResult>> script, Duration remaining, java.util.function.BooleanSupplier leaseAllows,
                                    java.util.function.IntPredicate settledAfter) {
        return deliver(script, remaining, clock -> new RequestLease() {
            @Override
            public boolean allowsRequest() {
                return leaseAllows.getAsBoolean();
            }

            @Override
            public boolean stillAllowsRequest() {
                return leaseAllows.getAsBoolean();
            }
        }, settledAfter, Duration.ZERO);
    }

    /**
     * @param lease        the call's lease as the requests see it, on the delivery's clock
     * @param settledAfter whether the authorisation is settled once this many requests were made (as a read then sees it)
     * @param readTakes    how long each facts read takes on the delivery's clock
     */
    private static Delivery deliver(List<Supplier<ProviderResult>> script, Duration remaining,
                                    java.util.function.Function<MutableClock, RequestLease> lease,
                                    java.util.function.IntPredicate settledAfter, Duration readTakes) {
        MutableClock clock = new MutableClock(NOW);
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        Deque<Supplier<ProviderResult>> answers = new ArrayDeque<>(script);
        ProviderClient provider = command -> {
            asked.incrementAndGet();
            Supplier<ProviderResult> next = answers.poll();
            if (next == null) {
                throw new AssertionError("the provider was asked more often than the script says");
            }
            return next.get();
        };
        OperationGuard passThrough = new OperationGuard() {
            @Override
            public <T> T once(GuardedOperation operation, com.amazonaws.services.lambda.runtime.Context context, Class<T> type, Supplier<T> body) {
                return body.get();
            }

            @Override
            public <T> Optional<T> recorded(GuardedOperation operation, Class<T> type) {
                return Optional.empty();
            }
        };
        Backoff.Pause movesTheClock = clock::advance;
        SendingRate rate = new SendingRate(new ProviderQuota(10, 4).share(1), clock, null, 0);
        TestContext context = new TestContext(remaining);
        DeliveryFailures failures = new DeliveryFailures();
        List<DeliveryMark> marks = new ArrayList<>();
        FreshFacts facts = new FreshFacts(ids -> {
            Instant readStarted = clock.instant();
            clock.advance(readTakes);
            Map<String, AuthorisationFacts> read = new java.util.HashMap<>();
            ids.forEach(id -> read.put(id, new AuthorisationFacts(settledAfter.test(asked.get())
                    ? Optional.of(new AuthorisationFacts.Settlement(Optional.of(SETTLED_AT))) : Optional.empty(), Optional.empty(), readStarted)));
            return read;
        }, clock, Timing.FACTS_MAX_AGE);
        CommandSender sender = new CommandSender(passThrough, provider, new Backoff(1, movesTheClock, 6, Duration.ofMillis(1),
                Duration.ofMillis(5)), movesTheClock, rate, Deadline.of(context), context, Map.of(), SHARD, failures, lease.apply(clock), facts, clock,
                com.payments.reconciler.workflow.ProviderKeyRetention.DEFAULT.retention(),
                marks::add);

        sender.deliver(new PendingCommand("release-hold:a-1", "a-1", 100, "EUR", NOW.minusSeconds(3600), NOW.minusSeconds(60)));

        String error = "none";
        try {
            failures.throwIfAny();
        } catch (RuntimeException e) {
            error = e.getClass().getSimpleName();
        }
        assertThat(answers).as("every scripted answer was asked for").isEmpty();
        String mark = marks.isEmpty() ? "none" : describe(marks.getFirst().result()) + " after " + marks.getFirst().attempts();
        return new Delivery(mark, sender.requests(), sender.throttledAnswers(), sender.deferred(), error, sender.notSent());
    }

    private static Supplier<ProviderResult> answer(ProviderResult result) {
        return () -> result;
    }

    @Test
    void oneCommandAgainstAScriptedProvider() {
        Duration plenty = Duration.ofHours(1);
        Duration longPause = Timing.THROTTLED_WITHOUT_PROGRESS_LIMIT.dividedBy(2).plusSeconds(1);
        ProviderResult.Throttled throttledLong = new ProviderResult.Throttled(429, Optional.of(longPause));
        ProviderResult.Throttled pastTheDeadline = new ProviderResult.Throttled(503, Optional.of(Duration.ofMinutes(2)));
        record Row(String name, List<Supplier<ProviderResult>> script, Duration remaining, Delivery expected) {
        }
        List<Supplier<ProviderResult>> downEveryTime = new ArrayList<>();
        for (int i = 0; i < ATTEMPTS; i++) {
            downEveryTime.add(answer(DOWN));
        }
        List<Row> rows = List.of(
                new Row("released at once", List.of(answer(RELEASED)), plenty,
                        new Delivery("Delivered(prov-1) after 1", 1, 0, false, "none")),
                new Row("refused: marked REJECTED", List.of(answer(REJECTED)), plenty,
                        new Delivery("Rejected(HOLD_NOT_FOUND) after 1", 1, 0, false, "none")),
                new Row("unavailable once, then released", List.of(answer(DOWN), answer(RELEASED)), plenty,
                        new Delivery("Delivered(prov-1) after 2", 2, 0, false, "none")),
                new Row("unavailable for every attempt: the call ends ProviderUnavailable, nothing marked", downEveryTime, plenty,
                        new Delivery("none", ATTEMPTS, 0, false, ProviderUnavailable.class.getSimpleName())),
                new Row("throttled, then released: the throttle used no attempt", List.of(answer(THROTTLED), answer(DOWN), answer(RELEASED)),
                        plenty, new Delivery("Delivered(prov-1) after 3", 3, 1, false, "none")),
                new Row("throttled past the limit without an answer: treated as down", List.of(answer(throttledLong), answer(throttledLong)),
                        plenty, new Delivery("none", 2, 2, false, ProviderUnavailable.class.getSimpleName())),
                new Row("a Retry-After past the call's deadline: deferred, no error", List.of(answer(pastTheDeadline)), Duration.ofSeconds(60),
                        new Delivery("none", 1, 1, true, "none")),
                new Row("an answer outside the contract about the command: quarantined, the call goes on",
                        List.of(() -> {
                            throw ProviderContractViolation.ofCommand("answered 200 without a reference", 200, "{}");
                        }), plenty, new Delivery("Quarantined(shard " + SHARD + ") after 1", 1, 0, false, "none")),
                new Row("refused credentials: about every command, the call ends",
                        List.of(() -> {
                            throw ProviderContractViolation.ofEveryCommand("provider answered 401");
                        }), plenty, new Delivery("none", 1, 0, false, ProviderContractViolation.class.getSimpleName())));
        List<String> mismatches = new ArrayList<>();
        for (Row row : rows) {
            Delivery actual = deliver(row.script(), row.remaining());
            if (!actual.equals(row.expected())) {
                mismatches.add(row.name() + ": expected " + row.expected() + ", was " + actual);
            }
        }
        assertThat(mismatches).isEmpty();
    }

    /**
     * A throttling pause longer than the facts may be old: they are read again before the retry, which sees the
     * settlement and ends the command unsent after its one (throttled) request. A short backoff reads nothing new.
     */
    @Test
    void aSettlementSeenAfterAThrottlingPauseEndsTheCommandUnsent() {
        ProviderResult.Throttled tenSeconds = new ProviderResult.Throttled(429, Optional.of(Duration.ofSeconds(10)));
        assertThat(deliver(List.of(answer(tenSeconds)), Duration.ofHours(1), () -> true, requests -> requests >= 1))
                .isEqualTo(new Delivery("CancelledSettled(" + SETTLED_AT + ") after 1", 1, 1, false, "none"));
        assertThat(deliver(List.of(answer(DOWN), answer(RELEASED)), Duration.ofHours(1), () -> true, requests -> requests >= 1))
                .as("a backoff of milliseconds keeps the facts read before the first request")
                .isEqualTo(new Delivery("Delivered(prov-1) after 2", 2, 0, false, "none"));
    }

    /**
     * A command whose settlement the last check before its first request sees ends unsent with no request: the call's
     * plan gets its place back (it used none of the quota). One that was asked about first keeps it.
     */
    @Test
    void aCommandEndedBeforeItsFirstRequestGivesItsPlaceInThePlanBack() {
        assertThat(deliver(List.of(), Duration.ofHours(1), () -> true, requests -> true))
                .isEqualTo(new Delivery("CancelledSettled(" + SETTLED_AT + ") after 0", 0, 0, false, "none", 1));
        ProviderResult.Throttled tenSeconds = new ProviderResult.Throttled(429, Optional.of(Duration.ofSeconds(10)));
        assertThat(deliver(List.of(answer(tenSeconds)), Duration.ofHours(1), () -> true, requests -> requests >= 1).notSent())
                .as("ended after a (throttled) request: it took its place").isZero();
    }

    /** A call whose lease does not allow a request sends nothing, marks nothing, and leaves the command PENDING. */
    @Test
    void nothingLeavesOnceTheLeaseNoLongerAllowsARequest() {
        assertThat(deliver(List.of(), Duration.ofHours(1), () -> false, requests -> false))
                .isEqualTo(new Delivery("none", 0, 0, false, "none"));
    }

    /**
     * A facts read (fresh enough) that takes the lease past its send margin: the lease allowed the request before the
     * read, not after it.
     * The request must not leave on the first check alone; the lease is checked again, its renewal is refused (another
     * worker took over), and nothing is sent.
     */
    @Test
    void aFactsReadThatOutlastsTheSendMarginIsFollowedByAnotherLeaseCheck() {
        Duration slowRead = Timing.FACTS_MAX_AGE.minusSeconds(1);
        Instant expiresAt = NOW.plus(Timing.LEASE_SEND_MARGIN).plus(slowRead.dividedBy(2));
        AtomicInteger renewals = new AtomicInteger();
        java.util.function.Function<MutableClock, RequestLease> takenOverDuringTheRead = clock -> new RequestLease() {
            @Override
            public boolean allowsRequest() {
                if (stillAllowsRequest()) {
                    return true;
                }
                renewals.incrementAndGet();
                return false;
            }

            @Override
            public boolean stillAllowsRequest() {
                return clock.instant().isBefore(expiresAt.minus(Timing.LEASE_SEND_MARGIN));
            }
        };

        assertThat(deliver(List.of(), Duration.ofHours(1), takenOverDuringTheRead, requests -> false, slowRead))
                .isEqualTo(new Delivery("none", 0, 0, false, "none"));
        assertThat(renewals).as("the renewal after the read was tried, and refused").hasValue(1);
    }
}
