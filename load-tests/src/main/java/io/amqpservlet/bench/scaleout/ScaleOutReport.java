package io.amqpservlet.bench.scaleout;

import io.amqpservlet.bench.ReportJson;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report of {@code bench scaleout}: per broker a markdown table of the runs (throughput, linearity, the model's
 * prediction and its error, each process's CPU against its quota, CPU per request, latency, errors), the model's
 * terms and the verdict; the same as JSON; and one plot of measured, modelled and linear throughput against the
 * gateway count, drawn with XChart as the other benchmarks' plots are.
 */
final class ScaleOutReport {
    private static final Color[] COLOURS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c)};

    private ScaleOutReport() {
    }

    /** Writes {@code scaleout.md}, {@code scaleout.json} and {@code scaleout.png} into {@code dir}; returns the md. */
    static String write(ScaleOutSettings s, Map<BrokerKind, ScaleOutVerdict> verdicts, Path dir) throws IOException {
        Files.createDirectories(dir);
        String md = markdown(s, verdicts);
        Files.writeString(dir.resolve("scaleout.md"), md);
        Files.writeString(dir.resolve("scaleout.json"), json(s, verdicts));
        chart(s, verdicts, dir.resolve("scaleout"));
        return md;
    }

    static String markdown(ScaleOutSettings s, Map<BrokerKind, ScaleOutVerdict> verdicts) {
        StringBuilder b = new StringBuilder();
        b.append("Settings: ").append(s.describe()).append(".\n");
        for (Map.Entry<BrokerKind, ScaleOutVerdict> e : verdicts.entrySet()) {
            b.append('\n').append(table(e.getKey(), e.getValue()));
        }
        return b.toString();
    }

    /** One broker's section: the table, the model, the saturation and the verdict. */
    static String table(BrokerKind broker, ScaleOutVerdict v) {
        StringBuilder b = new StringBuilder();
        b.append("### ").append(broker.label).append("\n\n");
        b.append("| gateways | req/s | X(N) / (N × X(1)) | model req/s (limit) | model error | gateways' CPU, % of "
                + "quota | broker's CPU, % of quota | broker throttled, % of periods | served by each gateway | gateways' CPU µs/req | broker's CPU "
                + "µs/req | generator cores | machine cores | p99 ms | errors |\n");
        b.append("|---:|---:|---:|---:|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---:|\n");
        for (ScaleOutVerdict.Row row : v.rows()) {
            ScaleOutRun r = row.run();
            StringBuilder shares = new StringBuilder();
            StringBuilder served = new StringBuilder();
            long total = 0;
            for (long n : r.servedByGateway()) {
                total += n;
            }
            for (int i = 0; i < r.gateways(); i++) {
                String sep = i == 0 ? "" : ", ";
                shares.append(sep).append(String.format(Locale.ROOT, "%.0f", r.gatewayCpu().get(i).quotaShare() * 100));
                served.append(sep).append(String.format(Locale.ROOT, "%.0f%%",
                        total > 0 ? 100.0 * r.servedByGateway().get(i) / total : Double.NaN));
            }
            b.append(String.format(Locale.ROOT, "| %d | %,.0f | %.2f | %,.0f (%s) | %+.0f%% | %s | %.0f | %.0f | %s | %.1f | %.1f "
                            + "| %.2f | %.2f | %.1f | %d |\n", r.gateways(), r.requestsPerSecond(), row.linearity(),
                    row.predicted(), v.model().brokerBound(r.gateways()) ? "broker" : "gateways",
                    row.modelError() * 100, shares, r.brokerCpu().quotaShare() * 100,
                    r.brokerCpu().throttledShare() * 100, served,
                    r.gatewayMicrosPerRequest(), r.brokerMicrosPerRequest(), r.generatorCpu().cores(),
                    r.machineBusyCores(), r.p99Micros() / 1000, r.errorCount()));
        }
        ScaleOutModel m = v.model();
        b.append(String.format(Locale.ROOT, "%nModel, from the 1-gateway run: c_g = %.1f µs and c_b = %.1f µs of CPU per "
                        + "request; X(N) = min(N × %.2f / c_g, %.2f / c_b) = min(N × %,.0f, %,.0f) req/s, so the "
                        + "broker limits from %d gateways on.%n", m.gatewaySecondsPerRequest() * 1e6,
                m.brokerSecondsPerRequest() * 1e6, m.gatewayCores(), m.brokerCores(), m.gatewaysLimit(1),
                m.brokerLimit(), m.brokerBoundFrom()));
        ScaleOutVerdict.Row last = v.rows().get(v.rows().size() - 1);
        if (v.brokerSaturatesAt() > 0) {
            ScaleOutRun at = v.rows().get(indexOf(v, v.brokerSaturatesAt())).run();
            b.append(String.format(Locale.ROOT, "The broker saturates its quota at %d gateways (%.0f%% of it).%n",
                    v.brokerSaturatesAt(), at.brokerCpu().quotaShare() * 100));
        } else {
            b.append(String.format(Locale.ROOT, "The broker does not saturate its quota in these runs (%.0f%% of it "
                    + "with %d gateways).%n", last.run().brokerCpu().quotaShare() * 100, last.run().gateways()));
        }
        b.append("\n| check | figure | limit | |\n|---|---|---|---|\n");
        for (ScaleOutVerdict.Check c : v.checks()) {
            b.append("| ").append(c.name()).append(" | ").append(c.figure()).append(" | ").append(c.limit())
                    .append(" | ").append(c.passed() ? "pass" : "**FAIL**").append(" |\n");
        }
        b.append('\n').append(v.passed() ? "Verdict: scales (every check passed)."
                : "Verdict: FAILED (see the checks marked FAIL).").append('\n');
        return b.toString();
    }

    private static int indexOf(ScaleOutVerdict v, int gateways) {
        for (int i = 0; i < v.rows().size(); i++) {
            if (v.rows().get(i).run().gateways() == gateways) {
                return i;
            }
        }
        throw new IllegalArgumentException("no run with " + gateways + " gateways");
    }

    static String json(ScaleOutSettings s, Map<BrokerKind, ScaleOutVerdict> verdicts) {
        Map<String, Object> root = new LinkedHashMap<>();
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("describe", s.describe());
        settings.put("brokerCores", s.brokerCores());
        settings.put("gatewayCores", s.gatewayCores());
        settings.put("periodMicros", s.periodMicros());
        settings.put("warmupSeconds", s.warmupSeconds());
        settings.put("durationSeconds", s.durationSeconds());
        settings.put("clients", s.clients());
        settings.put("connectionsPerClient", s.connectionsPerClient());
        settings.put("window", s.window());
        settings.put("bodyBytes", s.bodyBytes());
        settings.put("jvmProcessors", s.jvmProcessors());
        root.put("settings", settings);
        List<Object> brokers = new ArrayList<>();
        for (Map.Entry<BrokerKind, ScaleOutVerdict> e : verdicts.entrySet()) {
            ScaleOutVerdict v = e.getValue();
            Map<String, Object> b = new LinkedHashMap<>();
            b.put("broker", e.getKey().id);
            b.put("label", e.getKey().label);
            ScaleOutModel m = v.model();
            Map<String, Object> model = new LinkedHashMap<>();
            model.put("gatewayCores", m.gatewayCores());
            model.put("gatewayMicrosPerRequest", ReportJson.number(m.gatewaySecondsPerRequest() * 1e6, 2));
            model.put("brokerCores", m.brokerCores());
            model.put("brokerMicrosPerRequest", ReportJson.number(m.brokerSecondsPerRequest() * 1e6, 2));
            model.put("gatewaysLimitPerGateway", ReportJson.number(m.gatewaysLimit(1), 1));
            model.put("brokerLimit", ReportJson.number(m.brokerLimit(), 1));
            model.put("brokerBoundFrom", m.brokerBoundFrom());
            b.put("model", model);
            b.put("brokerSaturatesAt", v.brokerSaturatesAt());
            List<Object> runs = new ArrayList<>();
            for (ScaleOutVerdict.Row row : v.rows()) {
                ScaleOutRun r = row.run();
                Map<String, Object> j = new LinkedHashMap<>();
                j.put("gateways", r.gateways());
                j.put("seconds", ReportJson.number(r.seconds(), 3));
                j.put("responses", r.responses());
                j.put("requestsPerSec", ReportJson.number(r.requestsPerSecond(), 1));
                j.put("linearity", ReportJson.number(row.linearity(), 3));
                j.put("modelRequestsPerSec", ReportJson.number(row.predicted(), 1));
                j.put("modelError", ReportJson.number(row.modelError(), 3));
                j.put("p50Micros", ReportJson.number(r.p50Micros(), 1));
                j.put("p99Micros", ReportJson.number(r.p99Micros(), 1));
                j.put("errors", r.errorCount());
                j.put("errorsByKind", new LinkedHashMap<>(r.errors()));
                j.put("gatewayMicrosPerRequest", ReportJson.number(r.gatewayMicrosPerRequest(), 2));
                j.put("brokerMicrosPerRequest", ReportJson.number(r.brokerMicrosPerRequest(), 2));
                j.put("broker", cpu(r.brokerCpu()));
                List<Object> gateways = new ArrayList<>();
                for (int i = 0; i < r.gateways(); i++) {
                    Map<String, Object> g = cpu(r.gatewayCpu().get(i));
                    g.put("served", r.servedByGateway().get(i));
                    gateways.add(g);
                }
                j.put("gatewayProcesses", gateways);
                j.put("generator", cpu(r.generatorCpu()));
                j.put("machineBusyCores", ReportJson.number(r.machineBusyCores(), 3));
                runs.add(j);
            }
            b.put("runs", runs);
            List<Object> checks = new ArrayList<>();
            for (ScaleOutVerdict.Check c : v.checks()) {
                Map<String, Object> j = new LinkedHashMap<>();
                j.put("name", c.name());
                j.put("figure", c.figure());
                j.put("limit", c.limit());
                j.put("passed", c.passed());
                checks.add(j);
            }
            b.put("checks", checks);
            b.put("passed", v.passed());
            brokers.add(b);
        }
        root.put("brokers", brokers);
        return ReportJson.write(root);
    }

    private static Map<String, Object> cpu(ProcessCpu p) {
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("name", p.name());
        j.put("quotaCores", p.quotaCores());
        j.put("cpuSeconds", ReportJson.number(p.cpuSeconds(), 4));
        j.put("cores", ReportJson.number(p.cores(), 4));
        j.put("quotaShare", ReportJson.number(p.quotaShare(), 4));
        j.put("periods", p.periods());
        j.put("throttledPeriods", p.throttledPeriods());
        return j;
    }

    /** Measured, modelled and linear (N × X(1)) throughput against the gateway count, each broker in its colour. */
    private static void chart(ScaleOutSettings s, Map<BrokerKind, ScaleOutVerdict> verdicts, Path base)
            throws IOException {
        System.setProperty("java.awt.headless", "true");
        XYChart chart = new XYChartBuilder().width(800).height(600)
                .title(String.format(Locale.ROOT, "N gateways on one queue: broker %.2f cores, each gateway %.2f",
                        s.brokerCores(), s.gatewayCores()))
                .xAxisTitle("gateways attached to the queue").yAxisTitle("requests/s").build();
        chart.getStyler().setXAxisDecimalPattern("0");
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        int colour = 0;
        for (Map.Entry<BrokerKind, ScaleOutVerdict> e : verdicts.entrySet()) {
            // One colour per broker: measured solid, the model dashed, linear dotted.
            Color c = COLOURS[colour++ % COLOURS.length];
            List<ScaleOutVerdict.Row> rows = e.getValue().rows();
            double[] x = new double[rows.size()];
            double[] measured = new double[rows.size()];
            double[] model = new double[rows.size()];
            double[] linear = new double[rows.size()];
            double one = rows.get(0).run().requestsPerSecond();
            for (int i = 0; i < x.length; i++) {
                ScaleOutRun r = rows.get(i).run();
                x[i] = r.gateways();
                measured[i] = r.requestsPerSecond();
                model[i] = rows.get(i).predicted();
                linear[i] = r.gateways() * one;
            }
            String name = e.getKey().label;
            XYSeries ms = chart.addSeries(name + ", measured", x, measured);
            ms.setMarker(SeriesMarkers.CIRCLE);
            XYSeries m = chart.addSeries(name + ", model min(N q_g/c_g, q_b/c_b)", x, model);
            m.setMarker(SeriesMarkers.DIAMOND);
            m.setLineStyle(SeriesLines.DASH_DASH);
            XYSeries l = chart.addSeries(name + ", linear N × X(1)", x, linear);
            l.setMarker(SeriesMarkers.NONE);
            l.setLineStyle(SeriesLines.DOT_DOT);
            for (XYSeries series : List.of(ms, m, l)) {
                series.setLineColor(c);
                series.setMarkerColor(c);
            }
        }
        BitmapEncoder.saveBitmap(chart, base.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
