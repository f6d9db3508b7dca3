package com.payments.reconciler.ingest;

import com.payments.reconciler.ingest.EventDecoder.Decoded;
import com.payments.reconciler.workflow.StoreContention;
import java.time.Clock;
import java.util.Optional;

/**
 * One message body in, one {@link IngestOutcome} out: decode, write, and on a failed condition decide from the
 * stored item what it means. Transient store failures are thrown, for the handler to report the message.
 */
public final class EventIngestion {

    /**
     * Writes one event may take: the first, a follow-up the stored item calls for (a stub to complete, an end to
     * record beside a decision) or that the applied write calls for (a settlement's authorisation leaving the pending
     * index), and one more if a concurrent write moved the item between the two.
     */
    static final int MAX_WRITES = 3;

    private final EventDecoder decoder;
    private final IngestionDecision decision;
    private final IngestStore store;
    private final Optional<ProviderOutcomes> outcomes;
    private final Clock clock;

    /**
     * @param outcomes where {@code provider.outcome} events are applied, with an asynchronous provider (adyen); empty with a
     *                 synchronous one, and a {@code provider.outcome} is then refused
     * @param clock labels a hold's heldAt for the operator; no decision reads it
     */
    public EventIngestion(EventDecoder decoder, IngestionDecision decision, IngestStore store, Optional<ProviderOutcomes> outcomes,
                          Clock clock) {
        this.decoder = decoder;
        this.decision = decision;
        this.store = store;
        this.outcomes = outcomes;
        this.clock = clock;
    }

    /**
     * A refusal of a settlement-bearing event records its hold before the outcome is returned (docs/design.md, "Held
     * for feed"): the handler deletes the message only after this returned, so no refused settlement leaves the queue
     * without its hold; a failed hold write is thrown, and the message is received again.
     */
    public IngestOutcome ingest(String body) {
        return switch (decoder.decode(body)) {
            case Decoded.Refused refused -> held(FeedHold.of(body), new IngestOutcome.Refused(refused.refusal(), 0));
            case Decoded.Valid valid -> switch (apply(valid.event())) {
                case IngestOutcome.Refused refused -> held(FeedHold.ofEvent(valid.event()), refused);
                case IngestOutcome other -> other;
            };
        };
    }

    private IngestOutcome held(FeedHold hold, IngestOutcome.Refused refused) {
        if (hold instanceof FeedHold.None) {
            return refused;
        }
        // A body refused for what looked like card data keeps nothing from it, not even its authorisation id: the night is held.
        FeedHold recorded = refused.refusal().reason() == Refusal.Reason.CARDHOLDER_DATA ? new FeedHold.NightWide() : hold;
        store.recordHold(recorded, refused.refusal(), clock.instant());
        return new IngestOutcome.Refused(refused.refusal(), refused.writes() + 1);
    }

    private IngestOutcome apply(IngestEvent event) {
        if (event instanceof IngestEvent.ProviderOutcome outcome) {
            return outcomes.map(store -> store.apply(outcome)).orElseGet(() -> new IngestOutcome.Refused(new Refusal(
                    Refusal.Reason.MALFORMED, "type", "provider.outcome is taken only with an asynchronous provider (provider adyen)"), 0));
        }
        IngestWrite write = decision.first(event);
        String applied = null;
        for (int writes = 1; writes <= MAX_WRITES; writes++) {
            if (write instanceof IngestWrite.LeaveIndexOnSettlement leave) {
                // The follow-up of a settlement stored by this delivery: unconditional, and it answers the state before it.
                Optional<String> before = store.leaveIndex(leave);
                boolean capturedAfterRelease = IngestionDecision.releaseMayHaveGone(before)
                        && IngestionDecision.capturedAfterRelease(store.releaseStatus(event.authorisationId()));
                return new IngestOutcome.Accepted(event.eventId(), applied, writes, capturedAfterRelease);
            }
            Optional<StoredItem> stored = store.apply(write);
            if (stored.isEmpty()) {
                applied = applied == null ? write.getClass().getSimpleName() : applied;
                Optional<IngestWrite> followUp = decision.followUp(write);
                if (followUp.isEmpty()) {
                    return new IngestOutcome.Accepted(event.eventId(), applied, writes);
                }
                write = followUp.get();
                continue;
            }
            switch (decision.afterConditionFailed(write, stored.get())) {
                case IngestionDecision.Next.Duplicate duplicate -> {
                    return new IngestOutcome.Duplicate(event.eventId(), duplicate.why(), writes);
                }
                case IngestionDecision.Next.DuplicateAfter duplicate -> {
                    store.apply(duplicate.followUp());
                    return new IngestOutcome.Duplicate(event.eventId(), duplicate.why(), writes + 1);
                }
                case IngestionDecision.Next.Conflict conflict -> {
                    return new IngestOutcome.Refused(conflict.refusal(), writes);
                }
                case IngestionDecision.Next.Write next -> write = next.write();
                case IngestionDecision.Next.NotYet notYet -> throw new NotYetApplicable("ingest " + event.eventId() + ": " + notYet.why());
            }
        }
        // The item kept changing under us: let SQS deliver the event again later.
        throw new StoreContention("ingest " + event.eventId() + ": authorisation " + event.authorisationId()
                + " changed under " + MAX_WRITES + " conditional writes in a row");
    }

    /**
     * The event changes an authorisation not created yet: thrown so the handler reports the message and SQS delivers it
     * again after the visibility timeout (and to the dead-letter queue after maxReceiveCount if the create never comes).
     */
    public static final class NotYetApplicable extends RuntimeException {
        public NotYetApplicable(String message) {
            super(message);
        }
    }
}
