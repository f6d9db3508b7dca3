package com.payments.reconciler.ingest;

/** What became of one event. Only {@link Refused} leaves the ingestion queue for the refused-events queue. */
public sealed interface IngestOutcome {

    /** Written: {@code write} names which write applied it (the last, when the first was answered by the item). */
    record Accepted(String eventId, String write, int writes, boolean capturedAfterRelease) implements IngestOutcome {
        public Accepted(String eventId, String write, int writes) {
            this(eventId, write, writes, false);
        }
    }

    /** Already applied, by this event's earlier delivery or an equivalent event: nothing written. */
    record Duplicate(String eventId, String why, int writes) implements IngestOutcome {
    }

    /** Not written; the reason is safe to log. The event id is unknown when the event did not decode. */
    record Refused(Refusal refusal, int writes) implements IngestOutcome {
    }

    /** DynamoDB write requests the event cost, failed conditions included (each is a write request). */
    int writes();
}
