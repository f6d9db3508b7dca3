package com.payments.reconciler.ingest;

import com.payments.reconciler.ingest.IngestEvent.AuthorisationCreated;
import com.payments.reconciler.ingest.IngestEvent.AuthorisationEnded;
import com.payments.reconciler.ingest.IngestEvent.AuthorisationIncremented;
import com.payments.reconciler.ingest.IngestEvent.AuthorisationReversed;
import com.payments.reconciler.ingest.IngestWrite.AddCapture;
import com.payments.reconciler.ingest.IngestWrite.IncrementAuthorisation;
import com.payments.reconciler.ingest.IngestWrite.ReduceAuthorisation;
import com.payments.reconciler.ingest.IngestEvent.SettlementPosted;
import com.payments.reconciler.ingest.IngestWrite.CompleteEndedAuthorisation;
import com.payments.reconciler.ingest.IngestWrite.CompleteSettledAuthorisation;
import com.payments.reconciler.ingest.IngestWrite.LeaveIndexOnSettlement;
import com.payments.reconciler.ingest.IngestWrite.CreateAuthorisation;
import com.payments.reconciler.ingest.IngestWrite.EndAuthorisation;
import com.payments.reconciler.ingest.IngestWrite.RecordEndBesideDecision;
import com.payments.reconciler.ingest.IngestWrite.RecordSettlement;
import com.payments.reconciler.ingest.StoredItem.StoredAuthorisation;
import com.payments.reconciler.ingest.StoredItem.StoredSettlement;
import com.payments.reconciler.reconcile.Shards;
import com.payments.reconciler.store.Tables.Authorisations;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What an event writes, and what to do when that write's condition failed, from the stored item alone (pure:
 * tested with tables of cases). The rules that keep the reconciler's guarantees (docs/decisions.md, "Ingestion
 * writes without the lease"): ingestion only ever moves an authorisation out of AUTHORISED (or creates it), never
 * into AUTHORISED again nor out of any state the reconciler set; it never writes ReleaseCommands or Leases.
 */
public final class IngestionDecision {

    private final int shards;

    /** @param shards the {@code pending-by-age} shards the reconciler queries (the stack's {@code shards}) */
    public IngestionDecision(int shards) {
        this.shards = shards;
    }

    /** The next step after a write: done, or another write. */
    public sealed interface Next {
        /** Applied by an earlier delivery of this event, or an equivalent one: nothing to write. */
        record Duplicate(String why) implements Next {
        }

        /** Refused as contradicting the stored item (the stored one stays). */
        record Conflict(Refusal refusal) implements Next {
        }

        record Write(IngestWrite write) implements Next {
        }

        /**
         * Applied by an earlier delivery, whose follow-up write may not have been made (a response lost, a crash between
         * the two): {@code followUp} is made again (it has no condition and repeats harmlessly), then it is a duplicate.
         */
        record DuplicateAfter(IngestWrite followUp, String why) implements Next {
        }

        /**
         * Cannot be applied yet: the authorisation it changes has not been created (events on a standard queue come in any
         * order). Nothing is written; the message is left for SQS to deliver again after its visibility timeout.
         */
        record NotYet(String why) implements Next {
        }
    }

    /**
     * The write that must follow {@code applied}, if any: a stored settlement takes its authorisation out of the pending
     * index (that write has no condition, so it never comes back here).
     */
    public Optional<IngestWrite> followUp(IngestWrite applied) {
        return applied instanceof RecordSettlement settle ? Optional.of(new LeaveIndexOnSettlement(settle.event())) : Optional.empty();
    }

    /** Whether a settlement stored on an authorisation in {@code stateBefore} needs its release command read: only a decided one. */
    public static boolean releaseMayHaveGone(Optional<String> stateBefore) {
        return stateBefore.equals(Optional.of(Authorisations.STATE_RELEASE_REQUESTED));
    }

    /**
     * capturedAfterRelease: the provider confirmed the release (DELIVERED) and the merchant captured anyway. A command
     * still PENDING is cancelled by delivery's fresh read of the settlement, so it is not counted.
     */
    public static boolean capturedAfterRelease(Optional<String> commandStatus) {
        return commandStatus.equals(Optional.of(com.payments.reconciler.store.Tables.ReleaseCommands.STATUS_DELIVERED));
    }

    public IngestWrite first(IngestEvent event) {
        return switch (event) {
            case AuthorisationCreated created -> new CreateAuthorisation(created, Shards.key(Shards.of(created.authorisationId(), shards)));
            case AuthorisationEnded ended -> new EndAuthorisation(ended);
            case SettlementPosted settled -> new RecordSettlement(settled);
            case AuthorisationIncremented incremented -> new IncrementAuthorisation(incremented);
            case AuthorisationReversed reversed -> new ReduceAuthorisation(reversed);
            case IngestEvent.FeedWatermark watermark -> new IngestWrite.AdvanceWatermark(watermark);
            case IngestEvent.ProviderOutcome outcome -> throw new IllegalArgumentException(
                    "provider.outcome writes ReleaseCommands (ProviderOutcomes), not an authorisation");
        };
    }

    /** {@code failed}'s condition did not hold; {@code stored} is the item as DynamoDB returned it with the failure. */
    public Next afterConditionFailed(IngestWrite failed, StoredItem stored) {
        return switch (failed.event()) {
            case AuthorisationCreated created -> afterCreate(created, (StoredAuthorisation) stored);
            case AuthorisationEnded ended -> afterEnd(ended, (StoredAuthorisation) stored);
            case SettlementPosted settled -> afterSettlement(settled, (StoredSettlement) stored);
            case AuthorisationIncremented incremented -> afterIncrement(incremented, (StoredAuthorisation) stored);
            case AuthorisationReversed reversed -> afterReduce(reversed, (StoredAuthorisation) stored);
            case IngestEvent.FeedWatermark watermark -> afterWatermark(watermark, (StoredItem.StoredWatermark) stored);
            case IngestEvent.ProviderOutcome outcome -> throw new IllegalArgumentException(
                    "provider.outcome writes ReleaseCommands (ProviderOutcomes), not an authorisation");
        };
    }

    /** The state {@link IngestStore} reads for an absent item. */
    static final String ABSENT = "ABSENT";

    private static Next afterIncrement(AuthorisationIncremented event, StoredAuthorisation stored) {
        if (stored.lifecycleEventIds().contains(event.eventId())) {
            return new Next.Duplicate("event already applied");
        }
        if (ABSENT.equals(stored.state())) {
            return new Next.NotYet("authorisation " + event.authorisationId() + " is not created yet: the increment waits for its create");
        }
        if (!Authorisations.STATE_AUTHORISED.equals(stored.state())) {
            // Decided (its release asks for the whole hold back), ended, or settled before its create: nothing to decide again.
            return new Next.Duplicate("the authorisation is no longer pending (state " + stored.state() + "): an increment changes nothing the reconciler decides");
        }
        if (stored.currency().isPresent() && !stored.currency().equals(Optional.of(event.currency()))) {
            return new Next.Conflict(new Refusal(Refusal.Reason.CONFLICT, "currency",
                    "differs from the stored authorisation " + event.authorisationId() + " (" + stored.currency().get() + "); an increment keeps its currency"));
        }
        if (stored.lastChangedAt().isPresent() && stored.lastChangedAt().get().isAfter(event.incrementedAt())) {
            return new Next.Duplicate("superseded: a later increment or reversal (at " + stored.lastChangedAt().get() + ") is already applied");
        }
        if (stored.amountMinor().isPresent() && stored.amountMinor().get() >= event.amountMinor()) {
            return new Next.Conflict(new Refusal(Refusal.Reason.CONFLICT, "amountMinor",
                    "must be higher than the stored amount " + stored.amountMinor().get() + " of authorisation " + event.authorisationId()
                            + " (an increment carries the new total); the stored amount stays"));
        }
        // Only a racing write between our condition and its answer could show this: decide again from the start.
        return new Next.Write(new IncrementAuthorisation(event));
    }

    private static Next afterReduce(AuthorisationReversed event, StoredAuthorisation stored) {
        if (stored.lifecycleEventIds().contains(event.eventId())) {
            return new Next.Duplicate("event already applied");
        }
        if (ABSENT.equals(stored.state())) {
            return new Next.NotYet("authorisation " + event.authorisationId() + " is not created yet: the reversal waits for its create");
        }
        if (stored.currency().isPresent() && !stored.currency().equals(Optional.of(event.currency()))) {
            return new Next.Conflict(new Refusal(Refusal.Reason.CONFLICT, "currency",
                    "differs from the stored authorisation " + event.authorisationId() + " (" + stored.currency().get() + "); a reversal keeps its currency"));
        }
        boolean all = stored.amountMinor().equals(Optional.of(event.amountMinor()));
        if (Authorisations.STATE_AUTHORISED.equals(stored.state())) {
            if (all) {
                // All that remained was given back: it ends like a void (out of the index, version + 1).
                return new Next.Write(new EndAuthorisation(event.asEnd()));
            }
            if (stored.amountMinor().isPresent() && stored.amountMinor().get() < event.amountMinor()) {
                return new Next.Conflict(new Refusal(Refusal.Reason.CONFLICT, "amountMinor",
                        "more than the remaining amount " + stored.amountMinor().get() + " of authorisation " + event.authorisationId()
                                + "; the stored amount stays"));
            }
            return new Next.Write(new ReduceAuthorisation(event));
        }
        if (all && stored.endEventId().isEmpty() && !Authorisations.STATE_VOIDED.equals(stored.state())
                && !IngestStore.NO_STATE.equals(stored.state())) {
            // Decided before it, and the reversal gave back the whole hold: recorded as its end beside the decision, so
            // delivery cancels the command (CANCELLED_ENDED) instead of releasing a hold that is gone.
            return new Next.Write(new RecordEndBesideDecision(event.asEnd(), stored.state()));
        }
        return new Next.Duplicate("the authorisation is no longer pending (state " + stored.state()
                + "): a partial reversal changes nothing the reconciler decides");
    }

    private Next afterCreate(AuthorisationCreated event, StoredAuthorisation stored) {
        if (stored.createdEventId().equals(Optional.of(event.eventId()))) {
            return new Next.Duplicate("event already applied");
        }
        if (stored.authorisedAt().isEmpty() && IngestStore.NO_STATE.equals(stored.state())) {
            // A stub its settlement made before the create arrived: fill it in, AUTHORISED but never pending.
            return new Next.Write(new CompleteSettledAuthorisation(event));
        }
        if (stored.authorisedAt().isEmpty()) {
            // A stub an end event made before its create arrived: fill it in, and it stays ended.
            return new Next.Write(new CompleteEndedAuthorisation(event, stored.state()));
        }
        List<String> differing = new ArrayList<>();
        if (!stored.amountMinor().equals(Optional.of(event.amountMinor()))) differing.add("amountMinor");
        if (!stored.currency().equals(Optional.of(event.currency()))) differing.add("currency");
        if (!stored.authorisedAt().equals(Optional.of(event.authorisedAt()))) differing.add("authorisedAt");
        if (stored.merchantId().isPresent() && !stored.merchantId().equals(Optional.of(event.merchantId()))) differing.add("merchantId");
        // A reference on both that differs names another authorisation at the provider; one side without is a version 1
        // create and its version 2 repeat (the stored item stays as it is).
        if (stored.providerReference().isPresent() && event.providerReference().isPresent()
                && !stored.providerReference().equals(event.providerReference())) differing.add("providerReference");
        if (differing.isEmpty()) {
            return new Next.Duplicate("the authorisation is stored with the same fields (another event id)");
        }
        return new Next.Conflict(new Refusal(Refusal.Reason.CONFLICT, differing.getFirst(),
                "differs from the stored authorisation " + event.authorisationId() + " (fields " + differing + "); the stored one stays, "
                        + "and a second authorisation.created may only repeat it"));
    }

    private Next afterEnd(AuthorisationEnded event, StoredAuthorisation stored) {
        if (stored.endEventId().equals(Optional.of(event.eventId()))) {
            return new Next.Duplicate("event already applied");
        }
        if (stored.endEventId().isPresent() || Authorisations.STATE_VOIDED.equals(stored.state())) {
            return new Next.Duplicate("the authorisation already ended (event " + stored.endEventId().orElse("unrecorded") + ")");
        }
        if (Authorisations.STATE_AUTHORISED.equals(stored.state())) {
            // Only a racing write between our condition and its answer could show this: decide again from the start.
            return new Next.Write(new EndAuthorisation(event));
        }
        // RELEASE_REQUESTED (the reconciler decided first) or a state the platform set: recorded, never rewound.
        return new Next.Write(new RecordEndBesideDecision(event, stored.state()));
    }

    private static Next afterSettlement(SettlementPosted event, StoredSettlement stored) {
        if (stored.settlementEventId().equals(Optional.of(event.eventId()))) {
            return new Next.DuplicateAfter(new LeaveIndexOnSettlement(event), "event already applied");
        }
        if (event.captureSequence().isPresent() && !stored.captures().isEmpty()) {
            int sequence = event.captureSequence().get();
            Long storedAmount = stored.captures().get(sequence);
            if (storedAmount != null) {
                return storedAmount == event.amountMinor()
                        ? new Next.Duplicate("capture " + sequence + " already applied with the same amount")
                        : new Next.Conflict(new Refusal(Refusal.Reason.CONFLICT, "amountMinor", "differs from capture " + sequence
                        + " stored for authorisation " + event.authorisationId() + " (" + storedAmount + "); the stored capture stays"));
            }
            if (stored.currency().isPresent() && !stored.currency().equals(Optional.of(event.currency()))) {
                return new Next.Conflict(new Refusal(Refusal.Reason.CONFLICT, "currency", "differs from the stored captures of authorisation "
                        + event.authorisationId() + " (" + stored.currency().get() + ")"));
            }
            return new Next.Write(new AddCapture(event));
        }
        // Version 1 (no captureSequence), or captures on a version 1 settlement: one settlement per authorisation, the first
        // stored stays (its settledAt is what delivery compared against); a later one changes nothing the reconciler decides.
        return new Next.Duplicate("the authorisation already has a settlement (event "
                + stored.settlementEventId().orElse("unrecorded") + ")");
    }

    /**
     * The stored watermark is at or after this one (the only way the advance's condition fails): monotonic, so a late or
     * repeated watermark changes nothing, and it is no refusal (publishers may repeat or reorder them freely).
     */
    static Next afterWatermark(IngestEvent.FeedWatermark event, StoredItem.StoredWatermark stored) {
        if (stored.watermarkEventId().equals(Optional.of(event.eventId()))) {
            return new Next.Duplicate("event already applied");
        }
        return new Next.Duplicate("the " + event.feed() + " feed's watermark is already at "
                + stored.watermark().map(Object::toString).orElse("an unreadable value") + ", not before " + event.watermark());
    }
}
