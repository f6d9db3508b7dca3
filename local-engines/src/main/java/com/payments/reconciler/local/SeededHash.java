package com.payments.reconciler.local;

import java.nio.charset.StandardCharsets;

/**
 * The seeded draws of the fault layers: a stream named by a string (an operation's stream, an idempotency key) gets
 * its own seed from the run's seed, the same on every JVM, so a seed replays the same faults. One definition: the
 * DynamoDB and provider fault layers derive their seeds here, and a recorded seed stays valid across both.
 */
public final class SeededHash {

    private SeededHash() {
    }

    /** The seed of the stream {@code name} within the run seeded with {@code seed}. */
    public static long of(long seed, String name) {
        return mix(seed ^ stableHash(name));
    }

    /** FNV-1a over UTF-8: stable across JVMs, unlike {@code String.hashCode} it is specified here. */
    public static long stableHash(String text) {
        long hash = 0xcbf29ce484222325L;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= 0x100000001b3L;
        }
        return hash;
    }

    /** SplitMix64's finaliser: neighbouring inputs give unrelated seeds. */
    public static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
