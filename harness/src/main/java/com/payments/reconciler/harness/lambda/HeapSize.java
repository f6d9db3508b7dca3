package com.payments.reconciler.harness.lambda;

/**
 * The heap Lambda's Java runtime gives a function: {@code -XX:MaxHeapSize} of 85 % of the function's
 * memory, in KiB, rounded. Not documented as a formula by AWS; observed on the managed runtimes' command
 * lines, which read {@code -XX:MaxHeapSize=445645k} for a 512 MB function (512 × 1024 × 0.85 = 445,644.8)
 * from the Java 8 runtime through java17/java21 (see docs/emulator-differences.md, "Lambda").
 */
public record HeapSize(long kib) {

    public static HeapSize forMemory(int memoryMb) {
        return new HeapSize(Math.round(memoryMb * 1024L * 0.85));
    }

    public String jvmOption() {
        return "-XX:MaxHeapSize=" + kib + "k";
    }
}
