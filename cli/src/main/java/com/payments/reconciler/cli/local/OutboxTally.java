package com.payments.reconciler.cli.local;

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
 * @param delivered commands of the window in {@code DELIVERED}
 * @param attempts provider requests recorded on the window's commands (the sum of their {@code attempts})
 */
public record OutboxTally(long delivered, long attempts) {

    public static OutboxTally of(StoreSnapshot snapshot, String windowId) {
        List<Map<String, AttributeValue>> commands = snapshot.of(ReleaseCommands.SCHEMA).stream()
                .filter(c -> windowId.equals(text(c, ReleaseCommands.WINDOW_ID)))
                .toList();
        long delivered = commands.stream()
                .filter(c -> ReleaseCommands.STATUS_DELIVERED.equals(text(c, ReleaseCommands.STATUS)))
                .count();
        long attempts = commands.stream()
                .map(c -> c.get(ReleaseCommands.ATTEMPTS))
                .filter(v -> v != null && v.n() != null)
                .mapToLong(v -> Long.parseLong(v.n()))
                .sum();
        return new OutboxTally(delivered, attempts);
    }

    private static String text(Map<String, AttributeValue> item, String attribute) {
        AttributeValue value = item.get(attribute);
        return value == null ? null : value.s();
    }
}
