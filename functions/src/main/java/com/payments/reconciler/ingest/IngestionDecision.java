package com.payments.reconciler.ingest;

import com.payments.reconciler.ingest.IngestEvent.AuthorisationCreated;
import com.payments.reconciler.ingest.IngestEvent.AuthorisationEnded;
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
    }

    /**
     * The write that must follow {@code applied}, if any: a stored settlement takes its authorisation out of the pending
     * index (that write has no condition, so it never comes back here).
     */
    public Optional<IngestWrite> followUp(IngestWrite applied) {
        return applied instanceof RecordSettlement settle ? Optional.of(new LeaveIndexOnSettlement(settle.event())) : Optional.empty();
    }

    public IngestWrite first(IngestEvent event) {
        return switch (event) {
            case AuthorisationCreated created -> new CreateAuthorisation(created, Shards.key(Shards.of(created.authorisationId(), shards)));
            case AuthorisationEnded ended -> new EndAuthorisation(ended);
            case SettlementPosted settled -> new RecordSettlement(settled);
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
            case IngestEvent.ProviderOutcome outcome -> throw new IllegalArgumentException(
                    "provider.outcome writes ReleaseCommands (ProviderOutcomes), not an authorisation");
        };
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
        // One settlement per authorisation in the reconciler's schema: the first stored stays (its settledAt is what
        // delivery compared against); a later one changes nothing the reconciler decides.
        return new Next.Duplicate("the authorisation already has a settlement (event "
                + stored.settlementEventId().orElse("unrecorded") + ")");
    }
}
