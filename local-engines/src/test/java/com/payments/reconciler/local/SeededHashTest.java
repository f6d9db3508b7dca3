package com.payments.reconciler.local;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The fault layers' seeds are the same on every JVM and in every release: a recorded seed replays the same faults. */
class SeededHashTest {

    /** The published FNV-1a 64-bit test vectors. */
    @Test
    void stableHashIsFnv1a() {
        assertThat(SeededHash.stableHash("")).isEqualTo(0xcbf29ce484222325L);
        assertThat(SeededHash.stableHash("a")).isEqualTo(0xaf63dc4c8601ec8cL);
        assertThat(SeededHash.stableHash("foobar")).isEqualTo(0x85944171f73967e8L);
    }

    /** Pinned from the fault layers' own copies before they were merged here: old seeds keep their streams. */
    @Test
    void streamSeedsAreThoseTheFaultLayersDrewBefore() {
        assertThat(SeededHash.of(42, "TransactWriteItems")).isEqualTo(-6101196734539568610L);
        assertThat(SeededHash.mix(SeededHash.of(7, "release-hold:a-1") + 1)).isEqualTo(8813918230598912162L);
    }

    @Test
    void neighbouringSeedsAndNamesGiveUnrelatedStreams() {
        assertThat(SeededHash.of(1, "x")).isNotEqualTo(SeededHash.of(2, "x")).isNotEqualTo(SeededHash.of(1, "y"));
        assertThat(Long.bitCount(SeededHash.of(1, "x") ^ SeededHash.of(2, "x"))).as("bits that differ").isBetween(16, 48);
        assertThat(SeededHash.mix(0)).isZero();
    }
}
