package com.payments.reconciler.harness.bench;

import com.payments.reconciler.harness.local.InvocationHook;
import com.payments.reconciler.workflow.LambdaFunction;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Watches the local Lambda invocations of one run without changing them: how long each function's
 * handler ran (what Lambda bills as duration) and, around every ReconcilePage call, the heap.
 *
 * <p>Heap: a full collection before the call, the heap pools' peak reset; after it, the peak heap in
 * use during the call (garbage not yet collected included) and the heap still in use after another full
 * collection. These are figures of the whole local JVM, which also hosts the other handlers and the
 * engines' clients (moto itself is a separate process) — so an upper bound on what the page handler
 * needs. (Allocation counters per thread are not available: the endpoint runs invocations on virtual threads.)
 *
 * <p>{@code afterEach} runs after every invocation (the benchmark empties the engine's write log there,
 * which it does not audit, so a 100,000-candidate run does not hold hundreds of thousands of logged
 * writes in moto's memory).
 */
final class InvocationProbe implements InvocationHook {

    private static final long MB = 1024 * 1024;
    private final Map<LambdaFunction, AtomicLong> nanos = new EnumMap<>(LambdaFunction.class);
    private final Map<Thread, Long> started = new ConcurrentHashMap<>();
    private final List<MemoryPoolMXBean> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(p -> p.getType() == MemoryType.HEAP).toList();
    private final Runnable afterEach;
    private final AtomicLong pagePeakBytes = new AtomicLong();
    private final AtomicLong pageLiveBytes = new AtomicLong();
    private final AtomicLong pageCalls = new AtomicLong();

    InvocationProbe(Runnable afterEach) {
        this.afterEach = afterEach;
        for (LambdaFunction function : LambdaFunction.values()) {
            nanos.put(function, new AtomicLong());
        }
    }

    @Override
    public InjectedFailure before(LambdaFunction function, int invocation, byte[] payload) {
        if (function == LambdaFunction.RECONCILE_PAGE) {
            System.gc();
            heapPools.forEach(MemoryPoolMXBean::resetPeakUsage);
        }
        started.put(Thread.currentThread(), System.nanoTime());
        return null;
    }

    @Override
    public InjectedFailure afterSuccess(LambdaFunction function, int invocation, byte[] payload, byte[] result) {
        Long start = started.remove(Thread.currentThread());
        if (start != null) {
            nanos.get(function).addAndGet(System.nanoTime() - start);
        }
        if (function == LambdaFunction.RECONCILE_PAGE) {
            long peak = heapPools.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
            System.gc();
            long live = heapPools.stream().mapToLong(p -> p.getUsage().getUsed()).sum();
            pagePeakBytes.accumulateAndGet(peak, Math::max);
            pageLiveBytes.accumulateAndGet(live, Math::max);
            pageCalls.incrementAndGet();
        }
        afterEach.run();
        return null;
    }

    /** Handler time per function, in seconds. */
    Map<LambdaFunction, Double> handlerSeconds() {
        Map<LambdaFunction, Double> seconds = new EnumMap<>(LambdaFunction.class);
        nanos.forEach((f, n) -> seconds.put(f, n.get() / 1e9));
        return seconds;
    }

    PageHeap pageHeap() {
        return new PageHeap(pageCalls.get(), pagePeakBytes.get() / (double) MB, pageLiveBytes.get() / (double) MB,
                LambdaFunction.RECONCILE_PAGE.memoryMb());
    }

    /**
     * @param peakInUseMb largest heap in use during a page call (incl. garbage; whole local JVM)
     * @param liveAfterCallMb largest heap still in use after a full collection at the end of a call (whole local JVM)
     * @param lambdaMemoryMb the memory the page function is deployed with
     */
    public record PageHeap(long calls, double peakInUseMb, double liveAfterCallMb, int lambdaMemoryMb) {
        boolean fits() {
            return peakInUseMb < lambdaMemoryMb;
        }
    }
}
