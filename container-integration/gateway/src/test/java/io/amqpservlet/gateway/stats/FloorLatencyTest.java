package io.amqpservlet.gateway.stats;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The floor's latency buckets: percentiles within 1/64 of the true value, merged counts, edges of the buckets. */
class FloorLatencyTest {
    @Test
    void percentilesOfAUniformSpreadAreWithinOneBucket() {
        FloorLatency a = new FloorLatency();
        FloorLatency b = new FloorLatency();
        for (long v = 1; v <= 100_000; v++) {
            (v % 2 == 0 ? a : b).record(v * 1000); // 1 µs .. 100 ms
        }
        a.add(b);
        assertEquals(100_000, a.count());
        assertEquals(100_000_000L, a.maxNanos());
        for (double p : new double[] {50, 90, 99, 99.9}) {
            double expected = p * 1000.0 * 1000;
            double got = a.percentileNanos(p);
            assertEquals(expected, got, expected / 64 + 1000, "p" + p);
        }
        assertEquals(100_000_000L, a.percentileNanos(100));
    }

    @Test
    void everyValueFallsInABucketWhoseUpperEdgeHoldsIt() {
        for (long v : new long[] {0, 1, 63, 64, 65, 127, 128, 129, 1_000_000, Long.MAX_VALUE}) {
            int i = FloorLatency.index(v);
            assertEquals(true, FloorLatency.upperEdge(i) >= v, "edge of " + v);
            assertEquals(true, i == 0 || FloorLatency.upperEdge(i - 1) < v, "previous edge of " + v);
        }
    }

    @Test
    void nothingRecordedIsZero() {
        assertEquals(0, new FloorLatency().percentileNanos(99));
    }
}
