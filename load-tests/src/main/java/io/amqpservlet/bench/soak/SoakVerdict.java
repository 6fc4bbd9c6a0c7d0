package io.amqpservlet.bench.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Whether the gateway grew during a soak, and whether it served everyone: a list of checks, each a figure against
 * its limit. Growth is measured over the samples after the warm-up, either as the slope of a least-squares line
 * (per hour; the benchmark, with a sample a minute) or, for the one-minute run in the build (too short for a slope
 * to mean much), as the lowest of the last two samples minus the lowest of the first two: what the gateway holds
 * for the clients of the moment (the responses a non-reading peer has not taken, 256 KiB bodies in flight, a bad
 * peer's socket) comes and goes between samples, and the lower of two neighbours has less of it. Whatever the
 * limits:
 * <ul>
 *   <li>no errors of any kind from the well-behaved clients (a timeout is a lost request), and every kind
 *       answered;</li>
 *   <li>once the load stopped and every client closed, the gateway holds no more file descriptors than before the
 *       load, give or take {@link Limits#fdSlackAfterLoad()} (a socket kept after its peer went is a leak);</li>
 *   <li>every stalled handshake and every peer sending garbage was closed by the gateway within the hold time;</li>
 *   <li>the gateway is still running.</li>
 * </ul>
 */
final class SoakVerdict {
    /**
     * The limits. With {@code perHour} the growth figures are slopes per hour, otherwise the lowest of the last two
     * measured samples minus the lowest of the first two.
     */
    record Limits(boolean perHour, double heapMiB, double rssMiB, double fds, double threads, int fdSlackAfterLoad) {
        /** The benchmark's: slopes over an hour or so of minute samples. */
        static final Limits BENCHMARK = new Limits(true, 8, 32, 10, 10, 10);
        /** The build's one-minute run: end minus start, no RSS limit (the JIT still fills its code cache). */
        static final Limits BUILD = new Limits(false, 16, Double.NaN, 40, 24, 10);
    }

    /** One check: a figure, its limit, and whether it passed. */
    record Check(String name, String figure, String limit, boolean passed) {
    }

    private SoakVerdict() {
    }

    static List<Check> checks(SoakResult r, Limits limits) {
        List<Check> checks = new ArrayList<>();
        List<SoakSample> m = r.measured();
        checks.add(new Check("gateway running at the end", Boolean.toString(r.alive()), "true", r.alive()));
        if (m.size() >= (limits.perHour() ? 2 : 4)) {
            growth(checks, "heap after GC", "MiB", m, s -> s.process().heapMiB(), limits.heapMiB(), limits);
            growth(checks, "RSS", "MiB", m, s -> s.process().rssMiB(), limits.rssMiB(), limits);
            growth(checks, "open fds", "", m, s -> s.process().fds(), limits.fds(), limits);
            growth(checks, "threads", "", m, s -> s.process().threads(), limits.threads(), limits);
        } else {
            checks.add(new Check("samples after the warm-up", Integer.toString(m.size()),
                    limits.perHour() ? ">= 2" : ">= 4", false));
        }
        long errors = r.errorCount();
        checks.add(new Check("errors (timeouts, refusals, failed connections)", Long.toString(errors), "0",
                errors == 0));
        for (Map.Entry<String, Long> e : r.responses().entrySet()) {
            checks.add(new Check("responses, " + e.getKey(), String.format(Locale.ROOT, "%,d", e.getValue()), "> 0",
                    e.getValue() > 0));
        }
        if (r.after() != null) {
            int grown = r.after().fds() - r.before().fds();
            checks.add(new Check("open fds after the load minus before it", String.format(Locale.ROOT, "%+d", grown),
                    "<= " + limits.fdSlackAfterLoad(), grown <= limits.fdSlackAfterLoad()));
        }
        for (BadPeers.Kind k : new BadPeers.Kind[] {BadPeers.Kind.STALLED_HANDSHAKE, BadPeers.Kind.GARBAGE}) {
            BadPeers.Counts c = r.badPeers().get(k);
            checks.add(new Check(k.label + " peers the gateway did not close", c.heldToTheEnd() + c.failed() + " of "
                    + c.started(), "0", c.heldToTheEnd() + c.failed() == 0 && c.started() > 0));
        }
        return checks;
    }

    private static void growth(List<Check> checks, String name, String unit, List<SoakSample> m,
                               ToDoubleFunction<SoakSample> figure, double limit, Limits limits) {
        int n = m.size();
        double value = limits.perHour() ? slopePerHour(m, figure)
                : Math.min(figure.applyAsDouble(m.get(n - 1)), figure.applyAsDouble(m.get(Math.max(0, n - 2))))
                - Math.min(figure.applyAsDouble(m.get(0)), figure.applyAsDouble(m.get(Math.min(1, n - 1))));
        String u = unit.isEmpty() ? "" : " " + unit;
        String label = name + (limits.perHour() ? ", slope after the warm-up"
                : ", lower of the last two samples minus lower of the first two after the warm-up");
        String shown = String.format(Locale.ROOT, "%+.1f%s%s", value, u, limits.perHour() ? "/h" : "");
        if (Double.isNaN(limit)) {
            checks.add(new Check(label, shown, "(reported only)", true));
        } else {
            checks.add(new Check(label, shown, String.format(Locale.ROOT, "<= %.0f%s%s", limit, u,
                    limits.perHour() ? "/h" : ""), value <= limit));
        }
    }

    /** The slope of the least-squares line through the samples, per hour. */
    static double slopePerHour(List<SoakSample> samples, ToDoubleFunction<SoakSample> figure) {
        int n = samples.size();
        double sx = 0;
        double sy = 0;
        for (SoakSample s : samples) {
            sx += s.seconds();
            sy += figure.applyAsDouble(s);
        }
        double mx = sx / n;
        double my = sy / n;
        double num = 0;
        double den = 0;
        for (SoakSample s : samples) {
            double dx = s.seconds() - mx;
            num += dx * (figure.applyAsDouble(s) - my);
            den += dx * dx;
        }
        return den == 0 ? 0 : num / den * 3600;
    }

    static boolean passed(List<Check> checks) {
        for (Check c : checks) {
            if (!c.passed()) {
                return false;
            }
        }
        return true;
    }
}
