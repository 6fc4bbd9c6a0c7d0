package io.amqpservlet.bench.gateway;

import io.amqpservlet.bench.ReportJson;
import io.amqpservlet.bench.scaleout.MachineCpu;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The server's counters at one instant: CPU time of the gateway process from {@code /proc/<pid>/stat} (user +
 * system, in clock ticks), and from the gateway's {@code --stats} endpoint the heap bytes allocated summed over its
 * threads and the GC collections and their time. Two samples around a measured run give the per-request figures.
 */
record ServerSample(long cpuTicks, long allocatedBytes, long gcCount, long gcMillis) {
    /** Linux's USER_HZ: /proc reports CPU time in 1/100 s on every mainstream architecture. */
    static final long TICKS_PER_SECOND = 100;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    static ServerSample take(long pid, String statsUrl) throws IOException, InterruptedException {
        long ticks = cpuTicks(Files.readString(Path.of("/proc/" + pid + "/stat")));
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(statsUrl))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET " + statsUrl + " answered " + r.statusCode() + " (was --stats given?)");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> stats = (Map<String, Object>) ReportJson.parse(r.body());
        return new ServerSample(ticks, number(stats, "allocatedBytes"), number(stats, "gcCount"),
                number(stats, "gcMillis"));
    }

    /**
     * The whole machine's busy CPU time ({@link MachineCpu}: every process's, ours and others'), as if it were one
     * process's; the other counters are -1.
     */
    static ServerSample machine() throws IOException {
        return new ServerSample(MachineCpu.busyTicks(), -1, -1, -1);
    }

    /** Only the CPU time, for a process without a stats endpoint (the broker); the other counters are -1. */
    static ServerSample cpuOnly(long pid) throws IOException {
        return new ServerSample(cpuTicks(Files.readString(Path.of("/proc/" + pid + "/stat"))), -1, -1, -1);
    }

    private static long number(Map<String, Object> stats, String key) throws IOException {
        Object v = stats.get(key);
        if (!(v instanceof Number)) {
            throw new IOException("stats lack " + key + ": " + stats);
        }
        return ((Number) v).longValue();
    }

    /**
     * utime + stime, fields 14 and 15 of {@code /proc/<pid>/stat} (proc(5)). The command name (field 2) is in
     * parentheses and may contain spaces, so fields are counted after its closing parenthesis.
     */
    static long cpuTicks(String stat) {
        int close = stat.lastIndexOf(')');
        String[] f = stat.substring(close + 2).trim().split("\\s+");
        // f[0] is field 3 (state); utime is field 14, stime field 15.
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    /** The server-side figures of the interval from {@code before} to this sample, for {@code requests}. */
    ServerFigures since(ServerSample before, long requests) {
        double n = Math.max(1, requests);
        double cpuMicros = (cpuTicks - before.cpuTicks) * 1e6 / TICKS_PER_SECOND;
        if (allocatedBytes < 0) {
            return new ServerFigures(cpuMicros / n, Double.NaN, -1, -1);
        }
        return new ServerFigures(cpuMicros / n, (allocatedBytes - before.allocatedBytes) / n,
                gcCount - before.gcCount, gcMillis - before.gcMillis);
    }

    /** Per-request server costs of one run. */
    record ServerFigures(double cpuMicrosPerRequest, double bytesPerRequest, long gcCount, long gcMillis) {
    }
}
