package io.amqpservlet.bench.engine;

import io.amqpservlet.bench.ReportJson;
import io.amqpservlet.bench.engine.EngineBenchmark.Measurement;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs every engine pairing of the benchmark for a few thousand messages, outside the timed loop, so that
 * {@code mvn verify} catches a pairing that does not really deliver (or settle) what it claims to.
 */
class EngineBenchmarkTest {
    /** Not a multiple of the credit batch, so the last batch is a partial one. */
    private static final int MESSAGES = 5_000;

    @Test
    void everyPairingDeliversEveryPresettledMessage() {
        for (Function<Workload, MessageFlow> pairing : EngineBenchmark.pairings()) {
            MessageFlow flow = pairing.apply(Workload.PRESETTLED);
            flow.transfer(MESSAGES);
            assertEquals(MESSAGES, flow.received(), flow.name());
            flow.transfer(MESSAGES);
            assertEquals(2 * MESSAGES, flow.received(), flow.name() + ", second run");
            assertEquals(0, flow.settledAtSender(), flow.name() + ": pre-settled messages get no disposition");
        }
    }

    @Test
    void everyPairingDeliversAndSettlesEveryUnsettledMessage() {
        for (Function<Workload, MessageFlow> pairing : EngineBenchmark.pairings()) {
            MessageFlow flow = pairing.apply(Workload.UNSETTLED);
            flow.transfer(MESSAGES);
            assertEquals(MESSAGES, flow.received(), flow.name());
            assertEquals(MESSAGES, flow.settledAtSender(), flow.name() + ": every message accepted and settled");
            flow.transfer(MESSAGES);
            assertEquals(2 * MESSAGES, flow.settledAtSender(), flow.name() + ", second run");
        }
    }

    @Test
    void pairingsAreOursThenBothPeers() {
        List<Function<Workload, MessageFlow>> pairings = EngineBenchmark.pairings();
        assertEquals(3, pairings.size());
        assertEquals("ours", pairings.get(0).apply(Workload.PRESETTLED).name());
        assertEquals("protonj2", pairings.get(1).apply(Workload.PRESETTLED).name());
        assertEquals("protonj", pairings.get(2).apply(Workload.PRESETTLED).name());
    }

    @Test
    void unsettledMessageIsOneDataSectionOf100Bytes() {
        byte[] m = Workload.UNSETTLED.message();
        assertEquals(100, m.length);
        // AMQP 1.0 §3.2.6: described (0x00), smallulong descriptor 0x75 (data), vbin8 with the remaining bytes.
        assertEquals(0x00, m[0]);
        assertEquals(0x53, m[1]);
        assertEquals(0x75, m[2]);
        assertEquals((byte) 0xa0, m[3]);
        assertEquals(95, m[4]);
        assertEquals(0, Workload.PRESETTLED.message().length);
    }

    @Test
    void meterReportsTheMedianIteration() {
        assertEquals(3.0, FlowMeter.median(new double[] {5, 1, 3}, 3));
        assertEquals(2.0, FlowMeter.median(new double[] {4, 1, 2, 0}, 3), "only the first n values count");
        assertEquals(2.5, FlowMeter.median(new double[] {1, 2, 3, 4}, 4));
    }

    @Test
    void jsonKeepsTheSeedWorkloadAtTheTopAndOthersUnderTheirKey() {
        List<List<Measurement>> results = List.of(
                List.of(new Measurement("ours", 3000, 6000, 0), new Measurement("protonj2", 300, 400, 120.5),
                        new Measurement("protonj", 200, 250, 400)),
                List.of(new Measurement("ours", 1000, 1200, 0.25), new Measurement("protonj2", 100, 100, 500),
                        new Measurement("protonj", 50, 80, 700)));
        Map<?, ?> json = (Map<?, ?>) ReportJson.parse(EngineReport.json(Workload.values(), results));
        assertEquals(3000.0, number(((Map<?, ?>) json.get("ours")).get("msgsPerSec")));
        assertEquals(120.5, number(((Map<?, ?>) json.get("protonj2")).get("bytesPerMsg")));
        assertEquals(200.0, number(((Map<?, ?>) json.get("protonj")).get("msgsPerSec")));
        Map<?, ?> unsettled = (Map<?, ?>) json.get("unsettled");
        assertEquals(0.25, number(((Map<?, ?>) unsettled.get("ours")).get("bytesPerMsg")));
        assertEquals(1200.0, number(((Map<?, ?>) unsettled.get("ours")).get("msgsPerCpuSec")));
        assertEquals(50.0, number(((Map<?, ?>) unsettled.get("protonj")).get("msgsPerSec")));

        String table = EngineReport.table(Workload.values(), results, "test");
        assertTrue(table.contains("10.0x"), table);
        assertTrue(table.contains("20.0x"), table);
        assertTrue(table.contains("15.0x"), table);
        assertTrue(table.contains("24.0x"), table); // 6000 / 250 msgs per CPU-second
        assertTrue(table.contains("12.0x"), table); // 1200 / 100
    }

    private static double number(Object o) {
        return ((Number) o).doubleValue();
    }
}
