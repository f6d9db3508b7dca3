package com.payments.reconciler.local.faults;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FaultSpecTest {

    @Test
    void anItemConflictRateAloneTurnsTheDynamoLayerOnAndIsNotPartOfTheOneFaultSum() {
        assertThat(FaultSpec.parse("ddb-item-conflict=1").anyDynamoFaults()).isTrue();
        assertThat(FaultSpec.parse("ddb-conflict=0.5,ddb-lost-response=0.5,ddb-item-conflict=1").ddbItemConflict()).isEqualTo(1.0);
        assertThatThrownBy(() -> FaultSpec.parse("ddb-item-conflict=1.5")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ddb-item-conflict");
    }

    @Test
    void parsesEveryKey() {
        FaultSpec spec = FaultSpec.parse(
                "ddb-conflict=0.05,ddb-throttle=0.02,ddb-lost-response=0.02,provider-drop=0.1,provider-5xx=0.05,provider-slow=0.05,ddb-item-conflict=0.5,provider-malformed=0.01");

        assertThat(spec).isEqualTo(new FaultSpec(0.05, 0.02, 0.02, 0.1, 0.05, 0.05, 0.5, 0.01));
        assertThat(spec.anyDynamoFaults()).isTrue();
        assertThat(FaultSpec.parse(spec.toString())).isEqualTo(spec);
    }

    @Test
    void missingKeysAreZeroAndBlankIsNone() {
        assertThat(FaultSpec.parse(" provider-drop = 1 ")).isEqualTo(new FaultSpec(0, 0, 0, 1, 0, 0));
        assertThat(FaultSpec.parse("")).isEqualTo(FaultSpec.NONE);
        assertThat(FaultSpec.NONE.anyDynamoFaults()).isFalse();
    }

    @Test
    void anUnknownKeyIsNamedWithTheAcceptedKeys() {
        assertThatThrownBy(() -> FaultSpec.parse("ddb-conflict=0.1,ddb-confict=0.2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown key 'ddb-confict'")
                .hasMessageContaining("accepted keys: ddb-conflict, ddb-throttle, ddb-lost-response, provider-drop, provider-5xx, provider-slow")
                .hasMessageContaining("key=probability");
    }

    @Test
    void aDuplicateKeyIsRefused() {
        assertThatThrownBy(() -> FaultSpec.parse("provider-slow=0.1,provider-slow=0.2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'provider-slow' given twice")
                .hasMessageContaining("accepted keys");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ddb-throttle=lots", "ddb-throttle=", "ddb-throttle=0,05"})
    void aNonNumberIsRefusedNamingTheKey(String text) {
        assertThatThrownBy(() -> FaultSpec.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ddb-throttle")
                .hasMessageContaining("accepted keys");
    }

    @ParameterizedTest
    @ValueSource(strings = {"provider-5xx=1.5", "provider-5xx=-0.1", "provider-5xx=NaN"})
    void aProbabilityOutsideZeroToOneIsRefusedNamingTheKey(String text) {
        assertThatThrownBy(() -> FaultSpec.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("provider-5xx must be from 0 to 1")
                .hasMessageContaining("accepted keys");
    }

    @Test
    void entriesThatAreNotKeyValuePairsAreRefused() {
        assertThatThrownBy(() -> FaultSpec.parse("ddb-conflict")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'ddb-conflict' is not key=probability");
        assertThatThrownBy(() -> FaultSpec.parse("ddb-conflict=0.1,")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not key=probability");
        assertThatThrownBy(() -> FaultSpec.parse(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("missing value");
    }

    @Test
    void dynamoProbabilitiesMustLeaveRoomForOneFaultPerRequest() {
        assertThatThrownBy(() -> FaultSpec.parse("ddb-conflict=0.5,ddb-throttle=0.4,ddb-lost-response=0.2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ddb-conflict + ddb-throttle + ddb-lost-response must not exceed 1");
    }
}
