package io.amqpservlet.bench.gateway;

import io.amqpservlet.bench.ReportJson;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The attach-mode targets and their verdicts, on the Artemis figures of a real {@code bench attach} run (2-core
 * machine, attach mode before its tuning): four targets not met or not trusted and the error target met; then the
 * same rows with an error, with attach mode at the cost the targets ask for, and with a row missing.
 */
class AttachTargetsTest {
    private static Run run(String row, String load, double rate, double rps, double cpu, double p99Micros,
                           long errors) {
        Map<String, Double> latency = new LinkedHashMap<>();
        for (String k : ClientFigures.KEYS) {
            latency.put(k, k.equals("p99") ? p99Micros : k.equals("p50") ? p99Micros / 4 : p99Micros * 2);
        }
        ClientFigures c = new ClientFigures(Math.round(rps * 8), 8, latency,
                errors == 0 ? Map.of() : Map.of("timeout", errors), Map.of());
        return new Run(row, load, rate, c, new ServerSample.ServerFigures(cpu, Double.NaN, -1, -1));
    }

    /** Rounds of one row: {rps, cpu, p99 µs, errors} per round. */
    private static RoundSet rows(String row, String load, double rate, double[]... rounds) {
        List<Run> runs = new ArrayList<>();
        for (double[] r : rounds) {
            runs.add(run(row, load, rate, r[0], r[1], r[2], (long) r[3]));
        }
        return new RoundSet(row, load, rate, runs);
    }

    private static final String RATE = BrokeredRows.RATE_LOAD;

    /**
     * The Artemis rows of a full {@code bench attach --broker both} run (three rounds each, as attach.json has them),
     * with {@code attachErrors} errors in the first attach round.
     */
    private static Map<String, List<RoundSet>> measured(double attachErrors) {
        Map<String, List<RoundSet>> m = new LinkedHashMap<>();
        m.put("artemis", List.of(
                rows("artemis", "saturation", 0, new double[] {41_056.5, 37.11, 5_886.0, 0},
                        new double[] {69_925.4, 19.61, 3_379.2, 0}, new double[] {58_536.0, 20.33, 3_215.4, 0}),
                rows("artemis", RATE, 12_979.4, new double[] {12_986.0, 87.92, 20_758.5, 0},
                        new double[] {12_981.0, 90.13, 2_474.0, 0}, new double[] {12_978.7, 91.95, 2_006.0, 0})));
        m.put("artemis-responder", List.of(
                rows("artemis-responder", "saturation", 0, new double[] {41_056.5, 2.13, 5_886.0, 0},
                        new double[] {69_925.4, 1.63, 3_379.2, 0}, new double[] {58_536.0, 1.94, 3_215.4, 0})));
        m.put("artemis-attach", List.of(
                rows("artemis-attach", "saturation", 0, new double[] {18_850.0, 49.93, 10_494.0, attachErrors},
                        new double[] {35_739.1, 18.36, 4_137.0, 0}, new double[] {25_958.9, 24.03, 7_122.9, 0}),
                rows("artemis-attach", RATE, 12_979.4, new double[] {12_977.5, 36.86, 41_222.1, 0},
                        new double[] {12_979.5, 33.00, 7_462.9, 0}, new double[] {12_981.0, 34.92, 6_070.3, 0})));
        m.put("artemis-attach-broker", List.of(
                rows("artemis-attach-broker", "saturation", 0, new double[] {18_850.0, 41.71, 10_494.0, 0},
                        new double[] {35_739.1, 28.44, 4_137.0, 0}, new double[] {25_958.9, 34.19, 7_122.9, 0}),
                rows("artemis-attach-broker", RATE, 12_979.4, new double[] {12_977.5, 72.56, 41_222.1, 0},
                        new double[] {12_979.5, 71.52, 7_462.9, 0}, new double[] {12_981.0, 77.55, 6_070.3, 0})));
        m.put("artemis-listener", List.of(
                rows("artemis-listener", RATE, 12_979.4, new double[] {12_981.0, 64.32, 7_897.1, 0},
                        new double[] {12_979.2, 56.89, 2_199.6, 0}, new double[] {12_979.5, 57.27, 1_188.9, 0})));
        return m;
    }

    /** The listener gateway's AMQP rounds at saturation in the same run. */
    private static final RoundSet LISTENER = rows("amqp", "saturation", 0, new double[] {55_229.6, 23.88, 6_160.4, 0},
            new double[] {71_399.6, 19.71, 3_700.7, 0}, new double[] {84_365.3, 16.18, 3_123.2, 0});

    private static Map<String, AttachTargets.Target> byKey(List<AttachTargets.Target> targets) {
        Map<String, AttachTargets.Target> m = new LinkedHashMap<>();
        for (AttachTargets.Target t : targets) {
            m.put(t.key(), t);
        }
        return m;
    }

    @Test
    void aRunOfTheAttachModeBeforeItsWorkMeetsOnlyTheErrorTargetAndTheCostsAtOneRate() {
        BrokeredRows.Result r = new BrokeredRows.Result("artemis", "Artemis 2.55.0", measured(0), Map.of());
        Map<String, AttachTargets.Target> t = byKey(AttachTargets.of(LISTENER, r));
        assertEquals(List.of("throughput", "gatewayCpu", "brokerCpu", "p99", "errors", "gatewayCpuAtRate",
                "brokerCpuAtRate"), List.copyOf(t.keySet()));

        // 18,850 / 41,056, 35,739 / 69,925, 25,959 / 58,536: round by round.
        assertEquals(AttachTargets.Verdict.NOT_MET, t.get("throughput").verdict());
        assertEquals("0.46× (0.44–0.51)", t.get("throughput").value());
        assertEquals("≥ 1.0×", t.get("throughput").limitText());

        // The gateway's CPU per request against its own listener's: 2.09, 0.93, 1.49, so the rounds disagree.
        AttachTargets.Target gatewayCpu = t.get("gatewayCpu");
        assertEquals(49.93 / 23.88, gatewayCpu.values()[0], 1e-9);
        assertEquals(AttachTargets.Verdict.NOT_TRUSTED, gatewayCpu.verdict());
        assertEquals("not trusted (2 of 3 rounds meet it)", gatewayCpu.verdictText());

        // The broker with the gateway against the broker with the responder (not the responder's own CPU).
        assertEquals(41.71 / 37.11, t.get("brokerCpu").values()[0], 1e-9);
        assertEquals(AttachTargets.Verdict.NOT_MET, t.get("brokerCpu").verdict());

        // p99 at the 50% rate against the listener's at that rate: 5.22, 3.39, 5.11.
        AttachTargets.Target p99 = t.get("p99");
        assertEquals(AttachTargets.Verdict.NOT_MET, p99.verdict());
        assertEquals("5.11× (3.39–5.22)", p99.value());
        assertTrue(p99.what().contains("(12,979 req/s)"), p99.what());

        assertEquals(AttachTargets.Verdict.MET, t.get("errors").verdict());
        assertEquals("0", t.get("errors").value());

        // At one rate the same run's ratios: the broker 72.56 / 87.92, 71.52 / 90.13, 77.55 / 91.95; the gateway
        // 36.86 / 64.32, 33.00 / 56.89, 34.92 / 57.27.
        assertEquals(AttachTargets.Verdict.MET, t.get("brokerCpuAtRate").verdict());
        assertEquals(72.56 / 87.92, t.get("brokerCpuAtRate").values()[0], 1e-9);
        assertEquals(AttachTargets.Verdict.MET, t.get("gatewayCpuAtRate").verdict());
        assertEquals(36.86 / 64.32, t.get("gatewayCpuAtRate").values()[0], 1e-9);
    }

    @Test
    void anErrorInAnyAttachRunFailsTheErrorTargetWhateverTheOtherRounds() {
        BrokeredRows.Result r = new BrokeredRows.Result("artemis", "Artemis 2.55.0", measured(3), Map.of());
        AttachTargets.Target errors = byKey(AttachTargets.of(LISTENER, r)).get("errors");
        assertEquals(AttachTargets.Verdict.NOT_MET, errors.verdict());
        assertEquals("3", errors.value());
        assertEquals(6, errors.roundsMeasured(), "three saturation rounds and three at the fixed rate");
    }

    @Test
    void attachModeAtTheListenersCostMeetsEveryTarget() {
        Map<String, List<RoundSet>> m = measured(0);
        // What the work aims at: attach as fast as the responder, the gateway at 1.2x its listener's CPU, the broker
        // at 1.05x its CPU with the responder, p99 at 1.5x the listener's.
        m.put("artemis-attach", List.of(
                rows("artemis-attach", "saturation", 0, new double[] {41_100, 28.7, 5_900, 0},
                        new double[] {70_000, 23.6, 3_400, 0}, new double[] {58_600, 19.4, 3_300, 0}),
                rows("artemis-attach", RATE, 12_979.4, new double[] {12_980, 60.0, 11_800, 0},
                        new double[] {12_979, 58.0, 3_300, 0}, new double[] {12_980, 59.0, 1_780, 0})));
        m.put("artemis-attach-broker", List.of(rows("artemis-attach-broker", "saturation", 0,
                new double[] {41_100, 38.9, 5_900, 0}, new double[] {70_000, 20.6, 3_400, 0},
                new double[] {58_600, 21.3, 3_300, 0}), rows("artemis-attach-broker", RATE, 12_979.4,
                new double[] {12_980, 80.0, 11_800, 0}, new double[] {12_979, 82.0, 3_300, 0},
                new double[] {12_980, 85.0, 1_780, 0})));
        BrokeredRows.Result r = new BrokeredRows.Result("artemis", "Artemis 2.55.0", m, Map.of());
        for (AttachTargets.Target t : AttachTargets.of(LISTENER, r)) {
            assertEquals(AttachTargets.Verdict.MET, t.verdict(), t.key() + ": " + t.value());
        }
    }

    @Test
    void aRoundInWhichARowCouldNotCarryTheFixedRateIsLeftOut() {
        Map<String, List<RoundSet>> m = measured(0);
        // The listener's second round served 11,000 of 12,979 req/s: overloaded, its p99 and CPU are not that rate's.
        m.put("artemis-listener", List.of(rows("artemis-listener", RATE, 12_979.4,
                new double[] {12_981.0, 64.32, 7_897.1, 0}, new double[] {11_000.0, 56.89, 2_199.6, 0},
                new double[] {12_979.5, 57.27, 1_188.9, 0})));
        BrokeredRows.Result r = new BrokeredRows.Result("artemis", "Artemis 2.55.0", m, Map.of());
        Map<String, AttachTargets.Target> t = byKey(AttachTargets.of(LISTENER, r));
        for (String key : new String[] {"p99", "gatewayCpuAtRate"}) {
            assertEquals(2, t.get(key).roundsMeasured(), key);
            assertTrue(Double.isNaN(t.get(key).values()[1]), key);
            assertTrue(t.get(key).what().endsWith("(left out, a row served under 95% of the rate: round 2)"),
                    t.get(key).what());
        }
        // The brokers' rows carried the rate in every round.
        assertEquals(3, t.get("brokerCpuAtRate").roundsMeasured());
        assertTrue(!t.get("brokerCpuAtRate").what().contains("left out"), t.get("brokerCpuAtRate").what());
    }

    @Test
    void aMissingRowIsNotMeasuredRatherThanMet() {
        Map<String, List<RoundSet>> m = measured(0);
        m.remove("artemis-listener");
        BrokeredRows.Result r = new BrokeredRows.Result("artemis", "Artemis 2.55.0", m, Map.of());
        Map<String, AttachTargets.Target> t = byKey(AttachTargets.of(null, r));
        assertEquals(AttachTargets.Verdict.NOT_MEASURED, t.get("gatewayCpu").verdict());
        assertEquals(AttachTargets.Verdict.NOT_MEASURED, t.get("p99").verdict());
        assertEquals("–", t.get("p99").value());
        assertEquals(AttachTargets.Verdict.NOT_MET, t.get("throughput").verdict());
    }

    @Test
    void theReportTabulatesEachBrokersTargetsAndWritesThemAsJson() {
        BrokeredRows.Result artemis = new BrokeredRows.Result("artemis", "Artemis 2.55.0", measured(0), Map.of());
        Map<String, List<RoundSet>> amqp = new LinkedHashMap<>();
        amqp.put("amqp", List.of(LISTENER));
        SuiteReport report = new SuiteReport(amqp, Map.of("amqp", "ours"), "test", List.of(artemis), false);
        String md = report.markdown();
        assertTrue(md.contains("| artemis | 1. attach throughput ÷ the responder's, at saturation | 0.46× (0.44–0.51) "
                + "| ≥ 1.0× | **not met** |"), md);
        assertTrue(md.contains("| artemis | 5. errors in the attach runs | 0 | ≤ 0 | **met** |"), md);
        assertTrue(md.contains("| artemis | attach (gateway) | saturation | 25,959 ±33% | 24.0 ±66% | 34.2 ±19% | – |"),
                md);
        assertTrue(md.contains("| artemis | responder | saturation | 58,536 ±25% | – | 20.3 ±43% | 1.9 ±13% |"), md);
        assertTrue(!md.contains("over floor"), "bench attach has no floor: " + md);
        @SuppressWarnings("unchecked")
        Map<String, Object> json = (Map<String, Object>) ReportJson.parse(report.json());
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> targets = (List<Map<String, Object>>) ((Map<String, Object>) json.get(
                "attachTargets")).get("artemis");
        assertEquals("throughput", targets.get(0).get("key"));
        assertEquals("not met", targets.get(0).get("verdict"));
        assertEquals(3, ((List<?>) targets.get(0).get("rounds")).size());
        assertTrue(json.containsKey("artemis-attach-broker"), json.keySet().toString());
    }
}
