package io.amqpservlet.bench.scaleout;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Whether the runs of one broker scale: the aggregate throughput must grow at least {@value #LINEARITY_FLOOR} times
 * linearly with the gateways (X(N) ≥ 0.9 × N × X(1)) in every run whose broker has not saturated its quota, a
 * process being saturated when it used at least {@value #SATURATED} of its quota over the measured phase. The
 * 1-gateway run must be gateway-bound (else it measures the generator or the broker, and so does the model), and
 * no run may have errors. Each row also carries the model's prediction and its error.
 */
final class ScaleOutVerdict {
    /** The least share of linear growth that counts as scaling. */
    static final double LINEARITY_FLOOR = 0.9;
    /** The share of its quota at which a process counts as saturated. */
    static final double SATURATED = 0.9;

    /**
     * One run with what it is measured against.
     *
     * @param linearity  X(N) / (N × X(1))
     * @param predicted  the model's X(N)
     * @param modelError measured / predicted − 1
     */
    record Row(ScaleOutRun run, double linearity, double predicted, double modelError) {
        boolean brokerSaturated() {
            return run.brokerCpu().quotaShare() >= SATURATED;
        }
    }

    /** One check: a figure against its limit. */
    record Check(String name, String figure, String limit, boolean passed) {
    }

    private final ScaleOutModel model;
    private final List<Row> rows;
    private final List<Check> checks;
    private final int brokerSaturatesAt;

    private ScaleOutVerdict(ScaleOutModel model, List<Row> rows, List<Check> checks, int brokerSaturatesAt) {
        this.model = model;
        this.rows = rows;
        this.checks = checks;
        this.brokerSaturatesAt = brokerSaturatesAt;
    }

    /** The verdict on one broker's runs, in ascending gateway counts, the first with one gateway. */
    static ScaleOutVerdict of(List<ScaleOutRun> runs) {
        if (runs.isEmpty() || runs.get(0).gateways() != 1) {
            throw new IllegalArgumentException("the runs must start with the 1-gateway run");
        }
        ScaleOutRun base = runs.get(0);
        ScaleOutModel model = ScaleOutModel.of(base);
        double one = base.requestsPerSecond();
        List<Row> rows = new ArrayList<>();
        int saturatesAt = 0;
        for (ScaleOutRun r : runs) {
            double predicted = model.predict(r.gateways());
            Row row = new Row(r, r.requestsPerSecond() / (r.gateways() * one), predicted,
                    r.requestsPerSecond() / predicted - 1);
            rows.add(row);
            if (saturatesAt == 0 && row.brokerSaturated()) {
                saturatesAt = r.gateways();
            }
        }
        List<Check> checks = new ArrayList<>();
        double gatewayShare = base.gatewayCpu().get(0).quotaShare();
        double brokerShare = base.brokerCpu().quotaShare();
        checks.add(new Check("1 gateway: the gateway is the bottleneck (its CPU / its quota; the broker's)",
                String.format(Locale.ROOT, "%.0f%%; broker %.0f%%", gatewayShare * 100, brokerShare * 100),
                String.format(Locale.ROOT, ">= %.0f%%; broker < %.0f%%", SATURATED * 100, SATURATED * 100),
                gatewayShare >= SATURATED && brokerShare < SATURATED));
        for (Row row : rows) {
            ScaleOutRun r = row.run();
            if (r.gateways() == 1) {
                continue;
            }
            String name = r.gateways() + " gateways: X(N) / (N × X(1))";
            if (saturatesAt != 0 && r.gateways() >= saturatesAt) {
                checks.add(new Check(name + ", not required: the broker is saturated",
                        String.format(Locale.ROOT, "%.2f (broker %.0f%% of its quota)", row.linearity(),
                                r.brokerCpu().quotaShare() * 100), "none", true));
            } else {
                checks.add(new Check(name, String.format(Locale.ROOT, "%.2f", row.linearity()),
                        String.format(Locale.ROOT, ">= %.2f", LINEARITY_FLOOR), row.linearity() >= LINEARITY_FLOOR));
            }
        }
        long errors = 0;
        for (ScaleOutRun r : runs) {
            errors += r.errorCount();
        }
        checks.add(new Check("errors (timeouts, refusals), all runs", Long.toString(errors), "0", errors == 0));
        return new ScaleOutVerdict(model, List.copyOf(rows), List.copyOf(checks), saturatesAt);
    }

    ScaleOutModel model() {
        return model;
    }

    List<Row> rows() {
        return rows;
    }

    List<Check> checks() {
        return checks;
    }

    /** The least gateway count whose run saturated the broker's quota; 0 when none did. */
    int brokerSaturatesAt() {
        return brokerSaturatesAt;
    }

    boolean passed() {
        for (Check c : checks) {
            if (!c.passed()) {
                return false;
            }
        }
        return true;
    }
}
