package com.payments.reconciler.delivery;

import com.payments.reconciler.store.Tables.ReleaseCommands;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a command's first attempt is read (docs/decisions.md, "Commands from before the stamps"): its stamp when it has
 * one; none when it was created by a release that stamps before every request; else its creation, the earliest any
 * request of it can have left. The delivery-level proof, with its known-bad twin (the same command read as never sent
 * is sent blindly and ends REJECTED), is in {@link ForgottenKeysDeliveryTest}.
 */
class PendingCommandFirstAttemptTest {

    private static final long CREATED = 1_000_000L;

    @ParameterizedTest(name = "stamp {0}, marker {1} -> {2}")
    @CsvSource(nullValues = "none", value = {
            // a stamping release's command, never sent
            "none,    true,  none",
            // stamped: the stamp, whoever created it
            "2000000, true,  2000000",
            "2000000, none,  2000000",
            // an earlier release's command without a stamp: may have been sent, so its creation
            "none,    none,  1000000",
            // a marker that is not true is no marker
            "none,    false, 1000000",
    })
    void theFirstAttemptIsTheStampOrNothingOrTheCreation(Long stamp, Boolean marker, Long expected) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put(ReleaseCommands.OPERATION_ID, AttributeValue.fromS("release-hold:auth-1"));
        item.put(ReleaseCommands.AUTHORISATION_ID, AttributeValue.fromS("auth-1"));
        item.put(ReleaseCommands.AMOUNT_MINOR, AttributeValue.fromN("100"));
        item.put(ReleaseCommands.CURRENCY, AttributeValue.fromS("EUR"));
        item.put(ReleaseCommands.CREATED_AT, AttributeValue.fromN(Long.toString(CREATED)));
        if (stamp != null) {
            item.put(ReleaseCommands.FIRST_ATTEMPT_AT, AttributeValue.fromN(Long.toString(stamp)));
        }
        if (marker != null) {
            item.put(ReleaseCommands.STAMPS_FIRST_ATTEMPT, AttributeValue.fromBool(marker));
        }

        PendingCommand command = PendingCommand.fromItem(item);

        assertThat(command.firstAttemptAt()).isEqualTo(expected == null ? java.util.Optional.empty()
                : java.util.Optional.of(Instant.ofEpochMilli(expected)));
    }
}
