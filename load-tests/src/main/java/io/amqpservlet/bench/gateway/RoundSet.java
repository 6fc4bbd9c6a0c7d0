package io.amqpservlet.bench.gateway;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The rounds of one protocol at one load: the suite measures every protocol in turn, then again, three times, so
 * that drift on the machine (other processes, thermal state, the JIT) falls on all protocols alike. A figure is
 * reported as the median of its rounds with the lowest and highest beside it; a ratio between two protocols is
 * taken round by round (the same round of both, measured minutes apart at most) and trusted only when every round
 * agrees with the verdict.
 */
record RoundSet(String protocol, String load, double targetRate, List<Run> rounds) {
    RoundSet {
        if (rounds.isEmpty()) {
            throw new IllegalArgumentException("no rounds for " + protocol + " at " + load);
        }
        rounds = List.copyOf(rounds);
    }

    static double cpu(Run r) {
        return r.server().cpuMicrosPerRequest();
    }

    static double bytes(Run r) {
        return r.server().bytesPerRequest();
    }

    static double rps(Run r) {
        return r.client().requestsPerSecond();
    }

    static double p99(Run r) {
        return r.client().latencyMicros().get("p99");
    }

    /** The value of {@code figure} in each round, in round order. */
    double[] each(ToDoubleFunction<Run> figure) {
        double[] v = new double[rounds.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = figure.applyAsDouble(rounds.get(i));
        }
        return v;
    }

    double median(ToDoubleFunction<Run> figure) {
        return median(each(figure));
    }

    /** {lowest, highest} of {@code figure} over the rounds. */
    double[] range(ToDoubleFunction<Run> figure) {
        double[] v = each(figure);
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (double x : v) {
            lo = Math.min(lo, x);
            hi = Math.max(hi, x);
        }
        return new double[] {lo, hi};
    }

    /** Half the range relative to the median, in percent: "±3%" says the rounds lay within 3% of the middle. */
    double spreadPercent(ToDoubleFunction<Run> figure) {
        double[] r = range(figure);
        double m = median(figure);
        return m == 0 || Double.isNaN(m) ? Double.NaN : (r[1] - r[0]) / 2 / Math.abs(m) * 100;
    }

    /**
     * A run whose every figure is the median of the rounds' (each figure on its own, so it may mix rounds); the
     * latency curve is the median at each percentile; errors are summed over the rounds.
     */
    Run median() {
        if (rounds.size() == 1) {
            return rounds.get(0);
        }
        Run first = rounds.get(0);
        Map<String, Double> latency = new LinkedHashMap<>();
        for (String k : first.client().latencyMicros().keySet()) {
            latency.put(k, median(r -> r.client().latencyMicros().getOrDefault(k, Double.NaN)));
        }
        Map<Double, Double> curve = new LinkedHashMap<>();
        for (Double p : first.client().latencyCurve().keySet()) {
            curve.put(p, median(r -> r.client().latencyCurve().getOrDefault(p, Double.NaN)));
        }
        Map<String, Long> errors = new LinkedHashMap<>();
        long responses = 0;
        for (Run r : rounds) {
            for (Map.Entry<String, Long> e : r.client().errors().entrySet()) {
                errors.merge(e.getKey(), e.getValue(), Long::sum);
            }
            responses += r.client().responses();
        }
        // Responses and seconds such that requestsPerSecond() is the median rate.
        double rate = median(RoundSet::rps);
        double seconds = rate > 0 ? responses / rate : 0;
        ClientFigures client = new ClientFigures(responses, seconds, latency, errors, curve);
        ServerSample.ServerFigures server = new ServerSample.ServerFigures(median(RoundSet::cpu),
                median(RoundSet::bytes), Math.round(median(r -> r.server().gcCount())),
                Math.round(median(r -> r.server().gcMillis())));
        return new Run(protocol, load, targetRate, client, server);
    }

    /**
     * {@code figure} of this set minus that of {@code floor}, round by round (round i against round i; the floor's
     * median when it has fewer rounds).
     */
    double[] above(RoundSet floor, ToDoubleFunction<Run> figure) {
        double[] mine = each(figure);
        double[] base = floor.each(figure);
        double[] d = new double[mine.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = mine[i] - (i < base.length && base.length == mine.length ? base[i] : median(base));
        }
        return d;
    }

    /** Per-round quotients {@code a[i] / b[i]} (NaN where b is not positive). */
    static double[] quotients(double[] a, double[] b) {
        int n = Math.min(a.length, b.length);
        double[] q = new double[n];
        for (int i = 0; i < n; i++) {
            q[i] = b[i] > 0 ? a[i] / b[i] : Double.NaN;
        }
        return q;
    }

    static double median(double[] values) {
        List<Double> v = new ArrayList<>();
        for (double x : values) {
            if (!Double.isNaN(x)) {
                v.add(x);
            }
        }
        if (v.isEmpty()) {
            return Double.NaN;
        }
        double[] s = v.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    static double min(double[] values) {
        double m = Double.NaN;
        for (double x : values) {
            m = Double.isNaN(m) || x < m ? x : m;
        }
        return m;
    }

    static double max(double[] values) {
        double m = Double.NaN;
        for (double x : values) {
            m = Double.isNaN(m) || x > m ? x : m;
        }
        return m;
    }
}
