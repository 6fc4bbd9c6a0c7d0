package io.amqpservlet.protocol;

import java.lang.management.ManagementFactory;

/**
 * Measures the heap bytes the current thread allocates while running a piece of code, for tests that assert a
 * steady state allocates nothing.
 *
 * <p>How it measures: {@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes(long)} reports a per-thread
 * counter that the JVM advances on every allocation (TLAB refills included, attributed per object). Reading it
 * twice around the code gives what the code allocated, plus whatever the reading itself allocates. That fixed
 * overhead is measured the same way around an empty {@link Runnable} just before, and subtracted, so a loop that
 * allocates nothing reads 0. The {@link Runnable} is created by the caller before the measurement starts, so a
 * capturing lambda costs nothing inside the measured region; keep the loop inside {@code run()} rather than
 * calling the meter per iteration.
 *
 * <p>Warm the code up first (e.g. 20,000 iterations) so the JIT has compiled it and escape analysis removed what
 * it can; {@link #bytesAllocatedBy(Runnable, Runnable)} does both.
 *
 * <pre>{@code
 * Runnable loop = () -> { for (int i = 0; i < 10_000; i++) encodeAndDecode(); };
 * assertEquals(0, AllocationMeter.bytesAllocatedBy(loop));
 * }</pre>
 */
public final class AllocationMeter {
    private static final com.sun.management.ThreadMXBean THREADS = threads();
    private static final Runnable EMPTY = () -> { };

    private AllocationMeter() {
    }

    private static com.sun.management.ThreadMXBean threads() {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        if (!(bean instanceof com.sun.management.ThreadMXBean)) {
            throw new IllegalStateException("this JVM does not report per-thread allocation: " + bean.getClass());
        }
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        if (!threads.isThreadAllocatedMemorySupported()) {
            throw new IllegalStateException("this JVM does not report per-thread allocation");
        }
        threads.setThreadAllocatedMemoryEnabled(true);
        return threads;
    }

    /**
     * The fewest bytes the current thread allocated in one of up to five runs of {@code measured}, less the fixed
     * cost of the measurement itself; stops early at 0. The caller warms {@code measured} up beforehand.
     *
     * <p>Why the minimum: while a loop runs, the JIT may still recompile or deoptimise something once, which can
     * allocate a few hundred bytes on this thread that have nothing to do with the code measured. That happens in
     * one run, not in every run. An allocation in the measured code itself happens on every iteration of every run
     * (a loop of 10,000 iterations allocating 16 bytes each shows 160,000 bytes in each), so the minimum still
     * reports it.
     */
    public static long bytesAllocatedBy(Runnable measured) {
        // The overhead is read a few times and the smallest kept, for the same reason.
        long overhead = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            overhead = Math.min(overhead, raw(EMPTY));
        }
        long fewest = Long.MAX_VALUE;
        for (int round = 0; round < 5 && fewest > 0; round++) {
            fewest = Math.min(fewest, Math.max(0, raw(measured) - overhead));
        }
        return fewest;
    }

    /** Runs {@code warmUp} (which should loop ~20,000 times), then measures {@code measured} as above. */
    public static long bytesAllocatedBy(Runnable warmUp, Runnable measured) {
        warmUp.run();
        return bytesAllocatedBy(measured);
    }

    private static long raw(Runnable r) {
        long id = Thread.currentThread().getId();
        long before = THREADS.getThreadAllocatedBytes(id);
        r.run();
        return THREADS.getThreadAllocatedBytes(id) - before;
    }
}
