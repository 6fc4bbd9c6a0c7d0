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
 * ({@code gateway-latency-saturation.png}, {@code gateway-latency-25.png}, ...).
 */
final class SuiteCharts {
    private SuiteCharts() {
    }

    /** Writes the plots into {@code dir}; returns the files written. */
    static List<Path> write(Map<String, List<Run>> runs, Path dir) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<Path> files = new ArrayList<>();
        CategoryChart bars = new CategoryChartBuilder().width(800).height(450)
                .title("Throughput at saturation (/echo, 100-byte POST)").xAxisTitle("protocol")
                .yAxisTitle("requests/s").build();
        bars.getStyler().setLegendVisible(false);
        List<String> names = new ArrayList<>();
        List<Number> rates = new ArrayList<>();
        for (Map.Entry<String, List<Run>> e : runs.entrySet()) {
            names.add(e.getKey());
            rates.add(e.getValue().get(0).client().requestsPerSecond());
        }
        bars.addSeries("requests/s", names, rates);
        files.add(save(bars, dir.resolve("gateway-throughput")));

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
                            : "at " + load + " of the AMQP maximum"))
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
            files.add(save(chart, dir.resolve("gateway-latency-" + suffix)));
        }
        return files;
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
