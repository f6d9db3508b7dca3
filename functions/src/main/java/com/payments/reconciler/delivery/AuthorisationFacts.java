package com.payments.reconciler.delivery;

import java.time.Instant;
import java.util.Optional;

/**
 * What delivery must know about a command's authorisation when its request leaves: whether it settled and whether
 * the card platform ended it, as read together (strongly consistent) at {@code readAt}.
 *
 * @param settlement present when a settlement is stored
 * @param end        present when ingestion recorded an end on the authorisation (a void or an expiry; a kind added to
 *                   the contract later, such as a full reversal, is an end the same way)
 * @param readAt     when the read that returned these facts was sent: their age is counted from here
 * @param heldForFeed a hold for feed stands for it ({@code held#<authorisationId>} or the night-wide {@code held#*} in
 *                   Settlements, read in the same request): a settlement IngestEvents refused may concern it
 */
public record AuthorisationFacts(Optional<Settlement> settlement, Optional<End> end, Instant readAt, boolean heldForFeed) {

    /** Facts with no hold for feed. */
    public AuthorisationFacts(Optional<Settlement> settlement, Optional<End> end, Instant readAt) {
        this(settlement, end, readAt, false);
    }

    AuthorisationFacts held() {
        return new AuthorisationFacts(settlement, end, readAt, true);
    }

    /** @param settledAt empty when the settlement carries none readable: it is settled all the same */
    public record Settlement(Optional<Instant> settledAt) {
    }

    /** @param endedAt empty when the item carries none readable: it ended all the same */
    public record End(String kind, Optional<Instant> endedAt) {
    }

    public static AuthorisationFacts open(Instant readAt) {
        return new AuthorisationFacts(Optional.empty(), Optional.empty(), readAt);
    }
}
