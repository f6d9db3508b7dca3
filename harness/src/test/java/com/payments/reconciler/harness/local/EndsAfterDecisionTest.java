package com.payments.reconciler.harness.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.payments.reconciler.audit.ProviderEffect;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The scenario's own check: an authorisation ended or captured before delivery that the provider released is a finding. */
class EndsAfterDecisionTest {

    static ProviderEffect effect(String id, int performed) {
        return new ProviderEffect("release-hold:" + id, id, performed, Math.max(1, performed), performed == 0 ? List.of() : List.of(1L));
    }

    @Test
    void onlyAChosenAuthorisationThatWasPerformedIsReleasedAnyway() {
        List<ProviderEffect> effects = List.of(effect("a", 1), effect("b", 0), effect("c", 1));

        assertThat(EndsAfterDecision.releasedAnyway(Set.of("b", "d"), effects)).as("b was asked about but never performed").isEmpty();
        assertThat(EndsAfterDecision.releasedAnyway(Set.of("c", "b"), effects)).as("the known-bad case: c was released").containsExactly("c");
    }
}
