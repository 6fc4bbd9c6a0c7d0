package io.amqpservlet.bench.gateway;

import io.amqpservlet.bench.ReportJson;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Rounds, medians, spreads, the cost above the floor and the verdicts of the gateway report, on made-up runs. */
class SuiteReportTest {
    private static Run run(String protocol, String load, double rate, double rps, double cpu, double bytes,
                           double p99Micros) {
        Map<String, Double> latency = new LinkedHashMap<>();
        for (String k : ClientFigures.KEYS) {
            latency.put(k, k.equals("p99") ? p99Micros : k.equals("p50") ? p99Micros / 2 : p99Micros * 2);
        }
        ClientFigures c = new ClientFigures(Math.round(rps * 2), 2, latency, Map.of(), Map.of(50.0, p99Micros / 2));
        return new Run(protocol, load, rate, c, new ServerSample.ServerFigures(cpu, bytes, 1, 2));
    }

    private static RoundSet set(String protocol, String load, double rate, double[] rps, double[] cpu,
                                double[] bytes, double[] p99) {
        List<Run> rounds = new ArrayList<>();
        for (int i = 0; i < rps.length; i++) {
            rounds.add(run(protocol, load, rate, rps[i], cpu[i], bytes[i], p99[i]));
        }
        return new RoundSet(protocol, load, rate, rounds);
    }

    @Test
    void medianAndSpreadOfThreeRounds() {
        RoundSet s = set("amqp", "saturation", 0, new double[] {100, 120, 110}, new double[] {10, 12, 11},
                new double[] {3000, 3100, 2900}, new double[] {900, 1000, 1100});
        assertEquals(110, s.median(RoundSet::rps), 1e-9);
        assertEquals(11, s.median().server().cpuMicrosPerRequest(), 1e-9);
        assertEquals(110, s.median().client().requestsPerSecond(), 1e-9);
        assertEquals(1000, s.median().client().latencyMicros().get("p99"), 1e-9);
        assertEquals(100.0 / 11, s.spreadPercent(RoundSet::cpu), 1e-9, "(12 - 10) / 2 / 11");
    }

    @Test
    void overheadIsTakenRoundByRoundAgainstTheFloor() {
        RoundSet floor = set("floor", "saturation", 0, new double[] {500, 500, 500}, new double[] {5, 6, 4},
                new double[] {2000, 2000, 2000}, new double[] {10, 10, 10});
        RoundSet amqp = set("amqp", "saturation", 0, new double[] {100, 100, 100}, new double[] {7, 8, 6},
                new double[] {2500, 2600, 2400}, new double[] {1000, 1000, 1000});
        RoundSet http1 = set("http1", "saturation", 0, new double[] {90, 90, 90}, new double[] {9, 10, 8},
                new double[] {3000, 3000, 3000}, new double[] {900, 900, 900});
        double[] over = amqp.above(floor, RoundSet::cpu);
        assertEquals(2, over[0], 1e-9);
        assertEquals(2, over[1], 1e-9);
        assertEquals(2, over[2], 1e-9);
        double[] q = RoundSet.quotients(amqp.above(floor, RoundSet::cpu), http1.above(floor, RoundSet::cpu));
        assertEquals(0.5, RoundSet.median(q), 1e-9);
        assertEquals("0.50× (0.50–0.50)", SuiteReport.quotient(q));
    }

    @Test
    void aVerdictStandsOnlyWhenEveryRoundAgrees() {
        StringBuilder b = new StringBuilder();
        SuiteReport.check(b, "all", new double[] {0.4, 0.45, 0.3}, 0.5, true);
        SuiteReport.check(b, "none", new double[] {0.6, 0.7, 0.8}, 0.5, true);
        SuiteReport.check(b, "mixed", new double[] {0.4, 0.6, 0.45}, 0.5, true);
        SuiteReport.check(b, "at least", new double[] {1.6, 1.7, 1.5}, 1.5, false);
        String s = b.toString();
        assertTrue(s.contains("- all: 0.40× (0.30–0.45), **met**"), s);
        assertTrue(s.contains("- none: 0.70× (0.60–0.80), **not met**"), s);
        assertTrue(s.contains("- mixed: 0.45× (0.40–0.60), **not trusted** (2 of 3 rounds meet it)"), s);
        assertTrue(s.contains("- at least: 1.60× (1.50–1.70), **met**"), s);
    }

    @Test
    void aRowThatCannotCarryTheFixedRateGetsNoVerdictThere() {
        double[] cpu = {10, 10, 10};
        double[] bytes = {3000, 3000, 3000};
        double[] p99 = {1000, 1000, 1000};
        RoundSet amqp = set("amqp", "75%", 100_000, new double[] {100_100, 99_900, 100_000}, cpu, bytes, p99);
        RoundSet carried = set("http1", "75%", 100_000, new double[] {95_500, 96_000, 94_000}, cpu, bytes, p99);
        RoundSet overloaded = set("http1", "75%", 100_000, new double[] {61_700, 60_000, 63_000}, cpu, bytes, p99);
        StringBuilder b = new StringBuilder();
        assertTrue(!SuiteReport.notComparable(b, "carried", amqp, carried), b.toString());
        assertEquals("", b.toString());
        assertTrue(SuiteReport.notComparable(b, "overloaded", amqp, overloaded));
        assertEquals("- overloaded: **not comparable**: http1 served 61,700 of 100,000 req/s (under 95% of the rate, "
                + "its figures are an overload's)\n", b.toString());
    }

    @Test
    void jsonHasTheFloorBesideTheProtocolsWithTheSameFields() {
        Map<String, List<RoundSet>> runs = new LinkedHashMap<>();
        double[] three = {1, 1, 1};
        runs.put("floor", List.of(
                set("floor", "saturation", 0, new double[] {500, 510, 490}, new double[] {5, 5, 5},
                        new double[] {2000, 2000, 2000}, three),
                set("floor", "25%", 25, new double[] {25, 25, 25}, new double[] {9, 9, 9},
                        new double[] {2100, 2100, 2100}, three)));
        runs.put("amqp", List.of(
                set("amqp", "saturation", 0, new double[] {100, 100, 100}, new double[] {7, 7, 7},
                        new double[] {2500, 2500, 2500}, three),
                set("amqp", "25%", 25, new double[] {25, 25, 25}, new double[] {15, 15, 15},
                        new double[] {2600, 2600, 2600}, three)));
        // A brokered row: one round, no heap figure (NaN) and no floor.
        // Its machine row: 50,000 µs of busy CPU per request at 20 requests/s is one core.
        BrokeredRows.Result brokered = new BrokeredRows.Result("artemis", "Artemis", Map.of("artemis",
                List.of(set("artemis", "saturation", 0, new double[] {20}, new double[] {70},
                        new double[] {Double.NaN}, new double[] {2})), "artemis-machine",
                List.of(set("artemis-machine", "saturation", 0, new double[] {20}, new double[] {50_000},
                        new double[] {Double.NaN}, new double[] {2}))), Map.of("artemis", "through the broker"));
        SuiteReport report = new SuiteReport(runs, Map.of("floor", "in process", "amqp", "ours"), "test",
                List.of(brokered), true);
        @SuppressWarnings("unchecked")
        Map<String, Object> json = (Map<String, Object>) ReportJson.parse(report.json());
        @SuppressWarnings("unchecked")
        Map<String, Object> floor = (Map<String, Object>) json.get("floor");
        @SuppressWarnings("unchecked")
        Map<String, Object> amqp = (Map<String, Object>) json.get("amqp");
        for (String field : new String[] {"load", "requestsPerSec", "cpuMicrosPerRequest", "bytesPerRequest",
                "latencyMicros", "spread", "rounds", "rates"}) {
            assertTrue(floor.containsKey(field) && amqp.containsKey(field), field);
        }
        assertEquals(2.0, ((Number) amqp.get("cpuAboveFloorMicrosPerRequest")).doubleValue(), 1e-9);
        assertEquals(500L, ((Number) amqp.get("bytesAboveFloorPerRequest")).longValue());
        assertEquals(3, ((List<?>) amqp.get("rounds")).size());
        @SuppressWarnings("unchecked")
        Map<String, Object> rate = (Map<String, Object>) ((List<Object>) amqp.get("rates")).get(0);
        assertEquals(6.0, ((Number) rate.get("cpuAboveFloorMicrosPerRequest")).doubleValue(), 1e-9);
        String md = report.markdown();
        assertTrue(md.contains("| amqp | 100 ±0% | 7.0 ±0% | 2.0 | 2,500 ±0% | 500 |"), md);
        assertTrue(md.contains(
                "| artemis | responder | saturation | 20 | – | 70.0 | – | 1.00 | – | 0.001 | 0.002 | 0.004 | 0 |"), md);
        assertTrue(md.contains("- artemis: through the broker"), md);
        @SuppressWarnings("unchecked")
        Map<String, Object> artemis = (Map<String, Object>) json.get("artemis");
        assertEquals(java.util.Arrays.asList(null, null),
                ((Map<?, ?>) artemis.get("spread")).get("bytesPerRequest"));
        assertTrue(!artemis.containsKey("cpuAboveFloorMicrosPerRequest"));
    }
}
