package io.amqpservlet.bench.gateway;

import io.amqpservlet.bench.load.LoadResult;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a load client reports for one run, whichever client it was (our generator, wrk, h2load): responses,
 * measured seconds, latency percentiles in microseconds (keys {@code p50 p90 p99 p99.9 p99.99 max}), and errors by
 * kind.
 *
 * @param latencyCurve percentile (0-100) to microseconds, for the latency plot; may be empty when the tool
 *                     reports only a few percentiles
 */
record ClientFigures(long responses, double seconds, Map<String, Double> latencyMicros, Map<String, Long> errors,
                     Map<Double, Double> latencyCurve) {

    /** Percentile keys every client reports, in order. */
    static final String[] KEYS = {"p50", "p90", "p99", "p99.9", "p99.99", "max"};
    /** The percentiles of the latency plot, as HdrHistogram plots them (1/(1-p) on a log axis). */
    static final double[] CURVE = {0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999};

    double requestsPerSecond() {
        return seconds <= 0 ? 0 : responses / seconds;
    }

    long errorCount() {
        long n = 0;
        for (long v : errors.values()) {
            n += v;
        }
        return n;
    }

    /** From our generator's result. */
    static ClientFigures of(LoadResult r) {
        Map<String, Double> lat = new LinkedHashMap<>();
        lat.put("p50", r.percentileMicros(50));
        lat.put("p90", r.percentileMicros(90));
        lat.put("p99", r.percentileMicros(99));
        lat.put("p99.9", r.percentileMicros(99.9));
        lat.put("p99.99", r.percentileMicros(99.99));
        lat.put("max", r.maxMicros());
        Map<Double, Double> curve = new LinkedHashMap<>();
        for (double p : CURVE) {
            curve.put(p, r.percentileMicros(p));
        }
        return new ClientFigures(r.responses(), r.seconds(), lat, r.errors(), curve);
    }
}
