package com.payments.reconciler.delivery;

import com.amazonaws.services.lambda.runtime.Context;
import com.payments.reconciler.reconcile.DeliveryMark;
import com.payments.reconciler.reconcile.DeliveryRecord;
import com.payments.reconciler.store.Backoff;
import com.payments.reconciler.workflow.Deadline;
import com.payments.reconciler.workflow.ProviderContractViolation;
import com.payments.reconciler.workflow.ProviderUnavailable;
import com.payments.reconciler.workflow.Timing;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Sends one delivery call's commands to the provider, one per delivery thread: through the {@link OperationGuard}
 * (a retried call is answered from the idempotency record, not sent again), each request at the call's
 * {@link SendingRate}, each answer judged by {@link ProviderAnswers}. Every request, the first and each one after a
 * wait, leaves only while the call's lease allows it ({@link LeaseRenewals#allowsRequest()}) and with the command's
 * facts at most {@link Timing#FACTS_MAX_AGE} old ({@link FreshFacts}); a command settled or ended meanwhile is not
 * sent but ends as {@link UnsentCommand} says. A final answer is queued on the
 * {@link AnswerMarks}; an answer outside the contract about the command parks it QUARANTINED; whatever else ends a
 * command's delivery goes to the call's {@link DeliveryFailures}.
 */
final class CommandSender {

    private static final Logger LOG = LoggerFactory.getLogger(CommandSender.class);

    private final OperationGuard guard;
    private final ProviderClient provider;
    private final Backoff providerRetry;
    private final Backoff.Pause pause;
    private final SendingRate rate;
    private final Deadline deadline;
    private final Context context;
    private final Map<String, String> logContext;
    private final int shard;
    private final DeliveryFailures failures;
    /** Whether the call's lease allows a request to leave now ({@link LeaseRenewals}). */
    private final RequestLease lease;
    private final FreshFacts facts;
    private final Clock clock;
    /** How long the provider keeps an idempotency key ({@link ForgottenKeys}). */
    private final Duration providerKeyRetention;
    /** Where final answers and quarantines go to be marked. */
    private final Consumer<DeliveryMark> marks;
    /** Tries to have the lease and the command's facts both fresh before a request, before the call stops sending. */
    private static final int SEND_CHECKS = 3;

    /** Rates this call's answers outside the contract against its answers: sparse ones park, most of them stop the call. */
    private final ContractBreaker breaker = new ContractBreaker();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong throttledAnswers = new AtomicLong();
    /** Commands a hold for feed kept from their request, seen just before it left: they stay PENDING, unmarked. */
    private final AtomicLong heldForFeed = new AtomicLong();
    /**
     * Commands handed to this sender that ended, or stay PENDING, without a request: their facts no longer called for
     * it just before it left (settled, ended, held for feed). They use none of the quota, so the call's plan gives
     * their place back ({@link ShardPlan#usedQuota}).
     */
    private final AtomicLong notSent = new AtomicLong();
    /** A command could not be sent inside this call (a Retry-After past its deadline): it stays PENDING, the shard goes on. */
    private volatile boolean deferred;

    CommandSender(OperationGuard guard, ProviderClient provider, Backoff providerRetry, Backoff.Pause pause,
                  SendingRate rate, Deadline deadline, Context context, Map<String, String> logContext, int shard,
                  DeliveryFailures failures, RequestLease lease, FreshFacts facts, Clock clock, Duration providerKeyRetention,
                  Consumer<DeliveryMark> marks) {
        this.guard = guard;
        this.provider = provider;
        this.providerRetry = providerRetry;
        this.pause = pause;
        this.rate = rate;
        this.deadline = deadline;
        this.context = context;
        this.logContext = logContext;
        this.shard = shard;
        this.failures = failures;
        this.lease = lease;
        this.facts = facts;
        this.clock = clock;
        this.providerKeyRetention = providerKeyRetention;
        this.marks = marks;
    }

    /** Delivers one command; runs on its own delivery thread. */
    void deliver(PendingCommand command) {
        logContext.forEach(MDC::put);
        MDC.put("operationId", command.operationId());
        AtomicInteger calls = new AtomicInteger();
        try {
            if (failures.halted()) {
                return;
            }
            ProviderResult.Final result;
            try {
                result = guard.once(GuardedOperation.of(command), context, ProviderResult.Final.class,
                        () -> callProvider(command, calls));
            } finally {
                requests.addAndGet(calls.get());
            }
            if (failures.superseded()) {
                return;
            }
            breaker.answered();
            marks.accept(new DeliveryMark(command.operationId(), ProviderAnswers.recordOf(result, shard), calls.get()));
        } catch (NotSent unsent) {
            if (calls.get() == 0) {
                notSent.incrementAndGet();
            }
            if (unsent.decision instanceof DeliveryDecision.HeldForFeed) {
                heldForFeed.incrementAndGet();
                LOG.warn("not sending {}: held for feed (a refused settlement may concern it); it stays PENDING", command.operationId());
                return;
            }
            UnsentCommand ends = UnsentCommand.of(unsent.decision, Optional.empty(), shard);
            LOG.warn("not sending {}{}: {}", command.operationId(),
                    calls.get() > 0 ? " again (" + calls.get() + " earlier requests were not answered finally)" : "", ends.why());
            marks.accept(new DeliveryMark(command.operationId(), ends.result(), calls.get()));
        } catch (Stopped stopped) {
            LOG.info("{} not sent: {}", command.operationId(), stopped.getMessage());
        } catch (Deferred later) {
            LOG.info("{} deferred to the next call: {}", command.operationId(), later.getMessage());
            deferred = true;
        } catch (ProviderContractViolation violation) {
            if (!violation.aboutTheCommand()) {
                LOG.warn("delivery of {} ended with {}: {}", command.operationId(), violation.getClass().getSimpleName(), violation.getMessage());
                failures.add(violation);
                return;
            }
            quarantine(command, violation, calls.get());
        } catch (RuntimeException e) {
            LOG.warn("delivery of {} ended with {}", command.operationId(), e.getClass().getSimpleName());
            failures.add(e);
        } finally {
            facts.done(command);
            MDC.clear();
        }
    }

    /**
     * One answer outside the contract parks its command (the body is kept on the command, not in
     * the log); the others go on. Most of the call's recent answers outside it look like the provider's fault: the
     * call stops, and the commands not yet sent stay PENDING.
     */
    private void quarantine(PendingCommand command, ProviderContractViolation violation, int providerRequests) {
        LOG.warn("quarantining {}: {}", command.operationId(), violation.getMessage());
        if (failures.superseded()) {
            return;
        }
        marks.accept(new DeliveryMark(command.operationId(),
                new DeliveryRecord.Result.Quarantined(violation.answer(), shard), providerRequests));
        if (breaker.violated()) {
            failures.add(ProviderContractViolation.ofEveryCommand(breaker.violationsInWindow() + " of the last "
                    + breaker.answersInWindow() + " answers were outside the provider's contract (the last for "
                    + command.operationId() + "): the provider or its URL looks misconfigured; those commands are QUARANTINED"));
        }
    }

    /**
     * Sends until a final answer, at this call's pace: each request waits for its turn at the share's rate; a wait
     * that would pass the call's deadline defers the command to the next call. A command first attempted so long ago
     * that the provider may have forgotten its key ({@link ForgottenKeys}) is not sent again blindly: its first request
     * here is the status lookup, paced and checked like a release, whose answer ends it or lets the release go.
     */
    private ProviderResult.Final callProvider(PendingCommand command, AtomicInteger calls) {
        int unavailable = 0;
        boolean askFirst = ForgottenKeys.askFirst(command.firstAttemptAt(), clock.instant(), providerKeyRetention);
        while (true) {
            SendingRate.Turn turn = rate.claimTurn(deadline::allowsWait);
            Duration wait = turn.delay();
            if (!turn.claimed()) {
                // Wait out what this call can (the next call waits for the rest), rather than handing over at
                // once: a pause of many minutes must not become a tight loop of short calls.
                pause.pause(deadline.spare());
                throw new Deferred("its turn at the provider's pace is " + wait.toMillis() + " ms away, past this call's deadline");
            }
            if (!wait.isZero()) {
                pause.pause(wait);
            }
            provider.prepare();
            mayStillSend(command);
            calls.incrementAndGet();
            ProviderResult answer;
            if (askFirst) {
                HoldLookup lookup = provider.lookUp(command);
                switch (ForgottenKeys.afterLookup(lookup, command.operationId())) {
                    case ForgottenKeys.Step.Answer known -> {
                        LOG.info("{}: the provider's status lookup ended it ({})", command.operationId(),
                                known.result().getClass().getSimpleName());
                        answer = known.result();
                    }
                    case ForgottenKeys.Step.Send send -> {
                        LOG.info("{}: its hold is still active at the provider; sending the release under the same key", command.operationId());
                        rate.answered();
                        askFirst = false;
                        continue;
                    }
                    case ForgottenKeys.Step.Escalate escalate -> throw new NotSent(new DeliveryDecision.Unverifiable(escalate.reason()));
                    case ForgottenKeys.Step.OutsideContract outside -> throw ProviderContractViolation.ofCommand(outside.why(),
                            ((HoldLookup.Answered) lookup).httpStatus(), ((HoldLookup.Answered) lookup).body());
                    case ForgottenKeys.Step.AskAgain again -> answer = again.answer();
                }
            } else {
                answer = provider.release(command);
            }
            switch (answer) {
                case ProviderResult.Throttled throttled -> {
                    throttledAnswers.incrementAndGet();
                    rate.throttled(throttled.retryAfter().orElse(null));
                    LOG.info("provider throttled {} ({}), Retry-After {}", command.operationId(), throttled.status(),
                            throttled.retryAfter().map(Duration::toString).orElse("none"));
                }
                case ProviderResult.Unavailable down -> {
                    rate.answered();
                    unavailable++;
                    LOG.warn("provider unavailable for {} on attempt {}: {}", command.operationId(), unavailable, down.cause());
                }
                case ProviderResult.Final done -> rate.answered();
            }
            switch (ProviderAnswers.after(answer, command.operationId(), unavailable, calls.get(),
                    rate.throttledSinceAnswerMillis(), answer instanceof ProviderResult.Unavailable && failures.superseded())) {
                case ProviderAnswers.Step.Answered answered -> {
                    return answered.answer();
                }
                case ProviderAnswers.Step.SendAgain again -> {
                }
                case ProviderAnswers.Step.BackOff backOff -> providerRetry.beforeRetry(backOff.unavailableAnswers());
                case ProviderAnswers.Step.ProviderDown down -> throw new ProviderUnavailable(down.reason());
            }
        }
    }

    /**
     * Just before a request leaves, after whatever wait came before it: the call still leads (its lease, checked
     * locally and renewed if close, and no takeover seen) and the command's facts, at most {@link Timing#FACTS_MAX_AGE}
     * old, still call for the release. The first request is checked like every other: a delivery thread can be paused
     * between the round's read and its first request as well as between two requests.
     */
    private void mayStillSend(PendingCommand command) {
        for (int check = 1; ; check++) {
            if (!lease.allowsRequest() || failures.superseded()) {
                throw new Stopped("the call no longer holds the lease, or may not hold it by the time the request is answered");
            }
            DeliveryDecision decision = DeliveryDecision.atTheCall(facts.of(command), clock.instant());
            if (!(decision instanceof DeliveryDecision.Deliver)) {
                throw new NotSent(decision);
            }
            // The read may have waited (another thread's read, DynamoDB's retries): the request leaves only if the lease,
            // as known now and with no further round trip, still outlives it by the margin.
            if (lease.stillAllowsRequest()) {
                return;
            }
            if (check == SEND_CHECKS) {
                throw new Stopped("the command's facts could not be read inside the lease's send margin (" + check + " tries)");
            }
        }
    }

    long requests() {
        return requests.get();
    }

    long heldForFeed() {
        return heldForFeed.get();
    }

    /** Commands this sender was given that ended or stay PENDING without any request of this call. */
    long notSent() {
        return notSent.get();
    }

    long throttledAnswers() {
        return throttledAnswers.get();
    }

    boolean deferred() {
        return deferred;
    }

    /** The command's facts no longer call for the release: it ends unsent (inside the guard, so nothing is recorded there). */
    private static final class NotSent extends RuntimeException {
        private final transient DeliveryDecision decision;

        NotSent(DeliveryDecision decision) {
            super(decision.toString(), null, false, false);
            this.decision = decision;
        }
    }

    /** The call may send nothing more (superseded, or its lease could not be kept): the command stays PENDING. */
    private static final class Stopped extends RuntimeException {
        Stopped(String message) {
            super(message, null, false, false);
        }
    }

    /** A command whose next request cannot go inside this call: it stays PENDING and the next call sends it. */
    private static final class Deferred extends RuntimeException {
        Deferred(String message) {
            super(message, null, false, false);
        }
    }
}
