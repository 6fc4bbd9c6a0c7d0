package io.amqpservlet.bench.soak;

import io.amqpservlet.bench.ReportJson;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

import javax.imageio.ImageIO;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The soak's report: a markdown table with a row per sample (throughput, the gateway process's heap after GC, RSS,
 * file descriptors and threads, each kind's p99 and the errors), the verdict's checks, a JSON file of the same, and
 * one PNG of four plots against time (heap after GC, RSS, descriptors and threads, p99 per kind), drawn with XChart as
 * {@code bench gateway}'s plots are.
 */
final class SoakReport {
    private SoakReport() {
    }

    /** The line printed after each sample while the soak runs. */
    static String progressLine(SoakSample s) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
                "soak: %6.1f min  %,7.0f req/s  heap after GC %6.1f MiB  RSS %6.1f MiB  fds %4d  threads %3d  p99 ms",
                s.seconds() / 60, s.requestsPerSecond(), s.process().heapMiB(), s.process().rssMiB(),
                s.process().fds(), s.process().threads()));
        for (KindStats.Interval k : s.kinds()) {
            b.append(String.format(Locale.ROOT, " %s %.1f", k.kind(), k.p99Micros() / 1000));
        }
        b.append("  errors ").append(s.errors());
        return b.toString();
    }

    static String markdown(SoakResult r, List<SoakVerdict.Check> checks) {
        SoakSettings st = r.settings();
        StringBuilder b = new StringBuilder();
        b.append("| minute | req/s | heap after GC (MiB) | RSS (MiB) | open fds | threads |");
        List<String> kinds = new ArrayList<>(r.responses().keySet());
        for (String k : kinds) {
            b.append(" p99 ").append(k).append(" (ms) |");
        }
        b.append(" errors | bad peers |\n|---:|---:|---:|---:|---:|---:|");
        b.append("---:|".repeat(kinds.size())).append("---:|---:|\n");
        b.append(String.format(Locale.ROOT, "| before | | %.1f | %.1f | %d | %d |", r.before().heapMiB(),
                r.before().rssMiB(), r.before().fds(), r.before().threads()));
        b.append(" |".repeat(kinds.size())).append(" | |\n");
        double warmup = st.warmupMillis() / 1000.0;
        for (SoakSample s : r.samples()) {
            b.append(String.format(Locale.ROOT, "| %s%.1f | %,.0f | %.1f | %.1f | %d | %d |",
                    s.seconds() < warmup - 0.5 ? "(warm-up) " : "", s.seconds() / 60, s.requestsPerSecond(),
                    s.process().heapMiB(), s.process().rssMiB(), s.process().fds(), s.process().threads()));
            for (KindStats.Interval k : s.kinds()) {
                b.append(String.format(Locale.ROOT, " %.2f |", k.p99Micros() / 1000));
            }
            b.append(' ').append(s.errors()).append(" | ").append(s.badPeers()).append(" |\n");
        }
        if (r.after() != null) {
            b.append(String.format(Locale.ROOT, "| after | | %.1f | %.1f | %d | %d |", r.after().heapMiB(),
                    r.after().rssMiB(), r.after().fds(), r.after().threads()));
            b.append(" |".repeat(kinds.size())).append(" | |\n");
        }
        b.append("\n| check | figure | limit | |\n|---|---:|---:|---|\n");
        for (SoakVerdict.Check c : checks) {
            b.append("| ").append(c.name()).append(" | ").append(c.figure()).append(" | ").append(c.limit())
                    .append(" | ").append(c.passed() ? "pass" : "**FAIL**").append(" |\n");
        }
        b.append("\n| bad peer | started | closed by the gateway | open at the end of the hold | cut short by the end "
                + "of the run | failed |\n|---|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<BadPeers.Kind, BadPeers.Counts> e : r.badPeers().entrySet()) {
            BadPeers.Counts c = e.getValue();
            b.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %d |%n", e.getKey().label, c.started(),
                    c.closedByGateway(), c.heldToTheEnd(), c.cutShort(), c.failed()));
        }
        b.append("\n| client | responses | errors |\n|---|---:|---|\n");
        for (String k : kinds) {
            Map<String, Long> errors = r.errors().get(k);
            b.append(String.format(Locale.ROOT, "| %s | %,d | %s |%n", k, r.responses().get(k),
                    errors.isEmpty() ? "none" : errors.toString()));
        }
        return b.toString();
    }

    static String header(SoakResult r) {
        SoakSettings st = r.settings();
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "Soak: %.0f min of load, sampled every %.0f s, the first %.0f s warm-up; "
                        + "gateway JVM %s%n", st.durationMillis() / 60_000.0, st.sampleMillis() / 1000.0,
                st.warmupMillis() / 1000.0, String.join(" ", SoakRun.gatewayJvm(st.gatewayJvm()))));
        if (r.saturation() == null) {
            b.append(String.format(Locale.ROOT, "Rate given: %,.0f req/s%n", r.totalRate()));
        } else {
            b.append(String.format(Locale.ROOT, "Saturation (our generator over AMQP 16 x 4, HTTP/1.1 16 x 1 and "
                    + "through the broker 4 x 4, closed loop, all at once): %,.0f req/s (%s); the soak's rate is half: "
                    + "%,.0f req/s%n", r.saturation().requestsPerSecond(), r.saturation().parts(), r.totalRate()));
        }
        for (Map.Entry<String, String> e : r.clients().entrySet()) {
            b.append("- ").append(e.getKey()).append(": ").append(e.getValue()).append('\n');
        }
        return b.toString();
    }

    static String json(SoakResult r, List<SoakVerdict.Check> checks) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("minutes", r.settings().durationMillis() / 60_000.0);
        root.put("sampleSeconds", r.settings().sampleMillis() / 1000.0);
        root.put("warmupSeconds", r.settings().warmupMillis() / 1000.0);
        root.put("saturation", r.saturation() == null ? null
                : ReportJson.number(r.saturation().requestsPerSecond(), 0));
        root.put("totalRate", ReportJson.number(r.totalRate(), 0));
        root.put("clients", r.clients());
        root.put("before", process(r.before()));
        List<Object> samples = new ArrayList<>();
        for (SoakSample s : r.samples()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("seconds", ReportJson.number(s.seconds(), 1));
            m.put("process", process(s.process()));
            Map<String, Object> kinds = new LinkedHashMap<>();
            for (KindStats.Interval k : s.kinds()) {
                Map<String, Object> km = new LinkedHashMap<>();
                km.put("responses", k.responses());
                km.put("p99Micros", Double.isNaN(k.p99Micros()) ? null : ReportJson.number(k.p99Micros(), 1));
                km.put("errors", new LinkedHashMap<>(k.errors()));
                kinds.put(k.kind(), km);
            }
            m.put("kinds", kinds);
            m.put("badPeers", s.badPeers());
            samples.add(m);
        }
        root.put("samples", samples);
        root.put("after", r.after() == null ? null : process(r.after()));
        List<Object> cs = new ArrayList<>();
        for (SoakVerdict.Check c : checks) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("check", c.name());
            m.put("figure", c.figure());
            m.put("limit", c.limit());
            m.put("passed", c.passed());
            cs.add(m);
        }
        root.put("checks", cs);
        root.put("passed", SoakVerdict.passed(checks));
        return ReportJson.write(root);
    }

    private static Map<String, Object> process(ProcessSample p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("heapAfterGcBytes", p.heapAfterGcBytes());
        m.put("rssBytes", p.rssBytes());
        m.put("fds", p.fds());
        m.put("threads", p.threads());
        return m;
    }

    /** Writes soak.md, soak.json and soak.png into {@code dir}; returns the markdown. */
    static String write(SoakResult r, List<SoakVerdict.Check> checks, Path dir) throws IOException {
        Files.createDirectories(dir);
        String md = header(r) + "\n" + markdown(r, checks);
        Files.writeString(dir.resolve("soak.md"), md);
        Files.writeString(dir.resolve("soak.json"), json(r, checks));
        plot(r, dir.resolve("soak.png"));
        return md;
    }

    /** Four plots one above the other: heap after GC, RSS, descriptors and threads, p99 per kind; against minutes. */
    static void plot(SoakResult r, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<SoakSample> s = r.samples();
        if (s.isEmpty()) {
            return;
        }
        double[] x = new double[s.size()];
        for (int i = 0; i < x.length; i++) {
            x[i] = s.get(i).seconds() / 60;
        }
        XYChart heap = chart("Gateway heap after a full GC", "MiB");
        series(heap, "heap after GC", x, s, p -> p.process().heapMiB());
        XYChart rss = chart("Gateway resident set (RSS)", "MiB");
        series(rss, "RSS", x, s, p -> p.process().rssMiB());
        XYChart counts = chart("Gateway open file descriptors and threads", "count");
        series(counts, "open fds", x, s, p -> p.process().fds());
        series(counts, "threads", x, s, p -> p.process().threads());
        XYChart latency = chart("p99 latency of each sampling interval, by client", "p99 (ms)");
        latency.getStyler().setYAxisLogarithmic(true);
        for (int k = 0; k < s.get(0).kinds().size(); k++) {
            int index = k;
            series(latency, s.get(0).kinds().get(k).kind(), x, s,
                    p -> {
                        double ms = p.kinds().get(index).p99Micros() / 1000;
                        return Double.isNaN(ms) ? 0.01 : Math.max(0.01, ms); // a log axis: no zero, no gap
                    });
        }
        List<BufferedImage> images = List.of(BitmapEncoder.getBufferedImage(heap), BitmapEncoder.getBufferedImage(rss),
                BitmapEncoder.getBufferedImage(counts), BitmapEncoder.getBufferedImage(latency));
        int width = images.get(0).getWidth();
        int height = 0;
        for (BufferedImage i : images) {
            height += i.getHeight();
        }
        BufferedImage all = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = all.createGraphics();
        int y = 0;
        for (BufferedImage i : images) {
            g.drawImage(i, 0, y, null);
            y += i.getHeight();
        }
        g.dispose();
        ImageIO.write(all, "png", file.toFile());
    }

    private static XYChart chart(String title, String yTitle) {
        XYChart c = new XYChartBuilder().width(900).height(300).title(title).xAxisTitle("minutes")
                .yAxisTitle(yTitle).build();
        c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
        return c;
    }

    private static void series(XYChart chart, String name, double[] x, List<SoakSample> s,
                               ToDoubleFunction<SoakSample> figure) {
        double[] y = new double[s.size()];
        for (int i = 0; i < y.length; i++) {
            y[i] = figure.applyAsDouble(s.get(i));
        }
        chart.addSeries(name, x, y).setMarker(SeriesMarkers.CIRCLE);
    }
}
