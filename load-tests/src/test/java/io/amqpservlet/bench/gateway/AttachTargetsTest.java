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
 * The attach-mode targets and their verdicts, on the figures of a real run (Artemis 2.55.0, 2-core machine, the
 * gateway before any attach-mode work): the throughput, gateway CPU and broker CPU targets not met, the latency target
 * met, then the same rows with rounds that disagree, with errors, and with a row missing.
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

    /** The figures of a measured run, three rounds each. */
    private static Map<String, List<RoundSet>> measured(double attachErrors) {
        Map<String, List<RoundSet>> m = new LinkedHashMap<>();
        m.put("artemis", List.of(
                rows("artemis", "saturation", 0, new double[] {31_421, 41.2, 6_627, 0},
                        new double[] {30_110, 42.9, 6_903, 0}, new double[] {32_007, 40.8, 6_410, 0}),
                rows("artemis", RATE, 4_864, new double[] {4_864, 80.1, 2_950, 0},
                        new double[] {4_863, 79.0, 3_010, 0}, new double[] {4_864, 83.5, 2_870, 0})));
        m.put("artemis-responder", List.of(
                rows("artemis-responder", "saturation", 0, new double[] {31_421, 12.7, 6_627, 0},
                        new double[] {30_110, 13.1, 6_903, 0}, new double[] {32_007, 12.5, 6_410, 0})));
        m.put("artemis-attach", List.of(
                rows("artemis-attach", "saturation", 0, new double[] {9_728, 83.4, 16_400, attachErrors},
                        new double[] {9_610, 86.0, 17_020, 0}, new double[] {9_905, 81.9, 15_880, 0}),
                rows("artemis-attach", RATE, 4_864, new double[] {4_864, 120.5, 11_000, 0},
                        new double[] {4_862, 118.0, 10_400, 0}, new double[] {4_865, 123.9, 11_800, 0})));
        m.put("artemis-attach-broker", List.of(
                rows("artemis-attach-broker", "saturation", 0, new double[] {9_728, 106.9, 16_400, 0},
                        new double[] {9_610, 104.2, 17_020, 0}, new double[] {9_905, 109.0, 15_880, 0})));
        m.put("artemis-listener", List.of(
                rows("artemis-listener", RATE, 4_864, new double[] {4_864, 60.2, 8_800, 0},
                        new double[] {4_864, 61.0, 9_100, 0}, new double[] {4_864, 58.7, 5_000, 0})));
        return m;
    }

    private static final RoundSet LISTENER = rows("amqp", "saturation", 0, new double[] {74_543, 18.2, 4_180, 0},
            new double[] {72_310, 18.7, 4_620, 0}, new double[] {76_020, 17.6, 3_990, 0});

    private static Map<String, AttachTargets.Target> byKey(List<AttachTargets.Target> targets) {
        Map<String, AttachTargets.Target> m = new LinkedHashMap<>();
        for (AttachTargets.Target t : targets) {
            m.put(t.key(), t);
        }
        return m;
    }

    @Test
    void aRunOfTodaysAttachModeMeetsOnlyTheLatencyAndErrorTargets() {
        BrokeredRows.Result r = new BrokeredRows.Result("artemis", "Artemis 2.55.0", measured(0), Map.of());
        Map<String, AttachTargets.Target> t = byKey(AttachTargets.of(LISTENER, r));
        assertEquals(List.of("throughput", "gatewayCpu", "brokerCpu", "p99", "errors"), List.copyOf(t.keySet()));

        assertEquals(AttachTargets.Verdict.NOT_MET, t.get("throughput").verdict());
        assertEquals("0.31× (0.31–0.32)", t.get("throughput").value(), "9,728 / 31,421 and its neighbours");
        assertEquals("≥ 1.0×", t.get("throughput").limitText());

        // 83.4 / 18.2 = 4.58: the gateway's CPU per request against its own listener's, round by round.
        assertEquals(AttachTargets.Verdict.NOT_MET, t.get("gatewayCpu").verdict());
        assertEquals(83.4 / 18.2, t.get("gatewayCpu").values()[0], 1e-9);

        // The broker's CPU with the gateway as consumer against the broker's with the responder (not the responder's).
        assertEquals(106.9 / 41.2, t.get("brokerCpu").values()[0], 1e-9);
        assertEquals(AttachTargets.Verdict.NOT_MET, t.get("brokerCpu").verdict());

        // p99 at the 50% rate: 11.0 / 8.8, 10.4 / 9.1, 11.8 / 5.0: the third round is over 2x.
        AttachTargets.Target p99 = t.get("p99");
        assertEquals(AttachTargets.Verdict.NOT_TRUSTED, p99.verdict());
        assertEquals("not trusted (2 of 3 rounds meet it)", p99.verdictText());
        assertTrue(p99.what().contains("(4,864 req/s)"), p99.what());

        assertEquals(AttachTargets.Verdict.MET, t.get("errors").verdict());
        assertEquals("0", t.get("errors").value());
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
        // Attach as fast as the responder, the gateway at 1.2x its listener's CPU, the broker at 1.05x.
        m.put("artemis-attach", List.of(
                rows("artemis-attach", "saturation", 0, new double[] {31_500, 21.8, 6_700, 0},
                        new double[] {30_200, 22.4, 6_950, 0}, new double[] {32_100, 21.1, 6_500, 0}),
                m.get("artemis-attach").get(1)));
        m.put("artemis-attach-broker", List.of(rows("artemis-attach-broker", "saturation", 0,
                new double[] {31_500, 43.0, 6_700, 0}, new double[] {30_200, 44.8, 6_950, 0},
                new double[] {32_100, 42.6, 6_500, 0})));
        m.put("artemis-listener", List.of(rows("artemis-listener", RATE, 4_864, new double[] {4_864, 60.2, 8_800, 0},
                new double[] {4_864, 61.0, 9_100, 0}, new double[] {4_864, 58.7, 6_000, 0})));
        BrokeredRows.Result r = new BrokeredRows.Result("artemis", "Artemis 2.55.0", m, Map.of());
        for (AttachTargets.Target t : AttachTargets.of(LISTENER, r)) {
            assertEquals(AttachTargets.Verdict.MET, t.verdict(), t.key() + ": " + t.value());
        }
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
        assertTrue(md.contains("| artemis | 1. attach throughput ÷ the responder's, at saturation | 0.31× (0.31–0.32) "
                + "| ≥ 1.0× | **not met** |"), md);
        assertTrue(md.contains("| artemis | 5. errors in the attach runs | 0 | ≤ 0 | **met** |"), md);
        assertTrue(md.contains("| artemis | attach (gateway) | saturation | 9,728 ±2% | 83.4 ±2% | 106.9 ±2% | – |"),
                md);
        assertTrue(md.contains("| artemis | responder | saturation | 31,421 ±3% | – | 41.2 ±3% | 12.7 ±2% |"), md);
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
