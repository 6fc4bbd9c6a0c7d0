package io.amqpservlet.bench.load;

import io.amqpservlet.bench.ReportJson;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The figures of one measured phase: responses, throughput, latency percentiles (from the HdrHistogram, in
 * microseconds), and errors by kind.
 *
 * @param describe  the run's settings in one line
 * @param seconds   the measured phase's length
 * @param histogram every response's latency in nanoseconds
 * @param errors    errors by kind (timeouts under "timeout")
 */
public record LoadResult(String describe, double seconds, Histogram histogram, Map<String, Long> errors) {
    /** Percentiles reported, as in the issue: p50 to p99.99, then max. */
    static final double[] PERCENTILES = {50, 90, 99, 99.9, 99.99};

    /** Responses received in the measured phase (any status). */
    public long responses() {
        return histogram.getTotalCount();
    }

    /** Responses per second of the measured phase. */
    public double requestsPerSecond() {
        return responses() / seconds;
    }

    /** Errors of every kind in the measured phase. */
    public long errorCount() {
        long n = 0;
        for (long v : errors.values()) {
            n += v;
        }
        return n;
    }

    /** Requests that got no response within the timeout. */
    public long timeouts() {
        return errors.getOrDefault("timeout", 0L);
    }

    /** A latency percentile in microseconds. */
    public double percentileMicros(double percentile) {
        return histogram.getValueAtPercentile(percentile) / 1000.0;
    }

    /** The largest latency, in microseconds. */
    public double maxMicros() {
        return histogram.getMaxValue() / 1000.0;
    }

    /** The report printed at the end of a run. */
    public void print(PrintStream out) {
        out.println(describe);
        out.printf(Locale.ROOT, "responses %,d in %.2f s: %,.0f req/s%n", responses(), seconds, requestsPerSecond());
        StringBuilder b = new StringBuilder("latency (ms):");
        for (double p : PERCENTILES) {
            b.append(String.format(Locale.ROOT, " p%s %.3f", trim(p), percentileMicros(p) / 1000.0));
        }
        b.append(String.format(Locale.ROOT, " max %.3f", maxMicros() / 1000.0));
        out.println(b);
        if (errors.isEmpty()) {
            out.println("errors: none");
        } else {
            out.println("errors: " + errorCount());
            for (Map.Entry<String, Long> e : errors.entrySet()) {
                out.printf(Locale.ROOT, "  %,10d  %s%n", e.getValue(), e.getKey());
            }
        }
    }

    static String trim(double p) {
        return p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p);
    }

    /** The result as a JSON object (the same field names the gateway suite uses). */
    public String toJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("describe", describe);
        json.put("seconds", ReportJson.number(seconds, 3));
        json.put("responses", responses());
        json.put("requestsPerSec", ReportJson.number(requestsPerSecond(), 1));
        Map<String, Object> latency = new LinkedHashMap<>();
        for (double p : PERCENTILES) {
            latency.put("p" + trim(p), ReportJson.number(percentileMicros(p), 1));
        }
        latency.put("max", ReportJson.number(maxMicros(), 1));
        latency.put("mean", ReportJson.number(histogram.getMean() / 1000.0, 1));
        json.put("latencyMicros", latency);
        json.put("errors", errorCount());
        json.put("errorsByKind", new LinkedHashMap<>(errors));
        return ReportJson.write(json);
    }

    /** Writes the percentile distribution in HdrHistogram's {@code .hgrm} text form, values in milliseconds. */
    public void writeHgrm(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (PrintStream out = new PrintStream(Files.newOutputStream(file), false, StandardCharsets.UTF_8)) {
            histogram.outputPercentileDistribution(out, 1_000_000.0);
        }
    }
}
