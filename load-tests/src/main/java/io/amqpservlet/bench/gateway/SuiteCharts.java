package io.amqpservlet.bench.gateway;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The suite's plots, PNG files written with XChart: throughput per protocol at saturation
 * ({@code gateway-throughput.png}), and for each load a latency percentile curve per protocol in the style of
 * HdrHistogram's plots, the x axis being 1/(1 − percentile) on a log scale so that the tail spreads out
 * ({@code gateway-latency-saturation.png}, {@code gateway-latency-25.png}, ...), and against load, one line per
 * protocol through its fixed rates and its saturation point, the p99 latency ({@code gateway-p99-by-load.png}) and
 * the server CPU per request ({@code gateway-cpu-by-load.png}); the floor through its fixed rates only. Every point
 * is the median of the rounds. {@code bench attach} writes the same plots as {@code attach-*.png}.
 */
final class SuiteCharts {
    private SuiteCharts() {
    }

    /**
     * Writes the plots into {@code dir}, their names starting with {@code prefix} ({@code gateway}, {@code attach});
     * returns the files written. The brokered rows join the throughput bars and the latency curves (their fixed rate,
     * half of each broker's attach saturation, as {@code PREFIX-latency-attach-50.png}); rows that repeat another's
     * client figures with another process's CPU ({@code -responder}, {@code -attach-broker}) or the machine's
     * ({@code -machine}) are left out.
     */
    static List<Path> write(Map<String, List<RoundSet>> rounds, List<BrokeredRows.Result> brokered, Path dir,
                            String prefix) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Map<String, List<RoundSet>> all = new LinkedHashMap<>(rounds);
        for (BrokeredRows.Result r : brokered) {
            for (Map.Entry<String, List<RoundSet>> e : r.rows().entrySet()) {
                if (!e.getKey().endsWith("-responder") && !e.getKey().endsWith("-broker")
                        && !e.getKey().endsWith("-machine")) {
                    all.put(e.getKey(), e.getValue());
                }
            }
        }
        Map<String, List<Run>> runs = new LinkedHashMap<>();
        for (Map.Entry<String, List<RoundSet>> e : all.entrySet()) {
            List<Run> medians = new ArrayList<>();
            for (RoundSet s : e.getValue()) {
                medians.add(s.median());
            }
            runs.put(e.getKey(), medians);
        }
        List<Path> files = new ArrayList<>();
        CategoryChart bars = new CategoryChartBuilder().width(800).height(450)
                .title("Throughput at saturation (/echo, 100-byte POST)").xAxisTitle("protocol")
                .yAxisTitle("requests/s").build();
        bars.getStyler().setLegendVisible(false);
        bars.getStyler().setXAxisLabelRotation(30); // a dozen rows with both brokers: level labels would overlap
        List<String> names = new ArrayList<>();
        List<Number> rates = new ArrayList<>();
        for (Map.Entry<String, List<Run>> e : runs.entrySet()) {
            if (e.getKey().equals("floor")) {
                continue; // no wire: several times the others' rate, it would flatten their bars (see the table)
            }
            Run first = e.getValue().get(0);
            if (first.targetRate() > 0) {
                continue; // measured at a fixed rate only (the listener at a broker's 50%): no saturation to show
            }
            names.add(e.getKey());
            rates.add(first.client().requestsPerSecond());
        }
        bars.addSeries("requests/s", names, rates);
        files.add(save(bars, dir.resolve(prefix + "-throughput")));

        Map<String, Map<String, Run>> byLoad = new LinkedHashMap<>();
        for (Map.Entry<String, List<Run>> e : runs.entrySet()) {
            for (Run r : e.getValue()) {
                byLoad.computeIfAbsent(r.load(), k -> new LinkedHashMap<>()).put(e.getKey(), r);
            }
        }
        for (Map.Entry<String, Map<String, Run>> e : byLoad.entrySet()) {
            String load = e.getKey();
            XYChart chart = new XYChartBuilder().width(800).height(500)
                    .title("Latency by percentile, " + (load.equals("saturation") ? "at saturation"
                            : load.startsWith("attach-") ? "at " + load.substring(7) + " of each broker's attach "
                            + "saturation" : "at " + load + " of the AMQP maximum"))
                    .xAxisTitle("1 / (1 - percentile):  2 = p50, 10 = p90, 100 = p99, 1000 = p99.9, 10^4 = p99.99")
                    .yAxisTitle("latency (ms)").build();
            // A log axis of 1/(1-p), as HdrHistogram's plots: XChart's decade ticks read 10 = p90, 100 = p99...
            // (its custom tick-label function would replace the log ticks with linear ones).
            chart.getStyler().setXAxisLogarithmic(true);
            for (Map.Entry<String, Run> p : e.getValue().entrySet()) {
                Map<Double, Double> curve = curve(p.getValue().client());
                double[] x = new double[curve.size()];
                double[] y = new double[curve.size()];
                int i = 0;
                for (Map.Entry<Double, Double> point : curve.entrySet()) {
                    x[i] = 1 / (1 - point.getKey() / 100);
                    y[i++] = point.getValue() / 1000;
                }
                String label = p.getKey() + (p.getValue().targetRate() > 0
                        ? String.format(Locale.ROOT, " (%,.0f req/s)", p.getValue().client().requestsPerSecond()) : "");
                chart.addSeries(label, x, y).setMarker(SeriesMarkers.CIRCLE);
            }
            String suffix = load.equals("saturation") ? "saturation" : load.replace("%", "");
            files.add(save(chart, dir.resolve(prefix + "-latency-" + suffix)));
        }
        files.add(byLoad(runs, "p99 latency against load (median of the rounds)", "p99 (ms)",
                r -> r.client().latencyMicros().get("p99") / 1000, dir.resolve(prefix + "-p99-by-load")));
        files.add(byLoad(runs, "Server CPU per request against load (median of the rounds)", "CPU (µs/request)",
                r -> r.server().cpuMicrosPerRequest(), dir.resolve(prefix + "-cpu-by-load")));
        return files;
    }

    /** One line per protocol measured at several loads: {@code figure} against the requests/s achieved. */
    private static Path byLoad(Map<String, List<Run>> runs, String title, String yTitle,
                               java.util.function.ToDoubleFunction<Run> figure, Path base) throws IOException {
        XYChart chart = new XYChartBuilder().width(800).height(500).title(title).xAxisTitle("requests/s")
                .yAxisTitle(yTitle).build();
        for (Map.Entry<String, List<Run>> e : runs.entrySet()) {
            List<Run> list = new ArrayList<>(e.getValue());
            if (e.getKey().equals("floor")) {
                list.removeIf(r -> r.targetRate() <= 0); // its saturation point is far off the others' scale
            }
            if (list.size() < 2) {
                continue;
            }
            list.sort(java.util.Comparator.comparingDouble(r -> r.client().requestsPerSecond()));
            double[] x = new double[list.size()];
            double[] y = new double[list.size()];
            for (int i = 0; i < x.length; i++) {
                x[i] = list.get(i).client().requestsPerSecond();
                y[i] = figure.applyAsDouble(list.get(i));
            }
            chart.addSeries(e.getKey(), x, y).setMarker(SeriesMarkers.CIRCLE);
        }
        return save(chart, base);
    }

    /** The client's curve, or for a client that reports a few percentiles only (wrk), those. */
    private static Map<Double, Double> curve(ClientFigures f) {
        if (!f.latencyCurve().isEmpty()) {
            return f.latencyCurve();
        }
        Map<Double, Double> m = new LinkedHashMap<>();
        for (String key : ClientFigures.KEYS) {
            if (key.startsWith("p")) {
                m.put(Double.parseDouble(key.substring(1)), f.latencyMicros().get(key));
            }
        }
        return m;
    }

    private static Path save(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, Path base) throws IOException {
        BitmapEncoder.saveBitmap(chart, base.toString(), BitmapEncoder.BitmapFormat.PNG);
        return base.resolveSibling(base.getFileName() + ".png");
    }
}
