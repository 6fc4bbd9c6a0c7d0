package io.amqpservlet.bench.engine;

import io.amqpservlet.bench.engine.EngineBenchmark.Measurement;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;

/**
 * Measures the iterations of one {@link MessageFlow} on the thread that drives it (which runs both engines, so every
 * cost of the pairing lands on it): wall-clock time; CPU time of the thread plus the time the collectors report
 * (young collections stop the thread, and their work is part of what an allocating engine costs), which other
 * processes on a busy machine do not inflate; and bytes allocated by the thread
 * ({@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes}).
 */
final class FlowMeter {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    final MessageFlow flow;
    private final double[] wallRates;
    private final double[] cpuRates;
    private int iterations;
    private long messages;
    private long allocatedBytes;

    FlowMeter(MessageFlow flow, int iterations) {
        this.flow = flow;
        this.wallRates = new double[iterations];
        this.cpuRates = new double[iterations];
    }

    /** Runs and measures one iteration of about {@code seconds}. */
    void iterate(double seconds) {
        long thread = Thread.currentThread().getId();
        long bytesBefore = THREADS.getThreadAllocatedBytes(thread);
        long gcBefore = gcMillis();
        long cpuBefore = THREADS.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        long n = EngineBenchmark.runFor(flow, seconds);
        long wallNanos = System.nanoTime() - start;
        long cpuNanos = THREADS.getCurrentThreadCpuTime() - cpuBefore + (gcMillis() - gcBefore) * 1_000_000L;
        allocatedBytes += THREADS.getThreadAllocatedBytes(thread) - bytesBefore;
        messages += n;
        wallRates[iterations] = n * 1e9 / wallNanos;
        cpuRates[iterations] = n * 1e9 / Math.max(1, cpuNanos);
        iterations++;
    }

    /** The medians of the iterations so far, and the bytes per message over all of them. */
    Measurement result() {
        if (iterations == 0) {
            throw new IllegalStateException("no iteration was measured");
        }
        return new Measurement(flow.name(), median(wallRates, iterations), median(cpuRates, iterations),
                (double) allocatedBytes / messages);
    }

    static double median(double[] values, int n) {
        double[] sorted = Arrays.copyOf(values, n);
        Arrays.sort(sorted);
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static long gcMillis() {
        long total = 0;
        List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
        for (GarbageCollectorMXBean gc : collectors) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }
}
