package com.payments.reconciler.harness.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.audit.StoreSnapshot;
import com.payments.reconciler.store.Tables.Authorisations;
import com.payments.reconciler.store.Tables.Settlements;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** The dry run's list by the decision's rule, from the tables: a table of items, one of each kind the night skips. */
class WouldReleaseTest {

    private static final Instant CUTOFF = Instant.parse("2026-11-29T02:00:00Z");

    private static Map<String, AttributeValue> authorisation(String id, Instant authorisedAt, boolean pending, String currency) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put(Authorisations.AUTHORISATION_ID, AttributeValue.fromS(id));
        item.put(Authorisations.STATE, AttributeValue.fromS(pending ? Authorisations.STATE_AUTHORISED : Authorisations.STATE_RELEASE_REQUESTED));
        item.put(Authorisations.VERSION, AttributeValue.fromN("1"));
        item.put(Authorisations.AMOUNT_MINOR, AttributeValue.fromN("1250"));
        item.put(Authorisations.CURRENCY, AttributeValue.fromS(currency));
        item.put(Authorisations.AUTHORISED_AT, AttributeValue.fromN(Long.toString(authorisedAt.toEpochMilli())));
        if (pending) {
            item.put(Authorisations.PENDING_SHARD, AttributeValue.fromS("s0"));
        }
        return item;
    }

    @Test
    void onlyPendingWellFormedUnsettledAuthorisationsBeforeTheCutoff() {
        Instant old = CUTOFF.minusSeconds(86_400);
        StoreSnapshot snapshot = new StoreSnapshot(Map.of(
                Authorisations.SCHEMA, List.of(
                        authorisation("due-2", old.plusSeconds(60), true, "EUR"),
                        authorisation("due-1", old, true, "GBP"),
                        authorisation("settled", old, true, "EUR"),
                        authorisation("young", CUTOFF.plusSeconds(1), true, "EUR"),
                        authorisation("at-the-cutoff", CUTOFF, true, "EUR"),
                        authorisation("not-pending", old, false, "EUR"),
                        authorisation("malformed", old, true, "euro")),
                Settlements.SCHEMA, List.of(Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS("settled")))));

        assertThat(WouldRelease.from(snapshot, CUTOFF, false)).containsExactly(
                new WouldRelease.Entry("due-1", old, 1250, "GBP"),
                new WouldRelease.Entry("due-2", old.plusSeconds(60), 1250, "EUR"));
    }

    /** Held for feed as the night holds: an authorisation's own hold, the night-wide hold, the dead-letter queue. */
    @Test
    void heldCandidatesAreNotListed() {
        Instant old = CUTOFF.minusSeconds(86_400);
        List<Map<String, AttributeValue>> due = List.of(authorisation("due-1", old, true, "GBP"), authorisation("due-2", old, true, "EUR"));
        StoreSnapshot ownHold = new StoreSnapshot(Map.of(Authorisations.SCHEMA, due,
                Settlements.SCHEMA, List.of(Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS(Settlements.heldKey("due-1"))))));
        StoreSnapshot nightWide = new StoreSnapshot(Map.of(Authorisations.SCHEMA, due,
                Settlements.SCHEMA, List.of(Map.of(Settlements.AUTHORISATION_ID, AttributeValue.fromS(Settlements.NIGHT_WIDE_HOLD_KEY)))));
        StoreSnapshot noHolds = new StoreSnapshot(Map.of(Authorisations.SCHEMA, due, Settlements.SCHEMA, List.of()));

        assertThat(WouldRelease.from(ownHold, CUTOFF, false)).extracting(WouldRelease.Entry::authorisationId).containsExactly("due-2");
        assertThat(WouldRelease.from(nightWide, CUTOFF, false)).isEmpty();
        assertThat(WouldRelease.from(noHolds, CUTOFF, true)).as("the dead-letter queue held the night").isEmpty();
        // Known-bad input for the rule: the same tables without the holds list both.
        assertThat(WouldRelease.from(noHolds, CUTOFF, false)).hasSize(2);
    }
}
