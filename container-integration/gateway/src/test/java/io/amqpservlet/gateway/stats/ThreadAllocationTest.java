package io.amqpservlet.gateway.stats;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The allocation total keeps what a counted thread allocated after the thread has ended. */
class ThreadAllocationTest {
    private static final int ALLOCATED_BYTES = 16 << 20;
    private static volatile Object sink;

    @Test
    void anEndedCountedThreadStillCountsItsBytes() throws Exception {
        assumeTrue(ThreadAllocation.supported(), "this JVM does not count allocation per thread");
        long before = ThreadAllocation.totalBytes();
        Thread t = new Thread(ThreadAllocation.counted(() -> {
            for (int i = 0; i < ALLOCATED_BYTES / 4096; i++) {
                sink = new byte[4096];
            }
        }), "allocating");
        t.start();
        t.join();
        long after = ThreadAllocation.totalBytes();
        assertTrue(after - before >= ALLOCATED_BYTES, "ended thread's 16 MiB counted: " + (after - before));
        // Once only: a second read neither loses it nor adds it again.
        long again = ThreadAllocation.totalBytes();
        assertTrue(again - before >= ALLOCATED_BYTES && again - before < 2L * ALLOCATED_BYTES,
                "counted once: " + (again - before));
    }
}
