package io.amqpservlet.bench.engine;

import io.amqpservlet.bench.engine.EngineBenchmark.Measurement;

import java.util.List;
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
        StringBuilder sb = new StringBuilder("{\n");
        for (int w = 0; w < workloads.length; w++) {
            List<Measurement> row = results.get(w);
            String indent = w == 0 ? "  " : "    ";
            if (w > 0) {
                sb.append(",\n  \"").append(workloads[w].key).append("\": {\n");
            }
            for (int e = 0; e < row.size(); e++) {
                Measurement m = row.get(e);
                sb.append(indent).append('"').append(m.engine()).append("\": {\"msgsPerSec\": ")
                        .append(number(m.msgsPerSec())).append(", \"msgsPerCpuSec\": ").append(number(m.msgsPerCpuSec()))
                        .append(", \"bytesPerMsg\": ").append(number(m.bytesPerMsg()))
                        .append('}').append(e + 1 < row.size() ? ",\n" : "");
            }
            if (w > 0) {
                sb.append("\n  }");
            }
        }
        return sb.append("\n}\n").toString();
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
