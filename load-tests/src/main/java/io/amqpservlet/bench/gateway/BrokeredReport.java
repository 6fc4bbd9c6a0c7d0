package io.amqpservlet.bench.gateway;

import io.amqpservlet.bench.ReportJson;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The brokered rows as Markdown (one table of every run, by broker: the generator's figures with the CPU per request
 * of the gateway, the broker and the responder side by side) and the attach-mode targets with their verdicts
 * ({@link AttachTargets}), as a table and as JSON.
 */
final class BrokeredReport {
    private final RoundSet listener;
    private final List<BrokeredRows.Result> results;

    /**
     * @param listener the listener gateway's AMQP rounds at saturation (target 2's reference), or null
     * @param results  each broker's rows
     */
    BrokeredReport(RoundSet listener, List<BrokeredRows.Result> results) {
        this.listener = listener;
        this.results = results;
    }

    /** The targets of each broker, keyed by broker. */
    Map<String, List<AttachTargets.Target>> targets() {
        Map<String, List<AttachTargets.Target>> t = new LinkedHashMap<>();
        for (BrokeredRows.Result r : results) {
            t.put(r.broker(), AttachTargets.of(listener, r));
        }
        return t;
    }

    /** {@code {broker: [{key, what, median, lowest, highest, rounds, limit, atMost, verdict}]}}. */
    Object targetsJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        for (Map.Entry<String, List<AttachTargets.Target>> e : targets().entrySet()) {
            List<Object> list = new ArrayList<>();
            for (AttachTargets.Target t : e.getValue()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("key", t.key());
                m.put("what", t.what());
                if (t.count()) {
                    m.put("total", ReportJson.number(t.total(), 0));
                } else {
                    m.put("median", ReportJson.number(RoundSet.median(t.values()), 3));
                    m.put("lowest", ReportJson.number(RoundSet.min(t.values()), 3));
                    m.put("highest", ReportJson.number(RoundSet.max(t.values()), 3));
                }
                List<Object> rounds = new ArrayList<>();
                for (double v : t.values()) {
                    rounds.add(ReportJson.number(v, 3));
                }
                m.put("rounds", rounds);
                m.put("limit", t.limit());
                m.put("atMost", t.atMost());
                m.put("verdict", t.verdict().label());
                list.add(m);
            }
            json.put(e.getKey(), list);
        }
        return json;
    }

    String markdown() {
        if (results.isEmpty()) {
            return "";
        }
        StringBuilder b = new StringBuilder();
        b.append("\nThrough a broker (each row: the median of its rounds; CPU µs per request of each process over the "
                + "same measured phase; the responder row's \"broker\" is the broker serving it and the responder, "
                + "the attach row's the broker serving the attached gateway; machine cores: the whole machine's busy CPU "
                + "over the phase, every process's, in cores):\n\n"
                + "| broker | consumer | load | req/s | gateway CPU µs/req | broker CPU µs/req | responder CPU µs/req "
                + "| machine cores | gateway heap B/req | p50 ms | p99 ms | p99.9 ms | errors |\n"
                + "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        if (listener != null) {
            row(b, "–", "listener (amqp)", "saturation", listener, null, null, null);
        }
        for (BrokeredRows.Result r : results) {
            String n = r.broker();
            for (String load : new String[] {"saturation", BrokeredRows.RATE_LOAD}) {
                RoundSet responder = r.at("", load);
                if (responder != null) {
                    row(b, n, "responder", loadText(responder), null, responder, r.at("responder", load),
                            r.at("machine", load));
                }
                RoundSet attach = r.at("attach", load);
                if (attach != null) {
                    row(b, n, "attach (gateway)", loadText(attach), attach, r.at("attach-broker", load), null,
                            r.at("attach-machine", load));
                }
                RoundSet listenerAtRate = r.at("listener", load);
                if (listenerAtRate != null) {
                    row(b, n, "listener (amqp)", loadText(listenerAtRate), listenerAtRate, null, null,
                            r.at("listener-machine", load));
                }
            }
        }
        b.append("\nAttach-mode targets (a ratio is taken round by round; its verdict stands when every round "
                + "agrees):\n\n| broker | target | value | limit | verdict |\n|---|---|---:|---:|---|\n");
        for (Map.Entry<String, List<AttachTargets.Target>> e : targets().entrySet()) {
            int number = 0;
            for (AttachTargets.Target t : e.getValue()) {
                b.append(String.format(Locale.ROOT, "| %s | %d. %s | %s | %s | **%s** |\n", e.getKey(), ++number,
                        t.what(), t.value(), t.limitText(), t.verdictText()));
            }
        }
        return b.toString();
    }

    private static String loadText(RoundSet s) {
        return s.targetRate() <= 0 ? "saturation" : String.format(Locale.ROOT, "%d%% of attach (%,.0f req/s)",
                BrokeredRows.RATE_PERCENT, s.targetRate());
    }

    /**
     * One run's line: the client's figures from whichever set is given, each process's CPU from its own set, the
     * machine's busy cores from {@code machine} (its CPU per request times its rate).
     */
    private static void row(StringBuilder b, String broker, String consumer, String load, RoundSet gateway,
                            RoundSet brokerCpu, RoundSet responderCpu, RoundSet machine) {
        RoundSet client = gateway != null ? gateway : brokerCpu;
        Run m = client.median();
        b.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.3f | %s | %.3f | %d |\n",
                broker, consumer, load, spread(client, RoundSet::rps, "%,.0f"), spread(gateway, RoundSet::cpu, "%.1f"),
                spread(brokerCpu, RoundSet::cpu, "%.1f"), spread(responderCpu, RoundSet::cpu, "%.1f"),
                spread(machine, r -> RoundSet.cpu(r) * RoundSet.rps(r) / 1e6, "%.2f"),
                spread(gateway, RoundSet::bytes, "%,.0f"), ms(m, "p50"), spread(client, r -> RoundSet.p99(r) / 1000,
                        "%.3f"), ms(m, "p99.9"), m.client().errorCount()));
    }

    private static String spread(RoundSet s, java.util.function.ToDoubleFunction<Run> figure, String format) {
        if (s == null) {
            return "–";
        }
        double m = s.median(figure);
        if (Double.isNaN(m)) {
            return "–";
        }
        String v = String.format(Locale.ROOT, format, m);
        return s.rounds().size() < 2 ? v : String.format(Locale.ROOT, "%s ±%.0f%%", v, s.spreadPercent(figure));
    }

    private static double ms(Run r, String key) {
        return r.client().latencyMicros().getOrDefault(key, Double.NaN) / 1000;
    }
}
