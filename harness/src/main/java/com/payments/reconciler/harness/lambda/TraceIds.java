package com.payments.reconciler.harness.lambda;

import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/** X-Ray trace headers in the form Lambda passes in {@code Lambda-Runtime-Trace-Id}. */
final class TraceIds {

    private TraceIds() {
    }

    static String next() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        byte[] root = new byte[12];
        byte[] parent = new byte[8];
        random.nextBytes(root);
        random.nextBytes(parent);
        return "Root=1-" + Long.toHexString(System.currentTimeMillis() / 1000) + "-" + HexFormat.of().formatHex(root)
                + ";Parent=" + HexFormat.of().formatHex(parent) + ";Sampled=0";
    }
}
