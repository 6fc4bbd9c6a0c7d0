package io.amqpservlet.bench.engine;

import io.amqpservlet.bench.ReportJson;

import io.amqpservlet.bench.engine.EngineBenchmark.Measurement;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;

/**
 * The engine benchmark's results as JSON and as a table. The JSON keeps the seed's workload (empty pre-settled
 * messages) at the top level, each engine as {@code {"msgsPerSec": …, "bytesPerMsg": …}}, and every other workload
 * under its key, e.g. {@code "unsettled": {"ours": {…}, …}}; each engine also has {@code msgsPerCpuSec}. The table
 * shows our throughput ratio to each peer (our msgs/s divided by theirs: docs/design.md §6 asks for at least 10).
 */
final class EngineReport {
    private EngineReport() {
    }

    /**
     * The JSON object for {@code results}, one list per workload in the order of {@code workloads}; the first
     * workload's engines go at the top level.
     */
    static String json(Workload[] workloads, List<List<Measurement>> results) {
        Map<String, Object> json = new LinkedHashMap<>();
        for (int w = 0; w < workloads.length; w++) {
            Map<String, Object> engines = w == 0 ? json : new LinkedHashMap<>();
            for (Measurement m : results.get(w)) {
                Map<String, Object> figures = new LinkedHashMap<>();
                figures.put("msgsPerSec", ReportJson.number(m.msgsPerSec(), 3));
                figures.put("msgsPerCpuSec", ReportJson.number(m.msgsPerCpuSec(), 3));
                figures.put("bytesPerMsg", ReportJson.number(m.bytesPerMsg(), 3));
                engines.put(m.engine(), figures);
            }
            if (w > 0) {
                json.put(workloads[w].key, engines);
            }
        }
        return ReportJson.write(json) + "\n";
    }

    private static String number(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "null";
        }
        return String.format(Locale.ROOT, "%.3f", v);
    }

    /**
     * The table: a row per workload and engine, with our ratios on each peer's row: by wall-clock msgs/s and by
     * msgs per CPU-second (steadier on a shared machine).
     */
    static String table(Workload[] workloads, List<List<Measurement>> results, String timing) {
        StringBuilder sb = new StringBuilder();
        sb.append("Engine ping-pong in memory, one thread drives both engines (").append(timing).append(")\n");
        String header = String.format(Locale.ROOT, "%-27s %-9s %11s %6s %13s %6s %9s%n", "workload", "engine",
                "msgs/s", "ours/", "msgs/cpu-s", "ours/", "B/msg");
        sb.append(header);
        sb.append("-".repeat(header.length() - 1)).append('\n');
        for (int w = 0; w < workloads.length; w++) {
            List<Measurement> row = results.get(w);
            Measurement ours = row.get(0);
            for (int e = 0; e < row.size(); e++) {
                Measurement m = row.get(e);
                String wall = e == 0 ? "" : String.format(Locale.ROOT, "%.1fx", ours.msgsPerSec() / m.msgsPerSec());
                String cpu = e == 0 ? "" : String.format(Locale.ROOT, "%.1fx", ours.msgsPerCpuSec() / m.msgsPerCpuSec());
                sb.append(String.format(Locale.ROOT, "%-27s %-9s %,11.0f %6s %,13.0f %6s %9.2f%n",
                        e == 0 ? workloads[w].label : "", m.engine(), m.msgsPerSec(), wall, m.msgsPerCpuSec(), cpu,
                        m.bytesPerMsg()));
            }
        }
        return sb.toString();
    }
}
