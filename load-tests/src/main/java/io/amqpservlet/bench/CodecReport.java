package io.amqpservlet.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Prints the codec benchmarks of a JMH JSON result file as one table: per workload and operation, ns/op and B/op
 * ({@code gc.alloc.rate.norm}, present when JMH ran with {@code -prof gc}) for each codec, and our speed-up over
 * each peer (peer ns / our ns). Benchmarks are recognised by their method names,
 * {@code <workload>_<codec>_<op>}; others in the file are ignored. Used by {@code load-tests/bench codec}.
 *
 * <pre>java -cp benchmarks.jar io.amqpservlet.bench.CodecReport load-tests/target/bench/codec.json</pre>
 */
public final class CodecReport {
    static final String OURS = "ours";
    static final String[] PEERS = {"protonj2", "protonj"};
    private static final String[] OP_ORDER = {"encode", "encodePreencoded", "decode", "decodeCached", "scan"};

    private CodecReport() {
    }

    /** Prints the table for the JSON file named by the only argument. */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: CodecReport <jmh-result.json>");
            System.exit(2);
        }
        System.out.print(render(Files.readString(Path.of(args[0]), StandardCharsets.UTF_8)));
    }

    /** One measured number pair of a benchmark. */
    private static final class Score {
        double nsPerOp = Double.NaN;
        double bytesPerOp = Double.NaN;
    }

    /** The table for the JMH JSON result {@code json}. */
    static String render(String json) {
        Object parsed = ReportJson.parse(json);
        if (!(parsed instanceof List)) {
            throw new IllegalArgumentException("a JMH result file is a JSON array");
        }
        // workload -> op -> codec -> score, each level in order of first appearance.
        Map<String, Map<String, Map<String, Score>>> results = new LinkedHashMap<>();
        for (Object item : (List<?>) parsed) {
            Map<?, ?> run = (Map<?, ?>) item;
            String benchmark = String.valueOf(run.get("benchmark"));
            String method = benchmark.substring(benchmark.lastIndexOf('.') + 1);
            String[] parts = method.split("_");
            if (parts.length != 3) {
                continue;
            }
            Score s = new Score();
            Map<?, ?> primary = (Map<?, ?>) run.get("primaryMetric");
            s.nsPerOp = toNanos(number(primary.get("score")), String.valueOf(primary.get("scoreUnit")));
            Object secondary = run.get("secondaryMetrics");
            if (secondary instanceof Map) {
                Object norm = ((Map<?, ?>) secondary).get("gc.alloc.rate.norm");
                if (norm instanceof Map) {
                    s.bytesPerOp = number(((Map<?, ?>) norm).get("score"));
                }
            }
            results.computeIfAbsent(parts[0], k -> new LinkedHashMap<>())
                    .computeIfAbsent(parts[2], k -> new LinkedHashMap<>())
                    .put(parts[1], s);
        }
        return format(results);
    }

    private static String format(Map<String, Map<String, Map<String, Score>>> results) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"workload", "op", "ns/op ours", "protonj2", "protonj", "B/op ours", "protonj2",
            "protonj", "vs protonj2", "vs protonj"});
        boolean scanFootnote = false;
        for (Map.Entry<String, Map<String, Map<String, Score>>> w : results.entrySet()) {
            for (String op : orderedOps(w.getValue())) {
                Map<String, Score> byCodec = w.getValue().get(op);
                Score ours = byCodec.get(OURS);
                // Only we have a scan, a cached decode and a pre-encoded encode; each stands in for the peers'
                // decode or encode, so compare it with that.
                String peerOp = op.startsWith("encode") ? "encode" : "decode";
                boolean againstDecode = !byCodec.containsKey(PEERS[0]) && !byCodec.containsKey(PEERS[1])
                        && w.getValue().containsKey(peerOp) && !op.equals(peerOp);
                Map<String, Score> peerSource = againstDecode ? w.getValue().get(peerOp) : byCodec;
                scanFootnote |= againstDecode;
                String[] row = new String[10];
                row[0] = w.getKey();
                row[1] = op;
                row[2] = ns(ours);
                row[5] = bytes(ours);
                for (int p = 0; p < PEERS.length; p++) {
                    Score peer = byCodec.get(PEERS[p]);
                    row[3 + p] = ns(peer);
                    row[6 + p] = bytes(peer);
                    Score compared = peerSource.get(PEERS[p]);
                    row[8 + p] = speedUp(ours, compared) + (againstDecode && compared != null ? "*" : "");
                }
                rows.add(row);
            }
        }
        StringBuilder out = new StringBuilder();
        int[] widths = new int[rows.get(0).length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (int r = 0; r < rows.size(); r++) {
            String[] row = rows.get(r);
            for (int i = 0; i < row.length; i++) {
                String cell = row[i];
                // Names left-aligned, numbers right-aligned; two spaces between columns.
                out.append(i < 2 ? pad(cell, widths[i], false) : pad(cell, widths[i], true));
                out.append(i == row.length - 1 ? "" : "  ");
            }
            out.append('\n');
            if (r == 0) {
                int total = 0;
                for (int width : widths) {
                    total += width + 2;
                }
                out.append("-".repeat(total - 2)).append('\n');
            }
        }
        out.append("speed-up = peer ns/op / our ns/op\n");
        if (scanFootnote) {
            out.append("* compared with the peer's encode or decode: only we have this variant (pre-encoded names,"
                    + " cached strings, zero-allocation scan)\n");
        }
        return out.toString();
    }

    private static List<String> orderedOps(Map<String, Map<String, Score>> ops) {
        List<String> ordered = new ArrayList<>();
        for (String op : OP_ORDER) {
            if (ops.containsKey(op)) {
                ordered.add(op);
            }
        }
        for (String op : ops.keySet()) {
            if (!ordered.contains(op)) {
                ordered.add(op);
            }
        }
        return ordered;
    }

    private static double number(Object value) {
        if (value instanceof Number) {
            return ((Number) value).doubleValue();
        }
        // JMH writes "NaN" (a string) when it has no number.
        return Double.NaN;
    }

    private static double toNanos(double score, String unit) {
        switch (unit) {
            case "ns/op":
                return score;
            case "us/op":
                return score * 1e3;
            case "ms/op":
                return score * 1e6;
            case "s/op":
                return score * 1e9;
            default:
                throw new IllegalArgumentException("unsupported score unit " + unit + "; run with -bm avgt");
        }
    }

    private static String ns(Score s) {
        if (s == null || Double.isNaN(s.nsPerOp)) {
            return "-";
        }
        return String.format(Locale.ROOT, s.nsPerOp < 100 ? "%.1f" : "%.0f", s.nsPerOp);
    }

    private static String bytes(Score s) {
        if (s == null) {
            return "-";
        }
        if (Double.isNaN(s.bytesPerOp)) {
            return "n/a";
        }
        // JMH's normalised rate carries measurement noise of a fraction of a byte: show whole bytes.
        return String.format(Locale.ROOT, "%.0f", Math.max(0, s.bytesPerOp));
    }

    private static String speedUp(Score ours, Score peer) {
        if (ours == null || peer == null || Double.isNaN(ours.nsPerOp) || Double.isNaN(peer.nsPerOp)
                || ours.nsPerOp <= 0) {
            return "-";
        }
        return String.format(Locale.ROOT, "%.1fx", peer.nsPerOp / ours.nsPerOp);
    }

    private static String pad(String s, int width, boolean right) {
        String fill = " ".repeat(width - s.length());
        return right ? fill + s : s + fill;
    }
}
