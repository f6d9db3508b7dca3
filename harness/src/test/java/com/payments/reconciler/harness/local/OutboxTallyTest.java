package com.payments.reconciler.harness.local;

import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.store.Tables.ReleaseCommands;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import static org.assertj.core.api.Assertions.assertThat;

class OutboxTallyTest {

    private static Map<String, AttributeValue> command(String id, String window, String status, Integer attempts) {
        var item = new java.util.HashMap<String, AttributeValue>();
        item.put(ReleaseCommands.OPERATION_ID, AttributeValue.fromS("release-hold:" + id));
        item.put(ReleaseCommands.WINDOW_ID, AttributeValue.fromS(window));
        item.put(ReleaseCommands.STATUS, AttributeValue.fromS(status));
        if (attempts != null) {
            item.put(ReleaseCommands.ATTEMPTS, AttributeValue.fromN(attempts.toString()));
        }
        return item;
    }

    @Test
    void countsTheWindowsDeliveredCommandsAndTheirProviderRequestsFromTheStore() {
        StoreSnapshot snapshot = new StoreSnapshot(Map.of(ReleaseCommands.SCHEMA, List.of(
                command("a", "2026-12-01", ReleaseCommands.STATUS_DELIVERED, 1),
                // delivered by a call that then failed: the workflow's summary never saw it, the outbox did
                command("b", "2026-12-01", ReleaseCommands.STATUS_DELIVERED, 2),
                command("c", "2026-12-01", ReleaseCommands.STATUS_PENDING, 0),
                command("d", "2026-12-01", ReleaseCommands.STATUS_REJECTED, 1),
                command("e", "2026-11-30", ReleaseCommands.STATUS_DELIVERED, 5),
                command("f", "2026-12-01", ReleaseCommands.STATUS_PENDING, null))));

        assertThat(OutboxTally.of(snapshot, "2026-12-01")).isEqualTo(new OutboxTally(5, 2, 4, 0, 0, 0, 0));
    }
}
