package io.amqpservlet.gateway.stats;

import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.Set;

/**
 * Heap bytes allocated by the JVM's threads since it started, threads that have ended included. The JVM counts
 * allocation per live thread only ({@code com.sun.management.ThreadMXBean}); a thread that ends takes its count with
 * it. So every thread that may end while the benchmarks measure (Jetty's pool threads, which end after an idle
 * minute or when the pool shrinks, and the floor's injecting threads) runs its task through {@link #counted}, which
 * adds the thread's count to a running total as it ends. The total and the live threads are read under one lock, so
 * an ending thread is counted exactly once: live before it recorded itself, ended after.
 */
public final class ThreadAllocation {
    private static final com.sun.management.ThreadMXBean THREADS = threads();
    private static final Object LOCK = new Object();
    /** Bytes of the counted threads that have ended. */
    private static long endedBytes;
    /** Ids of counted threads that have ended but may still show among the live ids for a moment. */
    private static final Set<Long> ENDED_IDS = new HashSet<>();

    private ThreadAllocation() {
    }

    /** Whether this JVM counts allocation per thread (HotSpot does). */
    static boolean supported() {
        return THREADS != null;
    }

    /** {@code task}, adding the running thread's allocation to the ended total when it returns or throws. */
    public static Runnable counted(Runnable task) {
        if (THREADS == null) {
            return task;
        }
        return () -> {
            try {
                task.run();
            } finally {
                ended(Thread.currentThread().getId());
            }
        };
    }

    private static void ended(long id) {
        synchronized (LOCK) {
            long bytes = THREADS.getThreadAllocatedBytes(id);
            if (bytes > 0) {
                endedBytes += bytes;
            }
            ENDED_IDS.add(id);
        }
    }

    /** Bytes allocated by all live threads plus the counted threads that ended; -1 when not supported. */
    static long totalBytes() {
        if (THREADS == null) {
            return -1;
        }
        synchronized (LOCK) {
            long[] ids = THREADS.getAllThreadIds();
            long[] bytes = THREADS.getThreadAllocatedBytes(ids);
            long total = endedBytes;
            Set<Long> stillListed = new HashSet<>();
            for (int i = 0; i < ids.length; i++) {
                if (ENDED_IDS.contains(ids[i])) {
                    stillListed.add(ids[i]); // already in endedBytes
                } else if (bytes[i] > 0) {
                    total += bytes[i]; // -1 for a thread that ended since the ids were taken
                }
            }
            ENDED_IDS.retainAll(stillListed); // ids are never reused (Java 17): the rest are gone for good
            return total;
        }
    }

    private static com.sun.management.ThreadMXBean threads() {
        if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t
                && t.isThreadAllocatedMemorySupported()) {
            t.setThreadAllocatedMemoryEnabled(true);
            return t;
        }
        return null;
    }
}
