package com.payments.reconciler.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.payments.reconciler.workflow.Json;
import java.util.Set;

/**
 * Which holds a refused event may concern (docs/design.md, "Held for feed"). A refused settlement is a settlement the
 * reconciler never stored, and a missing settlement looks exactly like none: so the refusal itself, at the moment it is
 * made, records a hold — exact, unlike anything a reader of the dead-letter queue could prove afterwards.
 *
 * <ul>
 *   <li>{@link None}: the message is readable and not settlement-bearing (an authorisation or watermark event): its loss
 *   cannot make a settled hold look unsettled.</li>
 *   <li>{@link One}: a {@code settlement.posted} whose {@code authorisationId} is readable in the contract's id form: that
 *   authorisation only.</li>
 *   <li>{@link NightWide}: anything whose type or authorisation id cannot be read — it may be any hold's settlement.</li>
 * </ul>
 */
public sealed interface FeedHold {

    record None() implements FeedHold {
    }

    record One(String authorisationId) implements FeedHold {
    }

    record NightWide() implements FeedHold {
    }

    /**
     * The readable event types that carry no settlement: losing one cannot make a settled hold look unsettled. A
     * {@code provider.outcome} is the provider's verdict on a request already sent; losing it leaves the command
     * awaiting its outcome until the outcome timeout looks it up or escalates it, never a release.
     */
    Set<String> NOT_SETTLEMENT_BEARING = Set.of(EventDecoder.TYPE_CREATED, EventDecoder.TYPE_VOIDED, EventDecoder.TYPE_EXPIRED,
            EventDecoder.TYPE_INCREMENTED, EventDecoder.TYPE_REVERSED, EventDecoder.TYPE_WATERMARK,
            EventDecoder.TYPE_PROVIDER_OUTCOME);

    /**
     * The hold a refused body calls for. Reads only {@code type} and {@code authorisationId}, and keeps the id only when
     * it has the contract's id form (a refused body may hold what looked like card data; no other value is kept).
     */
    static FeedHold of(String body) {
        JsonNode root;
        try {
            // A new mapper per refusal: refusals are rare, and an interface holds no shared mutable state.
            root = body == null ? null : Json.mapper().readTree(body);
        } catch (Exception e) {
            return new NightWide();
        }
        if (root == null || !root.isObject()) {
            return new NightWide();
        }
        JsonNode type = root.get(EventDecoder.TYPE);
        if (type == null || !type.isTextual()) {
            return new NightWide();
        }
        if (!EventDecoder.TYPE_SETTLED.equals(type.textValue())) {
            return NOT_SETTLEMENT_BEARING.contains(type.textValue()) ? new None() : new NightWide();
        }
        return ofSettlement(root.get(EventDecoder.AUTHORISATION_ID));
    }

    /** A settlement: its authorisation when the id is readable, the night otherwise. */
    static FeedHold ofSettlement(JsonNode authorisationId) {
        return authorisationId != null && authorisationId.isTextual() && EventDecoder.ID.matcher(authorisationId.textValue()).matches()
                ? new One(authorisationId.textValue()) : new NightWide();
    }

    /** The hold for a refused event that decoded (a conflict): its own authorisation when it is a settlement. */
    static FeedHold ofEvent(IngestEvent event) {
        return event instanceof IngestEvent.SettlementPosted settled ? new One(settled.authorisationId()) : new None();
    }
}
