package com.payments.reconciler.harness.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class RuntimeNativeLibraryTest {

    @ParameterizedTest
    @CsvSource({
            "amd64,   false, libaws-lambda-jni.linux-x86_64.so",
            "x86_64,  false, libaws-lambda-jni.linux-x86_64.so",
            "aarch64, false, libaws-lambda-jni.linux-aarch_64.so",
            "amd64,   true,  libaws-lambda-jni.linux_musl-x86_64.so",
            "aarch64, true,  libaws-lambda-jni.linux_musl-aarch_64.so"})
    void theVariantIsTheFileTheRuntimeClientJarShipsForThatPlatform(String arch, boolean musl, String expected) {
        assertThat(RuntimeNativeLibrary.variant(arch, musl)).isEqualTo(expected);
    }

    @Test
    void aPlatformTheRuntimeClientDoesNotShipIsNamedInTheRefusal() {
        assertThatThrownBy(() -> RuntimeNativeLibrary.variant("s390x", false))
                .hasMessageContaining("s390x").hasMessageContaining("x86_64 and aarch64");
    }
}
