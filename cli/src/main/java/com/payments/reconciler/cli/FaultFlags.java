package com.payments.reconciler.cli;

/** Maps {@code --faults} onto the local engines' fault layers. */
final class FaultFlags {

    private FaultFlags() {
    }

    static LocalCommand.LocalFaults parse(String spec, long seed) {
        throw new IllegalArgumentException("--faults is not available in this build: " + spec);
    }
}
