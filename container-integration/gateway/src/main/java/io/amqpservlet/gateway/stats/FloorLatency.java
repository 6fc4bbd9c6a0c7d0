package io.amqpservlet.gateway.stats;

/**
 * Latencies of the floor run ({@link FloorRun}) in log-linear buckets: exact below 64 ns, then 64 buckets per power
 * of two, so a percentile is within 1/64 (1.6%) of the true value. One instance per injecting thread (no locking);
 * the run merges them at the end. Recording allocates nothing.
 */
final class FloorLatency {
    private static final int SUB_BITS = 6;
    private static final int SUB_BUCKETS = 1 << SUB_BITS;
    /** Octaves above the exact range, up to 2^63 ns. */
    private static final int OCTAVES = 64 - SUB_BITS;

    private final long[] counts = new long[SUB_BUCKETS * (OCTAVES + 1)];
    private long total;
    private long maxNanos;

    /** Counts one latency of {@code nanos} (negative counts as 0). */
    void record(long nanos) {
        long v = Math.max(0, nanos);
        counts[index(v)]++;
        total++;
        if (v > maxNanos) {
            maxNanos = v;
        }
    }

    /** Adds {@code other}'s counts to these. */
    void add(FloorLatency other) {
        for (int i = 0; i < counts.length; i++) {
            counts[i] += other.counts[i];
        }
        total += other.total;
        maxNanos = Math.max(maxNanos, other.maxNanos);
    }

    long count() {
        return total;
    }

    long maxNanos() {
        return maxNanos;
    }

    /**
     * The latency at {@code percentile} (0-100): the upper edge of the bucket holding that rank, capped at the
     * maximum recorded; 0 when nothing was recorded.
     */
    long percentileNanos(double percentile) {
        if (total == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(percentile / 100.0 * total));
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return Math.min(upperEdge(i), maxNanos);
            }
        }
        return maxNanos;
    }

    static int index(long v) {
        if (v < SUB_BUCKETS) {
            return (int) v;
        }
        int octave = 63 - Long.numberOfLeadingZeros(v) - SUB_BITS + 1; // 1 for 64..127
        int sub = (int) (v >>> (octave - 1)) - SUB_BUCKETS; // the 6 bits below the leading one
        return octave * SUB_BUCKETS + sub;
    }

    /** The largest value that falls into bucket {@code index}. */
    static long upperEdge(int index) {
        int octave = index / SUB_BUCKETS;
        int sub = index % SUB_BUCKETS;
        if (octave == 0) {
            return sub;
        }
        return ((long) (SUB_BUCKETS + sub + 1) << (octave - 1)) - 1;
    }
}
