package com.payments.reconciler.ingest;

import com.payments.reconciler.ingest.IngestEvent.AuthorisationCreated;
import com.payments.reconciler.ingest.IngestEvent.AuthorisationEnded;
import com.payments.reconciler.ingest.IngestEvent.AuthorisationIncremented;
import com.payments.reconciler.ingest.IngestEvent.AuthorisationReversed;
import com.payments.reconciler.ingest.IngestEvent.SettlementPosted;

/**
 * The one conditional write an event makes (docs/integration.md, "What each event writes"). Each write's
 * condition is also its idempotency check: it fails when the event (or an equivalent one) was already applied,
 * and the stored item it returns lets {@link IngestionDecision} say which.
 */
public sealed interface IngestWrite {

    IngestEvent event();

    /** A new pending authorisation, in the {@code pending-by-age} index under {@code shardKey}. */
    record CreateAuthorisation(AuthorisationCreated event, String shardKey) implements IngestWrite {
    }

    /** The create of an authorisation whose end arrived first: its fields, and it stays ended (never pending). */
    record CompleteEndedAuthorisation(AuthorisationCreated event, String observedState) implements IngestWrite {
    }

    /** Absent or still AUTHORISED: ended, out of the pending index, version + 1. */
    record EndAuthorisation(AuthorisationEnded event) implements IngestWrite {
    }

    /**
     * The reconciler (or the platform) already moved the item on: the end is recorded beside it, and state,
     * version and the pending index are left exactly as they are.
     */
    record RecordEndBesideDecision(AuthorisationEnded event, String observedState) implements IngestWrite {
    }

    record RecordSettlement(SettlementPosted event) implements IngestWrite {
    }

    /**
     * After {@link RecordSettlement}: the authorisation leaves the pending index (or, not yet created, a stub says it
     * settled), so no later night reads it again. State and version are never touched.
     */
    record LeaveIndexOnSettlement(SettlementPosted event) implements IngestWrite {
    }

    /** The create of an authorisation whose settlement arrived first: its fields, AUTHORISED, never in the pending index. */
    record CompleteSettledAuthorisation(AuthorisationCreated event) implements IngestWrite {
    }

    /** Still AUTHORISED: the amount goes up to the increment's total, version + 1, and the hold's validity moves if given. */
    record IncrementAuthorisation(AuthorisationIncremented event) implements IngestWrite {
    }

    /** Still AUTHORISED and more remains than is reversed: the amount goes down, version + 1. */
    record ReduceAuthorisation(AuthorisationReversed event) implements IngestWrite {
    }

    /** A version 2 capture after the first: its amount added under its sequence, once. */
    record AddCapture(SettlementPosted event) implements IngestWrite {
    }
}
