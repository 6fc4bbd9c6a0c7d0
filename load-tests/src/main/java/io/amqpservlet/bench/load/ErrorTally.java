package io.amqpservlet.bench.load;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Errors by kind ("timeout", "status 503", "request rejected without a response", ...), counted from every client
 * thread. Errors are rare, so a map keyed by text is fine here; errors during the warm-up are kept apart so that
 * the measured figures count only the measured phase (outside it, only a total is kept).
 */
final class ErrorTally {
    private final Map<String, LongAdder> measured = new ConcurrentHashMap<>();
    private final LongAdder warmup = new LongAdder();

    /** Counts one error; {@code inMeasuredPhase} as the client thread that saw it decided. */
    void record(String kind, boolean inMeasuredPhase) {
        if (inMeasuredPhase) {
            measured.computeIfAbsent(kind, k -> new LongAdder()).increment();
        } else {
            warmup.increment();
        }
    }

    /** Errors counted while measuring, by kind, sorted. */
    Map<String, Long> byKind() {
        Map<String, Long> m = new TreeMap<>();
        for (Map.Entry<String, LongAdder> e : measured.entrySet()) {
            m.put(e.getKey(), e.getValue().sum());
        }
        return m;
    }

    long total() {
        long n = 0;
        for (LongAdder a : measured.values()) {
            n += a.sum();
        }
        return n;
    }

    long warmupErrors() {
        return warmup.sum();
    }
}
