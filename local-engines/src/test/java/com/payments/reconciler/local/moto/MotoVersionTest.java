package com.payments.reconciler.local.moto;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MotoVersionTest {

    @Test
    void theMachinesMotoIsTheOneThePatchesWereWrittenFor() {
        assertThatCode(MotoServer::requireMoto).doesNotThrowAnyException();
    }

    @Test
    void anotherMotoIsRefusedNamingTheVersionNeededAndTheOneFound() {
        assertThatThrownBy(() -> MotoServer.requireVersion("5.1.0"))
                .hasMessageContaining("moto 5.2.1").hasMessageContaining("has moto 5.1.0");
        assertThatThrownBy(() -> MotoServer.requireVersion(""))
                .hasMessageContaining("moto 5.2.1").hasMessageContaining("unknown version");
    }
}
