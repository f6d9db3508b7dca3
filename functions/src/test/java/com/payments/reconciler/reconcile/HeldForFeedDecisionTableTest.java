package com.payments.reconciler.reconcile;

import com.payments.reconciler.store.Tables.Settlements;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * The reconcile side of "Held for feed", as a table: which candidates of a batch are held, given the hold items found.
 * The known-bad row is kept: a rule that looked only at the candidates' own holds (ignoring the night-wide one) lets
 * through a candidate an unreadable refused message may concern.
 */
class HeldForFeedDecisionTableTest {

    static Stream<Arguments> rows() {
        List<String> batch = List.of("a", "b", "c");
        return Stream.of(
                arguments("no holds: nothing held", batch, Set.of(), Set.of()),
                arguments("one candidate's hold: that one", batch, Set.of(Settlements.heldKey("b")), Set.of("b")),
                arguments("another authorisation's hold: none of these", batch, Set.of(Settlements.heldKey("z")), Set.of()),
                arguments("night-wide hold: every candidate", batch, Set.of(Settlements.NIGHT_WIDE_HOLD_KEY), Set.of("a", "b", "c")),
                arguments("night-wide and one: every candidate", batch, Set.of(Settlements.NIGHT_WIDE_HOLD_KEY, Settlements.heldKey("a")),
                        Set.of("a", "b", "c")),
                arguments("a settlement's own key is not a hold", batch, Set.of("a"), Set.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void heldAmong(String row, List<String> batch, Set<String> holdsFound, Set<String> expected) {
        assertThat(HeldForFeed.heldAmong(batch, holdsFound)).isEqualTo(expected);
    }

    @Test
    void theReadAsksForTheNightWideHoldBesideEachCandidatesOwn() {
        HeldForFeed.ForCall call = new HeldForFeed(DeadLetterDepth.empty()).forCall();
        assertThat(call.keysFor(List.of("a", "b"))).containsExactly(Settlements.NIGHT_WIDE_HOLD_KEY, Settlements.heldKey("a"), Settlements.heldKey("b"));
        assertThat(call.heldAmong(List.of("a", "b"), Set.of(Settlements.heldKey("b")))).containsExactly("b");
    }

    @Test
    void knownBadARuleThatIgnoresTheNightWideHoldReleasesWhatAnUnreadableMessageMayConcern() {
        Set<String> nightWideOnly = Set.of(Settlements.NIGHT_WIDE_HOLD_KEY);
        List<String> batch = List.of("a", "b");
        // The bad rule: own holds only.
        Set<String> ownOnly = Set.copyOf(batch.stream().filter(id -> nightWideOnly.contains(Settlements.heldKey(id))).toList());
        assertThat(ownOnly).as("known-bad: nothing held").isEmpty();
        assertThat(HeldForFeed.heldAmong(batch, nightWideOnly)).as("the rule").containsExactlyInAnyOrderElementsOf(batch);
    }
}
