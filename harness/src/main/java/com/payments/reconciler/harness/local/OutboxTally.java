package com.payments.reconciler.harness.local;

import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Delivery figures of a window read from the stored outbox, not from the workflow's summary. The
 * summary adds up what each DeliverCommands call returned; a call that delivered some commands and then
 * failed (a lost invocation, an in-progress idempotency record) returns nothing, and its retry no longer
 * sees those commands as pending, so the summary undercounts. The outbox is the record of what was delivered.
 *
 * @param commands the window's commands, whatever their status: one per authorisation it requested a release of
 * @param delivered commands of the window in {@code DELIVERED}
 * @param attempts provider requests recorded on the window's commands (the sum of their {@code attempts})
 * @param cancelledSettled commands of the window in {@code CANCELLED_SETTLED}
 * @param cancelledEnded commands of the window in {@code CANCELLED_ENDED}
 * @param quarantined commands of the window in {@code QUARANTINED}
 * @param escalated commands of the window in {@code ESCALATED}
 * @param acknowledged commands of the window in {@code ACKNOWLEDGED}: sent to an asynchronous provider, outcome awaited
 */
public record OutboxTally(long commands, long delivered, long attempts, long cancelledSettled, long cancelledEnded, long quarantined, long escalated,
                          long acknowledged) {

    /** A tally without asynchronous-provider commands. */
    public OutboxTally(long commands, long delivered, long attempts, long cancelledSettled, long cancelledEnded, long quarantined, long escalated) {
        this(commands, delivered, attempts, cancelledSettled, cancelledEnded, quarantined, escalated, 0);
    }

    public static OutboxTally of(StoreSnapshot snapshot, String windowId) {
        List<Map<String, AttributeValue>> commands = snapshot.of(ReleaseCommands.SCHEMA).stream()
                .filter(c -> windowId.equals(text(c, ReleaseCommands.WINDOW_ID)))
                .toList();
        java.util.function.ToLongFunction<String> inStatus = status -> commands.stream()
                .filter(c -> status.equals(text(c, ReleaseCommands.STATUS))).count();
        long attempts = commands.stream()
                .map(c -> c.get(ReleaseCommands.ATTEMPTS))
                .filter(v -> v != null && v.n() != null)
                .mapToLong(v -> Long.parseLong(v.n()))
                .sum();
        return new OutboxTally(commands.size(), inStatus.applyAsLong(ReleaseCommands.STATUS_DELIVERED), attempts,
                inStatus.applyAsLong(ReleaseCommands.STATUS_CANCELLED_SETTLED), inStatus.applyAsLong(ReleaseCommands.STATUS_CANCELLED_ENDED),
                inStatus.applyAsLong(ReleaseCommands.STATUS_QUARANTINED),
                inStatus.applyAsLong(ReleaseCommands.STATUS_ESCALATED), inStatus.applyAsLong(ReleaseCommands.STATUS_ACKNOWLEDGED));
    }

    private static String text(Map<String, AttributeValue> item, String attribute) {
        AttributeValue value = item.get(attribute);
        return value == null ? null : value.s();
    }
}
