package com.payments.reconciler.reconcile;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.util.Map;

/** What happened to one fenced release decision (docs/design.md §4), classified from the cancellation reasons. */
public sealed interface ReleaseOutcome {

    /** Decision and outbox command committed together; {@code recognisedAfterLostResponse} when a retry found our own command. */
    record Committed(String operationId, boolean recognisedAfterLostResponse) implements ReleaseOutcome {
    }

    /** The lease check failed: another worker holds a newer epoch. Stop at once; never retried. */
    record Fenced(String currentOwner, long currentEpoch) implements ReleaseOutcome {
    }

    /** The authorisation changed since we read it and is no longer releasable (state or cutoff). */
    record Stale(Map<String, AttributeValue> current) implements ReleaseOutcome {
    }

    /** A settlement exists: never release (invariant I3). */
    record Settled(String authorisationId) implements ReleaseOutcome {
    }

    /** A command for this operation already exists, issued by an earlier leader or run. */
    record AlreadyCommanded(String operationId, long issuedAtEpoch) implements ReleaseOutcome {
    }

    /** The authorisation changed into an item that cannot be read (re-read from a cancellation): skipped, never written. */
    record Malformed(String authorisationId, String problem) implements ReleaseOutcome {
    }

    /** Conflicts or throttling persisted through every in-function retry. */
    record Contention(String detail) implements ReleaseOutcome {
    }
}
