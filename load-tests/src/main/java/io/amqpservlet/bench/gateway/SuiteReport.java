package io.amqpservlet.bench.gateway;

import io.amqpservlet.bench.ReportJson;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The suite's results as {@code gateway.json} (an object keyed {@code amqp}, {@code http1}, {@code http2},
 * {@code artemis}: the saturation figures, then the fixed-rate runs) and as Markdown tables with our ratios
 * against each peer and the docs/design.md §6 targets.
 */
final class SuiteReport {
    private final Map<String, List<Run>> runs;
    private final Map<String, String> clients;
    private final String settings;

    SuiteReport(Map<String, List<Run>> runs, Map<String, String> clients, int connections, int window,
                int bodyBytes) {
        this.runs = runs;
        this.clients = clients;
        this.settings = String.format(Locale.ROOT, "%d connections x %d in flight (HTTP/1.1: %d connections x 1), "
                + "POST %d B to /echo", connections, window, connections * window, bodyBytes);
    }

    String json() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("settings", settings);
        json.put("machine", machine());
        for (Map.Entry<String, List<Run>> e : runs.entrySet()) {
            List<Run> list = e.getValue();
            Map<String, Object> peer = figures(list.get(0));
            peer.put("client", clients.getOrDefault(e.getKey(), ""));
            List<Object> rates = new ArrayList<>();
            for (int i = 1; i < list.size(); i++) {
                rates.add(figures(list.get(i)));
            }
            peer.put("rates", rates);
            json.put(e.getKey(), peer);
        }
        return ReportJson.write(json) + "\n";
    }

    private static Map<String, Object> figures(Run r) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("load", r.load());
        f.put("targetRate", ReportJson.number(r.targetRate(), 1));
        f.put("requestsPerSec", ReportJson.number(r.client().requestsPerSecond(), 1));
        f.put("cpuMicrosPerRequest", ReportJson.number(r.server().cpuMicrosPerRequest(), 2));
        f.put("bytesPerRequest", ReportJson.number(r.server().bytesPerRequest(), 0));
        f.put("gcCount", r.server().gcCount());
        f.put("gcMillis", r.server().gcMillis());
        f.put("errors", r.client().errorCount());
        Map<String, Object> latency = new LinkedHashMap<>();
        for (String k : ClientFigures.KEYS) {
            latency.put(k, ReportJson.number(r.client().latencyMicros().get(k), 1));
        }
        f.put("latencyMicros", latency);
        return f;
    }

    String markdown() {
        StringBuilder b = new StringBuilder();
        b.append("Settings: ").append(settings).append(".  \nMachine: ").append(machine()).append("\n\n");
        b.append("| protocol | req/s | server CPU µs/req | heap B/req | GCs (ms) | p50 ms | p99 ms | p99.9 ms | "
                + "max ms | errors |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<String, List<Run>> e : runs.entrySet()) {
            row(b, e.getKey(), e.getValue().get(0));
        }
        Run amqp = first("amqp");
        if (amqp != null) {
            b.append("\nOurs (AMQP) against each peer at saturation (server CPU and heap: lower is better, "
                    + "so the ratio is ours ÷ peer; throughput: ours ÷ peer):\n\n"
                    + "| peer | CPU/req | bytes/req | req/s |\n|---|---:|---:|---:|\n");
            for (String peer : new String[] {"http1", "http2", "artemis", "attach"}) {
                Run r = first(peer);
                if (r != null) {
                    b.append(String.format(Locale.ROOT, "| %s | %s | %s | %s |\n", peer,
                            ratio(amqp.server().cpuMicrosPerRequest(), r.server().cpuMicrosPerRequest()),
                            ratio(amqp.server().bytesPerRequest(), r.server().bytesPerRequest()),
                            ratio(amqp.client().requestsPerSecond(), r.client().requestsPerSecond())));
                }
            }
        }
        b.append("\nFixed rates (percent of the AMQP maximum):\n\n| load | protocol | target req/s | req/s | "
                + "CPU µs/req | B/req | p50 ms | p99 ms | p99.9 ms | errors |\n"
                + "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<String, List<Run>> e : runs.entrySet()) {
            for (Run r : e.getValue()) {
                if (r.targetRate() > 0) {
                    b.append(String.format(Locale.ROOT, "| %s | %s | %,.0f | %,.0f | %.1f | %s | %.3f | %.3f | "
                                    + "%.3f | %d |\n", r.load(), e.getKey(), r.targetRate(),
                            r.client().requestsPerSecond(), r.server().cpuMicrosPerRequest(),
                            bytes(r.server().bytesPerRequest()), ms(r, "p50"), ms(r, "p99"), ms(r, "p99.9"),
                            r.client().errorCount()));
                }
            }
        }
        b.append(targets());
        b.append("\nClients:\n\n");
        for (Map.Entry<String, String> e : clients.entrySet()) {
            b.append("- ").append(e.getKey()).append(": ").append(e.getValue()).append('\n');
        }
        return b.toString();
    }

    /** The docs/design.md §6 targets, each marked met or not from these numbers. */
    private String targets() {
        Run amqp = first("amqp");
        Run h1 = first("http1");
        Run h2 = first("http2");
        Run broker = first("artemis");
        StringBuilder b = new StringBuilder("\nTargets (docs/design.md §6):\n\n");
        if (amqp == null) {
            return "";
        }
        if (h1 != null) {
            check(b, "server CPU/request <= 0.5x HTTP/1.1", amqp.server().cpuMicrosPerRequest()
                    / h1.server().cpuMicrosPerRequest(), 0.5);
            check(b, "heap bytes/request <= 0.5x HTTP/1.1", amqp.server().bytesPerRequest()
                    / h1.server().bytesPerRequest(), 0.5);
        }
        if (h2 != null) {
            check(b, "server CPU/request <= 1.0x HTTP/2", amqp.server().cpuMicrosPerRequest()
                    / h2.server().cpuMicrosPerRequest(), 1.0);
        }
        if (broker != null) {
            double x = amqp.client().requestsPerSecond() / broker.client().requestsPerSecond();
            b.append(String.format(Locale.ROOT, "- throughput >= 5x Artemis-brokered: %.2fx, %s\n", x,
                    x >= 5 ? "**met**" : "**not met**"));
        }
        List<Run> a = runs.get("amqp");
        List<Run> h = runs.get("http1");
        if (h != null) {
            for (int i = 1; i < a.size() && i < h.size(); i++) {
                double ours = a.get(i).client().latencyMicros().get("p99");
                double theirs = h.get(i).client().latencyMicros().get("p99");
                b.append(String.format(Locale.ROOT, "- p99 at %s (%,.0f req/s) no worse than HTTP/1.1: %.3f ms vs "
                                + "%.3f ms, %s\n", a.get(i).load(), a.get(i).targetRate(), ours / 1000,
                        theirs / 1000, ours <= theirs ? "**met**" : "**not met**"));
            }
        }
        return b.toString();
    }

    private static void check(StringBuilder b, String what, double ratio, double limit) {
        b.append(String.format(Locale.ROOT, "- %s: %.2fx, %s\n", what, ratio,
                Double.isNaN(ratio) ? "not measured" : ratio <= limit ? "**met**" : "**not met**"));
    }

    private Run first(String protocol) {
        List<Run> l = runs.get(protocol);
        return l == null || l.isEmpty() ? null : l.get(0);
    }

    private static void row(StringBuilder b, String protocol, Run r) {
        b.append(String.format(Locale.ROOT, "| %s | %,.0f | %.1f | %s | %s | %.3f | %.3f | %.3f | %.3f | %d |\n",
                protocol, r.client().requestsPerSecond(), r.server().cpuMicrosPerRequest(),
                bytes(r.server().bytesPerRequest()), r.server().gcCount() < 0 ? "–"
                        : r.server().gcCount() + " (" + r.server().gcMillis() + ")",
                ms(r, "p50"), ms(r, "p99"), ms(r, "p99.9"), ms(r, "max"), r.client().errorCount()));
    }

    private static String bytes(double v) {
        return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%,.0f", v);
    }

    private static double ms(Run r, String key) {
        return r.client().latencyMicros().get(key) / 1000;
    }

    private static String ratio(double ours, double theirs) {
        if (Double.isNaN(ours) || Double.isNaN(theirs) || theirs == 0) {
            return "–";
        }
        return String.format(Locale.ROOT, "%.2f×", ours / theirs);
    }

    /** The machine, as the report must describe it: CPUs, memory, kernel, JDK, and the load average now. */
    static String machine() {
        String load = "";
        try {
            load = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
            load = ", load average " + load.substring(0, load.indexOf(' ', load.indexOf(' ', load.indexOf(' ') + 1)
                    + 1));
        } catch (java.io.IOException | RuntimeException ignored) {
            // not Linux: no load average
        }
        return String.format(Locale.ROOT, "%d CPUs, %s %s, Java %s (%s)%s", Runtime.getRuntime().availableProcessors(),
                System.getProperty("os.name"), System.getProperty("os.version"), System.getProperty("java.version"),
                System.getProperty("java.vm.name"), load);
    }

}
