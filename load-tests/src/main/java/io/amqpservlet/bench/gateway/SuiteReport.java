package io.amqpservlet.bench.gateway;

import io.amqpservlet.bench.ReportJson;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The suite's results as {@code gateway.json} or {@code attach.json} (an object keyed {@code floor}, {@code amqp},
 * {@code http1}, {@code http2}, then the brokered rows ({@link BrokeredRows}): each the median figures at saturation,
 * the spread over the rounds, the rounds themselves, and the fixed-rate runs in the same shape; then
 * {@code attachTargets}) and as Markdown tables ({@link BrokeredReport} for the brokered part). Rows served by the gateway
 * itself also give their cost above the floor (per round: the row's figure minus the floor's in the same round), and
 * the ratios between protocols are taken on that overhead, round by round; a verdict against a target stands only
 * when every round agrees.
 */
final class SuiteReport {
    /** The rows a floor applies to: requests served by the gateway process the floor ran in. */
    /** The share of a fixed rate a row must serve for its figures to be that rate's. */
    static final double CARRIED = 0.95;
    private static final List<String> OVER_FLOOR = List.of("amqp", "http1", "http2", "http1-wrk", "http2-h2load");

    private final Map<String, List<RoundSet>> runs;
    private final Map<String, String> clients;
    private final String settings;
    private final List<BrokeredRows.Result> brokered;
    private final BrokeredReport brokeredReport;
    private final boolean listenerTables;

    /**
     * @param runs           the listener gateway's rows (for {@code bench attach} its AMQP saturation alone)
     * @param brokered       each broker's rows
     * @param listenerTables whether to write the side-by-side tables of the listener's protocols
     *                       ({@code bench gateway}) or only the brokered rows and targets ({@code bench attach})
     */
    SuiteReport(Map<String, List<RoundSet>> runs, Map<String, String> clients, String settings,
                List<BrokeredRows.Result> brokered, boolean listenerTables) {
        this.runs = runs;
        this.clients = new LinkedHashMap<>(clients);
        this.settings = settings;
        this.brokered = brokered;
        this.listenerTables = listenerTables;
        for (BrokeredRows.Result r : brokered) {
            this.clients.putAll(r.clients());
        }
        brokeredReport = new BrokeredReport(at("amqp", "saturation"), brokered);
    }

    /** The attach-mode targets of each broker. */
    Map<String, List<AttachTargets.Target>> attachTargets() {
        return brokeredReport.targets();
    }

    String json() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("settings", settings);
        json.put("machine", machine());
        Map<String, List<RoundSet>> all = new LinkedHashMap<>(runs);
        for (BrokeredRows.Result r : brokered) {
            all.putAll(r.rows());
        }
        if (!brokered.isEmpty()) {
            json.put("attachTargets", brokeredReport.targetsJson());
        }
        for (Map.Entry<String, List<RoundSet>> e : all.entrySet()) {
            List<RoundSet> list = e.getValue();
            Map<String, Object> peer = figures(e.getKey(), list.get(0));
            peer.put("client", clients.getOrDefault(e.getKey(), ""));
            List<Object> rates = new ArrayList<>();
            for (int i = 1; i < list.size(); i++) {
                rates.add(figures(e.getKey(), list.get(i)));
            }
            peer.put("rates", rates);
            json.put(e.getKey(), peer);
        }
        return ReportJson.write(json) + "\n";
    }

    private Map<String, Object> figures(String protocol, RoundSet s) {
        Map<String, Object> f = plain(s.median());
        RoundSet floor = floorAt(protocol, s.load());
        if (floor != null) {
            f.put("cpuAboveFloorMicrosPerRequest", ReportJson.number(RoundSet.median(s.above(floor, RoundSet::cpu)),
                    2));
            f.put("bytesAboveFloorPerRequest", ReportJson.number(RoundSet.median(s.above(floor, RoundSet::bytes)),
                    0));
        }
        Map<String, Object> spread = new LinkedHashMap<>();
        spread.put("requestsPerSec", range(s, RoundSet::rps, 1));
        spread.put("cpuMicrosPerRequest", range(s, RoundSet::cpu, 2));
        spread.put("bytesPerRequest", range(s, RoundSet::bytes, 0));
        spread.put("p99Micros", range(s, RoundSet::p99, 1));
        f.put("spread", spread);
        List<Object> rounds = new ArrayList<>();
        for (Run r : s.rounds()) {
            rounds.add(plain(r));
        }
        f.put("rounds", rounds);
        return f;
    }

    private static List<Object> range(RoundSet s, ToDoubleFunction<Run> figure, int decimals) {
        double[] r = s.range(figure);
        // Arrays.asList: a figure the row lacks (the broker's heap) is NaN, written as null.
        return java.util.Arrays.asList(ReportJson.number(r[0], decimals), ReportJson.number(r[1], decimals));
    }

    private static Map<String, Object> plain(Run r) {
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
            latency.put(k, ReportJson.number(r.client().latencyMicros().getOrDefault(k, Double.NaN), 1));
        }
        f.put("latencyMicros", latency);
        return f;
    }

    /** The floor's rounds at {@code load}, when {@code protocol} is one the floor applies to. */
    private RoundSet floorAt(String protocol, String load) {
        if (!OVER_FLOOR.contains(protocol)) {
            return null;
        }
        return at("floor", load);
    }

    private RoundSet at(String protocol, String load) {
        List<RoundSet> l = runs.get(protocol);
        for (BrokeredRows.Result r : brokered) {
            l = l == null ? r.rows().get(protocol) : l;
        }
        if (l == null) {
            return null;
        }
        for (RoundSet s : l) {
            if (s.load().equals(load)) {
                return s;
            }
        }
        return null;
    }

    String markdown() {
        StringBuilder b = new StringBuilder();
        int rounds = runs.containsKey("amqp") ? runs.get("amqp").get(0).rounds().size() : 1;
        b.append("Settings: ").append(settings).append(".  \nMachine: ").append(machine()).append(".  \nEach figure: ")
                .append("the median of ").append(rounds).append(" alternating rounds, ±: half the range of the ")
                .append("rounds relative to the median").append(listenerTables ? "; \"over floor\": the row minus the "
                        + "floor, round by round" : "").append(".\n");
        if (listenerTables) {
            listenerTables(b);
        }
        b.append(brokeredReport.markdown());
        b.append("\nClients:\n\n");
        for (Map.Entry<String, String> e : clients.entrySet()) {
            b.append("- ").append(e.getKey()).append(": ").append(e.getValue()).append('\n');
        }
        return b.toString();
    }

    private void listenerTables(StringBuilder b) {
        b.append("\n| protocol | req/s | server CPU µs/req | over floor | heap B/req | over floor | GCs (ms) | p50 ms "
                + "| p99 ms | p99.9 ms | max ms | errors |\n"
                + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<String, List<RoundSet>> e : runs.entrySet()) {
            RoundSet s = e.getValue().get(0);
            Run m = s.median();
            RoundSet floor = floorAt(e.getKey(), s.load());
            b.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %.3f | %s | %.3f | %.3f | %d |\n",
                    e.getKey(), withSpread(s, RoundSet::rps, "%,.0f"), withSpread(s, RoundSet::cpu, "%.1f"),
                    over(s, floor, RoundSet::cpu, "%.1f"), withSpread(s, RoundSet::bytes, "%,.0f"),
                    over(s, floor, RoundSet::bytes, "%,.0f"), m.server().gcCount() < 0 ? "–"
                            : m.server().gcCount() + " (" + m.server().gcMillis() + ")",
                    ms(m, "p50"), withSpread(s, r -> RoundSet.p99(r) / 1000, "%.3f"), ms(m, "p99.9"), ms(m, "max"),
                    m.client().errorCount()));
        }
        b.append(overheadRatios());
        b.append("\nFixed rates (percent of the AMQP maximum; open loop, latency from the due time):\n\n"
                + "| load | protocol | target req/s | req/s | CPU µs/req | over floor | B/req | over floor | p50 ms "
                + "| p99 ms | p99.9 ms | errors |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        List<String> loads = loads();
        for (String load : loads) {
            for (Map.Entry<String, List<RoundSet>> e : runs.entrySet()) {
                RoundSet s = at(e.getKey(), load);
                if (s == null || s.targetRate() <= 0) {
                    continue;
                }
                Run m = s.median();
                RoundSet floor = floorAt(e.getKey(), load);
                b.append(String.format(Locale.ROOT, "| %s | %s | %,.0f | %,.0f | %s | %s | %s | %s | %.3f | %s | "
                                + "%.3f | %d |\n", load, e.getKey(), s.targetRate(), m.client().requestsPerSecond(),
                        withSpread(s, RoundSet::cpu, "%.1f"), over(s, floor, RoundSet::cpu, "%.1f"),
                        withSpread(s, RoundSet::bytes, "%,.0f"), over(s, floor, RoundSet::bytes, "%,.0f"),
                        ms(m, "p50"), withSpread(s, r -> RoundSet.p99(r) / 1000, "%.3f"), ms(m, "p99.9"),
                        m.client().errorCount()));
            }
        }
        b.append(targets());
    }

    /** Every load of the AMQP row (saturation first), the order the tables use. */
    private List<String> loads() {
        List<String> loads = new ArrayList<>();
        List<RoundSet> amqp = runs.getOrDefault("amqp", List.of());
        for (RoundSet s : amqp) {
            loads.add(s.load());
        }
        return loads;
    }

    /** AMQP's overhead above the floor against each HTTP row's, at each load, round by round. */
    private String overheadRatios() {
        StringBuilder b = new StringBuilder("\nAMQP against each HTTP path, on the cost above the floor (AMQP ÷ peer; "
                + "median of the per-round quotients, lowest–highest round in brackets; lower is better):\n\n"
                + "| load | peer | CPU over floor | heap over floor | p99 (whole latency) |\n|---|---|---:|---:|---:|\n");
        boolean any = false;
        for (String load : loads()) {
            RoundSet amqp = at("amqp", load);
            RoundSet floor = at("floor", load);
            for (String peer : new String[] {"http1", "http2"}) {
                RoundSet p = at(peer, load);
                if (amqp == null || p == null || floor == null) {
                    continue;
                }
                any = true;
                b.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s |\n", load, peer,
                        quotient(RoundSet.quotients(amqp.above(floor, RoundSet::cpu), p.above(floor, RoundSet::cpu))),
                        quotient(RoundSet.quotients(amqp.above(floor, RoundSet::bytes),
                                p.above(floor, RoundSet::bytes))),
                        quotient(RoundSet.quotients(amqp.each(RoundSet::p99), p.each(RoundSet::p99)))));
            }
        }
        return any ? b.toString() : "";
    }

    /** The targets, each met, not met, or not trusted (the rounds disagree). */
    private String targets() {
        RoundSet amqp = at("amqp", "saturation");
        if (amqp == null) {
            return "";
        }
        StringBuilder b = new StringBuilder("\nTargets (a verdict stands when every round agrees):\n\n");
        RoundSet floor = at("floor", "saturation");
        RoundSet h1 = at("http1", "saturation");
        RoundSet h2 = at("http2", "saturation");
        for (String load : loads()) {
            RoundSet a = at("amqp", load);
            RoundSet f = at("floor", load);
            RoundSet h = at("http1", load);
            if (a != null && f != null && h != null) {
                String what = "CPU over the floor <= 0.5x HTTP/1.1's at " + load;
                if (!notComparable(b, what, a, h)) {
                    check(b, what, RoundSet.quotients(a.above(f, RoundSet::cpu), h.above(f, RoundSet::cpu)), 0.5,
                            true);
                }
            }
        }
        if (floor != null && h1 != null) {
            check(b, "heap over the floor <= 0.5x HTTP/1.1's at saturation", RoundSet.quotients(
                    amqp.above(floor, RoundSet::bytes), h1.above(floor, RoundSet::bytes)), 0.5, true);
        }
        if (floor != null && h2 != null) {
            check(b, "CPU over the floor <= 1.0x HTTP/2's at saturation", RoundSet.quotients(
                    amqp.above(floor, RoundSet::cpu), h2.above(floor, RoundSet::cpu)), 1.0, true);
        }
        if (h1 != null) {
            check(b, "throughput >= 1.5x HTTP/1.1 at saturation", RoundSet.quotients(amqp.each(RoundSet::rps),
                    h1.each(RoundSet::rps)), 1.5, false);
        }
        RoundSet broker = at("artemis", "saturation");
        if (broker != null) {
            check(b, "throughput >= 5x Artemis-brokered (the responder row)", RoundSet.quotients(
                    amqp.each(RoundSet::rps), broker.each(RoundSet::rps)), 5, false);
        }
        for (String load : loads()) {
            RoundSet a = at("amqp", load);
            RoundSet h = at("http1", load);
            if (a != null && h != null && a.targetRate() > 0) {
                String what = String.format(Locale.ROOT, "p99 at %s (%,.0f req/s) <= HTTP/1.1's (%.3f vs %.3f ms)",
                        load, a.targetRate(), a.median(RoundSet::p99) / 1000, h.median(RoundSet::p99) / 1000);
                if (!notComparable(b, what, a, h)) {
                    check(b, what, RoundSet.quotients(a.each(RoundSet::p99), h.each(RoundSet::p99)), 1.0, true);
                }
            }
        }
        return b.toString();
    }

    /**
     * At a fixed rate, appends the target as not comparable when either row served less than 95% of the rate (by the
     * rounds' median): a server that cannot carry the rate is overloaded there, its queue grows for
     * the whole run, and its CPU and latency are an overload's, not what it costs at that rate.
     *
     * @return whether it did (then there is no verdict)
     */
    static boolean notComparable(StringBuilder b, String what, RoundSet... rows) {
        for (RoundSet row : rows) {
            double served = row.median(RoundSet::rps);
            if (row.targetRate() > 0 && served < CARRIED * row.targetRate()) {
                b.append(String.format(Locale.ROOT, "- %s: **not comparable**: %s served %,.0f of %,.0f req/s "
                        + "(under %.0f%% of the rate, its figures are an overload's)\n", what, row.protocol(),
                        served, row.targetRate(), CARRIED * 100));
                return true;
            }
        }
        return false;
    }

    /**
     * Appends one target line: the median quotient, the rounds' range, and the verdict: met when every round meets
     * it, not met when none does, not trusted when the rounds disagree.
     */
    static void check(StringBuilder b, String what, double[] quotients, double limit, boolean atMost) {
        int met = 0;
        int measured = 0;
        for (double q : quotients) {
            if (!Double.isNaN(q)) {
                measured++;
                if (atMost ? q <= limit : q >= limit) {
                    met++;
                }
            }
        }
        String verdict = measured == 0 ? "not measured" : met == measured ? "**met**" : met == 0 ? "**not met**"
                : "**not trusted** (" + met + " of " + measured + " rounds meet it)";
        b.append("- ").append(what).append(": ").append(quotient(quotients)).append(", ").append(verdict)
                .append('\n');
    }

    /** "0.62× (0.55–0.70)": the median quotient and the lowest and highest round. */
    static String quotient(double[] q) {
        double m = RoundSet.median(q);
        if (Double.isNaN(m)) {
            return "–";
        }
        if (q.length == 1) {
            return String.format(Locale.ROOT, "%.2f×", m);
        }
        return String.format(Locale.ROOT, "%.2f× (%.2f–%.2f)", m, RoundSet.min(q), RoundSet.max(q));
    }

    /** The median with "±n%" (half the rounds' range) when there are several rounds. */
    private static String withSpread(RoundSet s, ToDoubleFunction<Run> figure, String format) {
        double m = s.median(figure);
        if (Double.isNaN(m)) {
            return "–";
        }
        String v = String.format(Locale.ROOT, format, m);
        if (s.rounds().size() < 2) {
            return v;
        }
        return String.format(Locale.ROOT, "%s ±%.0f%%", v, s.spreadPercent(figure));
    }

    private static String over(RoundSet s, RoundSet floor, ToDoubleFunction<Run> figure, String format) {
        if (floor == null) {
            return "–";
        }
        double m = RoundSet.median(s.above(floor, figure));
        return Double.isNaN(m) ? "–" : String.format(Locale.ROOT, format, m);
    }

    private static double ms(Run r, String key) {
        return r.client().latencyMicros().getOrDefault(key, Double.NaN) / 1000;
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
