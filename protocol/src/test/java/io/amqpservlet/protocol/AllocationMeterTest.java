package io.amqpservlet.protocol;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AllocationMeterTest {
    /** Escapes through a field so that the JIT cannot prove the arrays dead and remove them. */
    private static Object sink;
    private static long counter;

    private static void allocatingLoop() {
        for (int i = 0; i < 10_000; i++) {
            sink = new byte[16];
        }
    }

    private static void smallestObjectLoop() {
        for (int i = 0; i < 10_000; i++) {
            sink = new Object();
        }
    }

    private static void emptyLoop() {
        for (int i = 0; i < 10_000; i++) {
            counter += i;
        }
    }

    @Test
    void detectsAnAllocatingLoop() {
        Runnable loop = AllocationMeterTest::allocatingLoop;
        loop.run();
        loop.run();
        long bytes = AllocationMeter.bytesAllocatedBy(loop);
        // 10,000 arrays of 16 bytes each take at least 16 bytes of payload plus a header.
        assertTrue(bytes >= 10_000L * 16, "measured " + bytes + " bytes");
    }

    @Test
    void detectsTheSmallestObjectAllocatedOnEveryIteration() {
        Runnable loop = AllocationMeterTest::smallestObjectLoop;
        loop.run();
        loop.run();
        long bytes = AllocationMeter.bytesAllocatedBy(loop);
        // A plain Object is a header only, at least 8 bytes (16 on 64-bit HotSpot), allocated on every iteration of
        // every run, so taking the fewest bytes over several runs does not hide it.
        assertTrue(bytes >= 10_000L * 8, "measured " + bytes + " bytes");
    }

    @Test
    void readsZeroForALoopThatAllocatesNothing() {
        Runnable loop = AllocationMeterTest::emptyLoop;
        assertEquals(0, AllocationMeter.bytesAllocatedBy(loop, loop));
    }

    @Test
    void readsZeroForAnEmptyBody() {
        assertEquals(0, AllocationMeter.bytesAllocatedBy(() -> { }));
    }
}
