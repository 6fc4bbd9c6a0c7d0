package io.amqpservlet.bench.gateway;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what wrk printed with {@code wrk-post.lua}: the {@code bench-wrk} summary line (requests, duration, socket
 * errors, non-2xx statuses, timeouts) and the {@code bench-wrk-latency} lines (microseconds). wrk's own table is
 * not parsed: its units change with the magnitude (us, ms, s).
 */
final class WrkOutput {
    private static final Pattern SUMMARY = Pattern.compile("^bench-wrk requests=(\\d+) duration_us=(\\d+) bytes=\\d+ "
            + "connect=(\\d+) read=(\\d+) write=(\\d+) status=(\\d+) timeout=(\\d+)$", Pattern.MULTILINE);
    private static final Pattern LATENCY = Pattern.compile("^bench-wrk-latency (p[0-9.]+|max) ([0-9.]+)$",
            Pattern.MULTILINE);
    private static final String[] ERROR_KINDS = {"connect", "read", "write", "status (non-2xx/3xx)", "timeout"};

    private WrkOutput() {
    }

    static ClientFigures parse(String output) {
        Matcher s = SUMMARY.matcher(output);
        if (!s.find()) {
            throw new IllegalArgumentException("no bench-wrk summary in wrk's output (was wrk-post.lua used?):\n"
                    + output);
        }
        long requests = Long.parseLong(s.group(1));
        double seconds = Long.parseLong(s.group(2)) / 1e6;
        Map<String, Long> errors = new LinkedHashMap<>();
        for (int i = 0; i < ERROR_KINDS.length; i++) {
            long n = Long.parseLong(s.group(3 + i));
            if (n > 0) {
                errors.put(ERROR_KINDS[i], n);
            }
        }
        Map<String, Double> latency = new LinkedHashMap<>();
        Matcher l = LATENCY.matcher(output);
        while (l.find()) {
            latency.put(l.group(1), Double.parseDouble(l.group(2)));
        }
        for (String key : ClientFigures.KEYS) {
            if (!latency.containsKey(key)) {
                throw new IllegalArgumentException("wrk's output lacks latency " + key);
            }
        }
        // wrk counts responses with a non-2xx/3xx status among its requests, as we do.
        return new ClientFigures(requests, seconds, latency, errors, Map.of());
    }
}
