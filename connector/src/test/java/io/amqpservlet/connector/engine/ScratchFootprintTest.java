package io.amqpservlet.connector.engine;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The estimate of what a scratch holds ({@link EngineScratch#footprintBytes()}), which a partial frame's cost is
 * counted by ({@link Engine#partialFrameBytes()}), stays near what scratches really take on the heap: 2,000 of them
 * are made and the heap measured after a full collection, the median of three rounds.
 */
class ScratchFootprintTest {
    private static final int COUNT = 2_000;

    @Test
    void theEstimateIsWithinAFifthOfTheMeasuredSize() throws InterruptedException {
        EngineConfig config = new EngineConfig();
        long[] each = new long[3];
        int estimate = 0;
        for (int round = 0; round < each.length; round++) {
            EngineScratch[] scratches = new EngineScratch[COUNT];
            long before = usedAfterGc();
            for (int i = 0; i < COUNT; i++) {
                scratches[i] = new EngineScratch(config);
            }
            long after = usedAfterGc();
            each[round] = (after - before) / COUNT;
            estimate = scratches[COUNT - 1].footprintBytes();
        }
        Arrays.sort(each);
        long measured = each[1];
        assertTrue(measured > 0.8 * estimate && measured < 1.2 * estimate,
                "a scratch measured " + measured + " bytes, estimated " + estimate);
    }

    private static long usedAfterGc() throws InterruptedException {
        Runtime runtime = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
            used = Math.min(used, runtime.totalMemory() - runtime.freeMemory());
        }
        return used;
    }
}
