package io.amqpservlet.bench.scaleout;

import io.amqpservlet.bench.ReportJson;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The model and the verdict on figures measured by {@code bench scaleout} on the 2-core development machine (20 s
 * measured per run, Artemis 2.55.0, gateways of 0.25 cores each): each run is rebuilt from its throughput and each
 * process's share of its quota, as the report prints them.
 */
class ScaleOutVerdictTest {
    private static final double SECONDS = 20;

    /** Broker 1.0 core: it never saturates, and the three gateways scale linearly. */
    private static final List<ScaleOutRun> BROKER_ONE_CORE = List.of(
            run(1.0, 1_702, 0.22, 0.99),
            run(1.0, 3_545, 0.32, 0.99, 0.99),
            run(1.0, 5_352, 0.39, 0.99, 0.99, 0.99));

    /** Broker 0.4 cores: saturated from 2 gateways on (93%, then 97% of its quota). */
    private static final List<ScaleOutRun> BROKER_FOUR_TENTHS = List.of(
            run(0.4, 1_309, 0.77, 0.99),
            run(0.4, 1_970, 0.93, 0.98, 0.98),
            run(0.4, 2_364, 0.97, 0.98, 0.99, 0.98));

    @Test
    void modelTakesEachRequestsCpuFromTheOneGatewayRun() {
        ScaleOutModel m = ScaleOutModel.of(BROKER_ONE_CORE.get(0));
        // c = CPU seconds / requests: 0.99 x 0.25 cores / 1,702 req/s, 0.22 x 1 core / 1,702 req/s
        assertEquals(145.4e-6, m.gatewaySecondsPerRequest(), 0.1e-6);
        assertEquals(129.3e-6, m.brokerSecondsPerRequest(), 0.1e-6);
        assertEquals(1_719, m.gatewaysLimit(1), 1);
        assertEquals(7_736, m.brokerLimit(), 1);
        assertEquals(3_438, m.predict(2), 1);
        assertEquals(5_157, m.predict(3), 1);
        assertFalse(m.brokerBound(3));
        assertEquals(5, m.brokerBoundFrom(), "4 x 1,719 < 7,736 <= 5 x 1,719");
        assertEquals(7_736, m.predict(6), 1);
        assertTrue(m.brokerBound(5));
    }

    @Test
    void gatewaysThatGrowLinearlyPass() {
        ScaleOutVerdict v = ScaleOutVerdict.of(BROKER_ONE_CORE);
        assertTrue(v.passed(), v.checks().toString());
        assertEquals(0, v.brokerSaturatesAt());
        assertEquals(1.041, v.rows().get(1).linearity(), 0.001);
        assertEquals(1.048, v.rows().get(2).linearity(), 0.001);
        // measured 5,352 against the model's 5,157
        assertEquals(0.038, v.rows().get(2).modelError(), 0.001);
    }

    @Test
    void aSaturatedBrokerExcusesTheRunsFromLinearity() {
        ScaleOutVerdict v = ScaleOutVerdict.of(BROKER_FOUR_TENTHS);
        assertEquals(2, v.brokerSaturatesAt());
        assertTrue(v.passed(), v.checks().toString());
        assertEquals(0.75, v.rows().get(1).linearity(), 0.01);
        assertTrue(v.checks().get(1).name().contains("not required"), v.checks().get(1).name());
        // The model's broker limit, 0.4 / (0.77 x 0.4 / 1,309) = 1,700 req/s; measured 2,364 with 3 gateways: the
        // broker's CPU per request fell as its load grew, which the model does not know.
        assertTrue(v.model().brokerBound(2));
        assertEquals(1_700, v.rows().get(2).predicted(), 1);
        assertEquals(0.39, v.rows().get(2).modelError(), 0.01);
    }

    @Test
    void sublinearGrowthBeforeTheBrokerSaturatesFails() {
        // Broker 1.0 core, the machine busy with other work: the second gateway added 61% of the first one's rate.
        ScaleOutVerdict v = ScaleOutVerdict.of(List.of(run(1.0, 1_389, 0.35, 0.99), run(1.0, 2_243, 0.59, 0.99,
                0.99)));
        assertFalse(v.passed());
        assertEquals(List.of("2 gateways: X(N) / (N × X(1))"), failed(v));
        assertEquals(0.81, v.rows().get(1).linearity(), 0.01);
    }

    @Test
    void aOneGatewayRunTheBrokerLimitsFails() {
        // Broker 0.15 cores: the lone gateway used 74% of its quota, the broker all of its own.
        ScaleOutVerdict v = ScaleOutVerdict.of(List.of(run(0.15, 404, 1.0, 0.74)));
        assertEquals(List.of("1 gateway: the gateway is the bottleneck (its CPU / its quota; the broker's)"),
                failed(v));
        assertEquals(1, v.brokerSaturatesAt());
    }

    @Test
    void errorsFail() {
        List<ScaleOutRun> runs = new ArrayList<>(BROKER_ONE_CORE);
        ScaleOutRun r = runs.get(2);
        runs.set(2, new ScaleOutRun(r.broker(), r.gateways(), r.seconds(), r.responses(), r.p50Micros(),
                r.p99Micros(), Map.of("timeout", 3L), r.brokerCpu(), r.gatewayCpu(), r.generatorCpu(),
                r.servedByGateway(), r.machineBusyCores()));
        assertEquals(List.of("errors (timeouts, refusals), all runs"), failed(ScaleOutVerdict.of(runs)));
    }

    @Test
    void theRunsMustStartWithOneGateway() {
        assertThrows(IllegalArgumentException.class, () -> ScaleOutVerdict.of(BROKER_ONE_CORE.subList(1, 3)));
    }

    @Test
    void readsBothVersionsOfCpuStat() {
        // As read on the development machine (v1) and as the kernel documents v2's cpu.stat.
        CpuReading v1 = CgroupVersion.V1.reading("nr_periods 8\nnr_throttled 3\nthrottled_time 144958863\n"
                + "nr_bursts 0\nburst_time 0\n", "131686632\n", 7);
        assertEquals(new CpuReading(131_686_632, 8, 3, 144_958_863, 7), v1);
        CpuReading v2 = CgroupVersion.V2.reading("usage_usec 131686\nuser_usec 120000\nsystem_usec 11686\n"
                + "nr_periods 8\nnr_throttled 3\nthrottled_usec 144958\n", "", 7);
        assertEquals(new CpuReading(131_686_000, 8, 3, 144_958_000, 7), v2);
        ProcessCpu p = v1.since(new CpuReading(31_686_632, 0, 0, 0, 0), "gateway-1", 0.25);
        assertEquals(0.1, p.cpuSeconds(), 1e-9);
        assertEquals(0.375, p.throttledShare(), 1e-9);
    }

    @Test
    void machineBusyTimeLeavesOutIdleAndIoWait() {
        assertEquals(100 + 2 + 30 + 5 + 6 + 1, MachineCpu.busyTicks("cpu  100 2 30 4000 50 5 6 1 0 0"));
    }

    @Test
    void reportHasARowPerRunTheModelAndTheVerdict() {
        String md = ScaleOutReport.table(BrokerKind.ARTEMIS, ScaleOutVerdict.of(BROKER_FOUR_TENTHS));
        assertTrue(md.contains("| 3 | 2,364 | 0.60 | 1,700 (broker) | +39% | 98, 99, 98 | 97 | 97 | 33%, 33%, 33% |"),
                md);
        assertTrue(md.contains("X(N) = min(N × 0.25 / c_g, 0.40 / c_b) = min(N × 1,322, 1,700) req/s, so the broker "
                + "limits from 2 gateways on."), md);
        assertTrue(md.contains("The broker saturates its quota at 2 gateways (93% of it)."), md);
        assertTrue(md.endsWith("Verdict: scales (every check passed).\n"), md);
    }

    @Test
    void writesTheTableTheJsonAndThePlot(@TempDir Path dir) throws IOException {
        Map<BrokerKind, ScaleOutVerdict> verdicts = new LinkedHashMap<>();
        verdicts.put(BrokerKind.ARTEMIS, ScaleOutVerdict.of(BROKER_ONE_CORE));
        String md = ScaleOutReport.write(ScaleOutSettings.DEFAULT, verdicts, dir);
        assertEquals(md, Files.readString(dir.resolve("scaleout.md")));
        @SuppressWarnings("unchecked")
        Map<String, Object> json = (Map<String, Object>) ReportJson.parse(Files.readString(dir.resolve("scaleout.json")));
        @SuppressWarnings("unchecked")
        Map<String, Object> artemis = (Map<String, Object>) ((List<Object>) json.get("brokers")).get(0);
        assertEquals(Boolean.TRUE, artemis.get("passed"));
        assertEquals(3, ((List<?>) artemis.get("runs")).size());
        assertTrue(Files.size(dir.resolve("scaleout.png")) > 10_000);
    }

    private static List<String> failed(ScaleOutVerdict v) {
        List<String> names = new ArrayList<>();
        for (ScaleOutVerdict.Check c : v.checks()) {
            if (!c.passed()) {
                names.add(c.name());
            }
        }
        return names;
    }

    /** A run rebuilt from its req/s and the shares of their quotas the broker and each gateway (0.25 cores) used. */
    private static ScaleOutRun run(double brokerCores, double requestsPerSecond, double brokerShare,
                                   double... gatewayShares) {
        long responses = Math.round(requestsPerSecond * SECONDS);
        List<ProcessCpu> gateways = new ArrayList<>();
        List<Long> served = new ArrayList<>();
        for (int i = 0; i < gatewayShares.length; i++) {
            gateways.add(cpu("gateway-" + (i + 1), 0.25, gatewayShares[i]));
            served.add(responses / gatewayShares.length);
        }
        return new ScaleOutRun(BrokerKind.ARTEMIS, gatewayShares.length, SECONDS, responses, 20_000, 300_000,
                Map.of(), cpu("broker", brokerCores, brokerShare), gateways, new ProcessCpu("generator", 0,
                0.07 * SECONDS, SECONDS, 0, 0), served, 1.2);
    }

    private static ProcessCpu cpu(String name, double quota, double share) {
        long periods = Math.round(SECONDS * 100);
        return new ProcessCpu(name, quota, share * quota * SECONDS, SECONDS, periods, Math.round(periods * share));
    }
}
