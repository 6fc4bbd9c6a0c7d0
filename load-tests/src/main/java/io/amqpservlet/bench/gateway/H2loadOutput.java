package io.amqpservlet.bench.gateway;

import org.HdrHistogram.Histogram;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads h2load's summary ({@code finished in}, {@code requests:} and {@code status codes:} lines) and its
 * {@code --log-file} (one line per request: start time in µs since the epoch, status, µs until the end of the
 * response), from which the latency percentiles come: h2load itself prints only min, max, mean and sd.
 */
final class H2loadOutput {
    private static final Pattern REQUESTS = Pattern.compile("^requests: (\\d+) total, (\\d+) started, (\\d+) done, "
            + "(\\d+) succeeded, (\\d+) failed, (\\d+) errored, (\\d+) timeout$", Pattern.MULTILINE);
    private static final Pattern STATUS = Pattern.compile("^status codes: (\\d+) 2xx, (\\d+) 3xx, (\\d+) 4xx, "
            + "(\\d+) 5xx$", Pattern.MULTILINE);
    private static final Pattern FINISHED = Pattern.compile("^finished in ([0-9.]+)(ms|s), ([0-9.]+) req/s",
            Pattern.MULTILINE);

    private H2loadOutput() {
    }

    /**
     * @param output   h2load's standard output
     * @param log      the lines of its {@code --log-file}
     * @param measuredSeconds the main duration given with {@code -D}; h2load's "finished in" includes its warm-up
     */
    static ClientFigures parse(String output, List<String> log, double measuredSeconds) {
        Matcher r = REQUESTS.matcher(output);
        Matcher s = STATUS.matcher(output);
        Matcher f = FINISHED.matcher(output);
        if (!r.find() || !s.find() || !f.find()) {
            throw new IllegalArgumentException("not h2load's summary:\n" + output);
        }
        long done = Long.parseLong(r.group(3));
        Map<String, Long> errors = new LinkedHashMap<>();
        put(errors, "failed", Long.parseLong(r.group(5)) - Long.parseLong(r.group(6)) - Long.parseLong(r.group(7)));
        put(errors, "errored", Long.parseLong(r.group(6)));
        put(errors, "timeout", Long.parseLong(r.group(7)));
        put(errors, "status 4xx", Long.parseLong(s.group(3)));
        put(errors, "status 5xx", Long.parseLong(s.group(4)));
        Histogram h = new Histogram(1, 60_000_000_000L, 3);
        for (String line : log) {
            if (line.isBlank()) {
                continue;
            }
            String[] cols = line.split("\t");
            if (cols.length < 3) {
                throw new IllegalArgumentException("not an h2load log line: " + line);
            }
            long micros = Long.parseLong(cols[2].trim());
            h.recordValue(Math.max(1, Math.min(micros * 1000, h.getHighestTrackableValue())));
        }
        if (h.getTotalCount() == 0) {
            throw new IllegalArgumentException("h2load's log has no requests");
        }
        Map<String, Double> latency = new LinkedHashMap<>();
        latency.put("p50", h.getValueAtPercentile(50) / 1000.0);
        latency.put("p90", h.getValueAtPercentile(90) / 1000.0);
        latency.put("p99", h.getValueAtPercentile(99) / 1000.0);
        latency.put("p99.9", h.getValueAtPercentile(99.9) / 1000.0);
        latency.put("p99.99", h.getValueAtPercentile(99.99) / 1000.0);
        latency.put("max", h.getMaxValue() / 1000.0);
        Map<Double, Double> curve = new LinkedHashMap<>();
        for (double p : ClientFigures.CURVE) {
            curve.put(p, h.getValueAtPercentile(p) / 1000.0);
        }
        return new ClientFigures(done, measuredSeconds, latency, errors, curve);
    }

    /** h2load's own requests/s figure (over the main duration). */
    static double reportedRequestsPerSecond(String output) {
        Matcher f = FINISHED.matcher(output);
        if (!f.find()) {
            throw new IllegalArgumentException("not h2load's summary");
        }
        return Double.parseDouble(f.group(3));
    }

    private static void put(Map<String, Long> errors, String kind, long n) {
        if (n > 0) {
            errors.put(kind, n);
        }
    }
}
