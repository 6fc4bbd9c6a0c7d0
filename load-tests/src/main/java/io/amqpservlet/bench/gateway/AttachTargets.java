package io.amqpservlet.bench.gateway;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What attach mode must cost, against what the same machine does without it, each with a verdict from one run:
 * <ol>
 *   <li>attach throughput at least the responder row's through the same broker (same generator);</li>
 *   <li>the attached gateway's CPU per request at most 1.5× the listener gateway's on its own AMQP port, both at
 *       saturation;</li>
 *   <li>the broker's CPU per request with a gateway as its consumer at most 1.1× with the responder;</li>
 *   <li>at half the attach row's saturation rate (open loop), attach p99 at most 2× the listener's at that rate;</li>
 *   <li>no errors in the attach runs.</li>
 * </ol>
 * A ratio is taken round by round (round i of one row against round i of the other) and its verdict stands only
 * when every round agrees ({@link Verdict#NOT_TRUSTED} otherwise); the error count is summed over every attach run.
 * At the fixed rate, a round in which either row served under 95% of the rate is left out, as the gateway suite's
 * report leaves such a target out ({@link SuiteReport#notComparable}): that row was overloaded there.
 */
final class AttachTargets {
    static final double THROUGHPUT_AT_LEAST = 1.0;
    static final double GATEWAY_CPU_AT_MOST = 1.5;
    static final double BROKER_CPU_AT_MOST = 1.1;
    static final double P99_AT_MOST = 2.0;

    private AttachTargets() {
    }

    /** A target's verdict. */
    enum Verdict {
        MET("met"), NOT_MET("not met"), NOT_TRUSTED("not trusted"), NOT_MEASURED("not measured");

        private final String label;

        Verdict(String label) {
            this.label = label;
        }

        String label() {
            return label;
        }
    }

    /**
     * One target: the figure in each round (a quotient, or for the error target a count), the limit and which side
     * of it passes.
     *
     * @param key    short name, the JSON key
     * @param what   what is compared, for the table
     * @param values the figure per round (NaN: that round lacks it)
     * @param limit  the limit
     * @param atMost true when the figure must be at most the limit, false when at least
     * @param count  true for a count summed over the rounds (errors) rather than a per-round quotient
     */
    record Target(String key, String what, double[] values, double limit, boolean atMost, boolean count) {
        /** Rounds whose figure meets the limit, of the rounds that have one. */
        int roundsMeeting() {
            int met = 0;
            for (double v : values) {
                if (!Double.isNaN(v) && (atMost ? v <= limit : v >= limit)) {
                    met++;
                }
            }
            return met;
        }

        int roundsMeasured() {
            int n = 0;
            for (double v : values) {
                if (!Double.isNaN(v)) {
                    n++;
                }
            }
            return n;
        }

        /** The error count over every round, for a count target. */
        double total() {
            double sum = 0;
            for (double v : values) {
                sum += Double.isNaN(v) ? 0 : v;
            }
            return sum;
        }

        Verdict verdict() {
            int measured = roundsMeasured();
            if (measured == 0) {
                return Verdict.NOT_MEASURED;
            }
            if (count) {
                return (atMost ? total() <= limit : total() >= limit) ? Verdict.MET : Verdict.NOT_MET;
            }
            int met = roundsMeeting();
            return met == measured ? Verdict.MET : met == 0 ? Verdict.NOT_MET : Verdict.NOT_TRUSTED;
        }

        /** "0.31× (0.29–0.33)" for a quotient (median, lowest–highest round), the total for a count. */
        String value() {
            if (roundsMeasured() == 0) {
                return "–";
            }
            if (count) {
                return String.format(Locale.ROOT, "%,.0f", total());
            }
            return SuiteReport.quotient(values);
        }

        /** "≥ 1.0×", "≤ 1.5×", "0". */
        String limitText() {
            if (count) {
                return String.format(Locale.ROOT, "%s %,.0f", atMost ? "≤" : "≥", limit);
            }
            return String.format(Locale.ROOT, "%s %.1f×", atMost ? "≤" : "≥", limit);
        }

        /** "not trusted (2 of 3 rounds meet it)", else the verdict's label. */
        String verdictText() {
            Verdict v = verdict();
            return v == Verdict.NOT_TRUSTED ? v.label() + " (" + roundsMeeting() + " of " + roundsMeasured()
                    + " rounds meet it)" : v.label();
        }
    }

    /**
     * The targets of one broker's rows: the five of the goal, then targets 2 and 3 again at one rate, against the listener's AMQP saturation rounds ({@code listener}; null:
     * target 2 is not measured).
     */
    static List<Target> of(RoundSet listener, BrokeredRows.Result r) {
        RoundSet responder = r.at("", "saturation");
        RoundSet attach = r.at("attach", "saturation");
        RoundSet responderBroker = r.at("", "saturation");
        RoundSet attachBroker = r.at("attach-broker", "saturation");
        RoundSet attachAtRate = r.at("attach", BrokeredRows.RATE_LOAD);
        RoundSet listenerAtRate = r.at("listener", BrokeredRows.RATE_LOAD);
        List<Target> targets = new ArrayList<>();
        targets.add(new Target("throughput", "attach throughput ÷ the responder's, at saturation",
                quotients(attach, responder, RoundSet::rps), THROUGHPUT_AT_LEAST, false, false));
        targets.add(new Target("gatewayCpu", "the attached gateway's CPU per request ÷ the listener's (AMQP), at "
                + "saturation", quotients(attach, listener, RoundSet::cpu), GATEWAY_CPU_AT_MOST, true, false));
        targets.add(new Target("brokerCpu", "the broker's CPU per request, gateway as consumer ÷ responder as "
                + "consumer, at saturation", quotients(attachBroker, responderBroker, RoundSet::cpu),
                BROKER_CPU_AT_MOST, true, false));
        String rate = attachAtRate == null ? "" : String.format(Locale.ROOT, " (%,.0f req/s)",
                attachAtRate.targetRate());
        RoundSet responderBrokerAtRate = r.at("", BrokeredRows.RATE_LOAD);
        RoundSet attachBrokerAtRate = r.at("attach-broker", BrokeredRows.RATE_LOAD);
        String gatewaysCarried = leftOut(attachAtRate, listenerAtRate);
        String brokersCarried = leftOut(attachBrokerAtRate, responderBrokerAtRate);
        targets.add(new Target("p99", "attach p99 ÷ the listener's p99, at " + BrokeredRows.RATE_PERCENT
                + "% of attach saturation" + rate + gatewaysCarried, quotientsAtRate(attachAtRate, listenerAtRate,
                RoundSet::p99), P99_AT_MOST, true, false));
        targets.add(new Target("errors", "errors in the attach runs", errors(attach, attachAtRate), 0, true, true));
        // CPU per request falls as throughput rises (more messages per wake-up, per read, per write), so the two
        // ratios above also carry the difference in throughput, which target 1 measures. The same two at one rate
        // compare the cost of a request alone.
        targets.add(new Target("gatewayCpuAtRate", "the attached gateway's CPU per request ÷ the listener's (AMQP), "
                + "both at " + BrokeredRows.RATE_PERCENT + "% of attach saturation" + rate + gatewaysCarried,
                quotientsAtRate(attachAtRate, listenerAtRate, RoundSet::cpu), GATEWAY_CPU_AT_MOST, true, false));
        targets.add(new Target("brokerCpuAtRate", "the broker's CPU per request, gateway as consumer ÷ responder as "
                + "consumer, both at " + BrokeredRows.RATE_PERCENT + "% of attach saturation" + rate + brokersCarried,
                quotientsAtRate(attachBrokerAtRate, responderBrokerAtRate, RoundSet::cpu), BROKER_CPU_AT_MOST, true,
                false));
        return targets;
    }

    private static double[] quotients(RoundSet a, RoundSet b, java.util.function.ToDoubleFunction<Run> figure) {
        if (a == null || b == null) {
            return new double[0];
        }
        return RoundSet.quotients(a.each(figure), b.each(figure));
    }

    /** Whether round {@code i} of {@code row} served under 95% of its fixed rate. */
    private static boolean fellShort(RoundSet row, int i) {
        return row.targetRate() > 0 && RoundSet.rps(row.rounds().get(i)) < SuiteReport.CARRIED * row.targetRate();
    }

    /** Round by round at the fixed rate, as {@link #quotients}, with NaN for a round either row fell short in. */
    private static double[] quotientsAtRate(RoundSet a, RoundSet b, java.util.function.ToDoubleFunction<Run> figure) {
        double[] q = quotients(a, b, figure);
        for (int i = 0; i < q.length; i++) {
            if (fellShort(a, i) || fellShort(b, i)) {
                q[i] = Double.NaN;
            }
        }
        return q;
    }

    /** " (round 2 left out: ...)" for the rounds {@link #quotientsAtRate} leaves out, else "". */
    private static String leftOut(RoundSet a, RoundSet b) {
        if (a == null || b == null) {
            return "";
        }
        StringBuilder rounds = new StringBuilder();
        int n = Math.min(a.rounds().size(), b.rounds().size());
        for (int i = 0; i < n; i++) {
            if (fellShort(a, i) || fellShort(b, i)) {
                rounds.append(rounds.length() == 0 ? "" : ", ").append(i + 1);
            }
        }
        return rounds.length() == 0 ? "" : " (left out, a row served under 95% of the rate: round " + rounds + ")";
    }

    private static double[] errors(RoundSet... sets) {
        List<Double> counts = new ArrayList<>();
        for (RoundSet s : sets) {
            if (s != null) {
                for (Run run : s.rounds()) {
                    counts.add((double) run.client().errorCount());
                }
            }
        }
        double[] v = new double[counts.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = counts.get(i);
        }
        return v;
    }
}
