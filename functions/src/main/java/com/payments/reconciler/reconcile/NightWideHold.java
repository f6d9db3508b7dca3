package com.payments.reconciler.reconcile;

import com.payments.reconciler.lease.LeaseToken;
import com.payments.reconciler.store.Tables.Settlements;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The dead-letter queue's hold, made durable (docs/design.md, "Held for feed").
 * The depth alone cannot be trusted to stay non-zero while its messages are unaccounted for: SQS deletes a dead-lettered
 * message 14 days after its <em>original</em> enqueue (the move keeps the timestamp), and a redrive empties the queue while
 * the moved settlements wait in the ingestion queue, which no night counts. Either way the depth falls to 0 with nobody
 * having seen the messages. So a ReconcilePage or DeliverCommands call that reads a non-zero depth records the night-wide
 * hold {@code held#*} (the item IngestEvents writes for an unreadable refusal), fenced by the lease, and every later night
 * stays held until an operator runs {@code holds clear --night-wide} after accounting for the messages.
 *
 * <p>At most one read and one write per call, and only when the depth is non-zero: the item is read first (consistent) and
 * written only when absent. A call held by the depth reads no hold items otherwise (ReconcilePage skips them, DeliverCommands
 * returns before its facts), so the read is its own GetItem. An unreadable queue records nothing: a transient AccessDenied
 * holds that call only, and must not stick.
 */
public final class NightWideHold {

    /** Whether {@code held#*} is stored now; throws when it cannot be read. */
    @FunctionalInterface
    public interface Presence {
        boolean present();
    }

    private final Presence presence;
    private final boolean persists;

    private NightWideHold(Presence presence, boolean persists) {
        this.presence = Objects.requireNonNull(presence, "presence");
        this.persists = persists;
    }

    /** The deployed table: one consistent GetItem of {@code held#*} (the key only), when the depth is non-zero. */
    public static NightWideHold stored(DynamoDbClient dynamo, String settlementsTable) {
        Objects.requireNonNull(settlementsTable, "settlementsTable");
        Map<String, AttributeValue> key = Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS(Settlements.NIGHT_WIDE_HOLD_KEY));
        return new NightWideHold(() -> dynamo.getItem(b -> b.tableName(settlementsTable).key(key).consistentRead(true)
                .projectionExpression(Settlements.AUTHORISATION_ID)).hasItem(), true);
    }

    /** Given how its presence is read (tests). */
    public static NightWideHold of(Presence presence) {
        return new NightWideHold(presence, true);
    }

    /**
     * Records nothing: tests of other rules, and the known-bad twin of the rule (the depth's hold lifting by itself).
     */
    public static NightWideHold notRecorded() {
        return new NightWideHold(() -> true, false);
    }

    /** What a call did about the depth it read. */
    public enum Outcome {
        /** The depth was 0, or the queue unreadable: nothing to record. */
        NOTHING,
        /** The hold was there already: nothing written. */
        ALREADY_HELD,
        /** This call wrote the hold. */
        RECORDED
    }

    /**
     * After {@code reading}: when it counted messages, makes sure {@code held#*} is stored, naming the queue, the count and
     * the time. A failed presence read is taken as absent (the Put is conditional, so writing over a hold cannot happen).
     *
     * @throws com.payments.reconciler.workflow.Fenced when the lease check fails
     * @throws com.payments.reconciler.workflow.StoreContention when the write's contention outlives the retries
     */
    public Outcome record(DeadLetterDepth.Reading reading, FencedWriter attempt, LeaseToken lease, Instant now, String caller) {
        if (!persists || !(reading instanceof DeadLetterDepth.NotEmpty notEmpty)) {
            return Outcome.NOTHING;
        }
        boolean present;
        try {
            present = presence.present();
        } catch (RuntimeException e) {
            present = false;
        }
        if (present) {
            return Outcome.ALREADY_HELD;
        }
        return attempt.holdNightWide(lease, reason(notEmpty, now, caller), now) ? Outcome.RECORDED : Outcome.ALREADY_HELD;
    }

    /** The hold's reason: the queue, the count and the time, for the operator who lists the holds. */
    static String reason(DeadLetterDepth.NotEmpty reading, Instant at, String caller) {
        return "DEAD_LETTERED ingestion dead-letter queue held about " + reading.messages() + " messages at " + at + " (read by "
                + caller + "): account for them, then holds clear --night-wide";
    }
}
