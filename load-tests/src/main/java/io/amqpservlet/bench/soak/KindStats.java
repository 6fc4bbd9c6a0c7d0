package io.amqpservlet.bench.soak;

import org.HdrHistogram.Histogram;

import java.util.Map;
import java.util.TreeMap;

/**
 * What one kind of client saw since the last sample: each response's latency, and errors by kind. Written by the
 * kind's threads, drained by the sampler once per interval; a lock is cheap at the soak's rates.
 */
final class KindStats {
    private static final long HIGHEST_NANOS = 60_000_000_000L;

    final String name;
    private Histogram latency = newHistogram();
    private final Map<String, Long> errors = new TreeMap<>();
    private long totalResponses;
    private long totalErrors;

    KindStats(String name) {
        this.name = name;
    }

    private static Histogram newHistogram() {
        return new Histogram(1, HIGHEST_NANOS, 3);
    }

    synchronized void response(long latencyNanos) {
        latency.recordValue(Math.max(1, Math.min(HIGHEST_NANOS, latencyNanos)));
        totalResponses++;
    }

    /** A whole stretch of responses (a generator segment) and its errors by kind. */
    synchronized void add(Histogram responses, Map<String, Long> errorsByKind) {
        latency.add(responses);
        totalResponses += responses.getTotalCount();
        for (Map.Entry<String, Long> e : errorsByKind.entrySet()) {
            errors.merge(e.getKey(), e.getValue(), Long::sum);
            totalErrors += e.getValue();
        }
    }

    synchronized void error(String kind) {
        errors.merge(kind, 1L, Long::sum);
        totalErrors++;
    }

    /** The interval since the last drain, and a fresh one begun. */
    synchronized Interval drain() {
        Histogram h = latency;
        latency = newHistogram();
        Interval i = new Interval(name, h.getTotalCount(), h.getTotalCount() == 0 ? Double.NaN
                : h.getValueAtPercentile(99) / 1000.0, new TreeMap<>(errors));
        errors.clear();
        return i;
    }

    synchronized long totalResponses() {
        return totalResponses;
    }

    synchronized long totalErrors() {
        return totalErrors;
    }

    /**
     * One kind's figures over one sampling interval.
     *
     * @param responses  responses received
     * @param p99Micros  the 99th percentile of their latency (NaN when there was none)
     * @param errors     errors by kind (timeouts, refusals, failed connections)
     */
    record Interval(String kind, long responses, double p99Micros, Map<String, Long> errors) {
        long errorCount() {
            long n = 0;
            for (long v : errors.values()) {
                n += v;
            }
            return n;
        }
    }
}
