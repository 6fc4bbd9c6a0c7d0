package io.amqpservlet.bench.gateway;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The parsers of wrk's and h2load's output, on output captured from the real tools (see the resources' README). */
class ToolOutputTest {
    private static String resource(String name) throws IOException {
        try (InputStream in = ToolOutputTest.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("missing test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void wrkSaturationRun() throws IOException {
        ClientFigures f = WrkOutput.parse(resource("wrk-saturation.txt"));
        assertEquals(4087, f.responses());
        assertEquals(3.089390, f.seconds(), 1e-9);
        assertEquals(4087 / 3.089390, f.requestsPerSecond(), 1e-6);
        assertEquals(10777, f.latencyMicros().get("p50"));
        assertEquals(325927, f.latencyMicros().get("p99"));
        assertEquals(368614, f.latencyMicros().get("max"));
        assertTrue(f.errors().isEmpty(), f.errors().toString());
        // wrk's own table says the same, in its units: "Requests/sec: 1322.91", "99%  325.93ms".
        assertEquals(1322.91, f.requestsPerSecond(), 0.01);
    }

    @Test
    void wrkPacedRun() throws IOException {
        ClientFigures f = WrkOutput.parse(resource("wrk-rate.txt"));
        assertEquals(3024, f.responses());
        assertEquals(992.45, f.requestsPerSecond(), 0.01, "1 request per 2 ms per thread, 2 threads");
        assertEquals(382, f.latencyMicros().get("p50"));
    }

    @Test
    void wrkErrorsAreReportedByKind() {
        String out = "bench-wrk requests=10 duration_us=1000000 bytes=0 connect=1 read=2 write=0 status=3 timeout=4\n"
                + "bench-wrk-latency p50 1\nbench-wrk-latency p90 1\nbench-wrk-latency p99 1\n"
                + "bench-wrk-latency p99.9 1\nbench-wrk-latency p99.99 1\nbench-wrk-latency max 1\n";
        ClientFigures f = WrkOutput.parse(out);
        assertEquals(10, f.errorCount());
        assertEquals(4, f.errors().get("timeout"));
        assertEquals(3, f.errors().get("status (non-2xx/3xx)"));
    }

    @Test
    void wrkWithoutTheScriptIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> WrkOutput.parse("Running 3s test @ http://x\n"
                + "Requests/sec:   1322.91\n"));
    }

    @Test
    void h2loadSaturationRunWithItsLog() throws IOException {
        String out = resource("h2load-saturation.txt");
        List<String> log = Arrays.asList(resource("h2load-saturation-log.tsv").split("\n"));
        ClientFigures f = H2loadOutput.parse(out, log, 3);
        assertEquals(6606, f.responses());
        assertEquals(2202.0, f.requestsPerSecond(), 0.01);
        assertEquals(2202.0, H2loadOutput.reportedRequestsPerSecond(out), 0.001);
        assertTrue(f.errors().isEmpty(), f.errors().toString());
        // The percentiles come from the log's third column, microseconds: check against a plain sort.
        long[] micros = log.stream().filter(l -> !l.isBlank()).mapToLong(l -> Long.parseLong(l.split("\t")[2]))
                .sorted().toArray();
        assertEquals(200, micros.length);
        assertEquals(micros[micros.length - 1], f.latencyMicros().get("max"), micros[micros.length - 1] * 0.001);
        assertEquals(micros[99], f.latencyMicros().get("p50"), micros[99] * 0.001 + 1);
        assertEquals(micros[197], f.latencyMicros().get("p99"), micros[197] * 0.001 + 1);
    }

    @Test
    void h2loadFixedRateRun() throws IOException {
        ClientFigures f = H2loadOutput.parse(resource("h2load-rate.txt"), List.of("1\t200\t3280"), 3);
        assertEquals(3016, f.responses());
        assertEquals(1005.33, H2loadOutput.reportedRequestsPerSecond(resource("h2load-rate.txt")), 0.001);
        assertEquals(3280, f.latencyMicros().get("p99"), 3.3);
    }

    @Test
    void h2loadFailuresAreCountedByKind() {
        String out = "finished in 1.00s, 10.00 req/s, 1KB/s\n"
                + "requests: 20 total, 20 started, 15 done, 10 succeeded, 10 failed, 3 errored, 2 timeout\n"
                + "status codes: 10 2xx, 0 3xx, 1 4xx, 4 5xx\n";
        ClientFigures f = H2loadOutput.parse(out, List.of("1\t200\t10"), 1);
        assertEquals(5, f.errors().get("failed"));
        assertEquals(3, f.errors().get("errored"));
        assertEquals(2, f.errors().get("timeout"));
        assertEquals(4, f.errors().get("status 5xx"));
        assertThrows(IllegalArgumentException.class, () -> H2loadOutput.parse(out, List.of(), 1));
    }

    @Test
    void procStatCpuTicksSkipTheCommandName() throws IOException {
        String stat = "4242 (java (a) b) S 1 4242 4242 0 -1 4194304 100 0 0 0 1234 567 0 0 20 0 30 0 99 0 0";
        assertEquals(1234 + 567, ServerSample.cpuTicks(stat));
        assertTrue(ServerSample.cpuTicks(Files.readString(Path.of("/proc/self/stat"))) > 0, "this JVM ran");
    }

    @Test
    void floorAnswer() {
        String json = "{\"responses\":3411,\"seconds\":0.2,\"threads\":1,\"targetRate\":0.0,"
                + "\"errors\":{\"status 405\":11},\"percentilesMicros\":{\"0.0\":15.871,\"50.0\":21.759,"
                + "\"75.0\":33.791,\"90.0\":62.975,\"95.0\":88.063,\"99.0\":868.351,\"99.5\":1769.471,"
                + "\"99.9\":3440.639,\"99.95\":4915.199,\"99.99\":5712.237,\"99.999\":5712.237},"
                + "\"maxMicros\":5712.237}";
        ClientFigures f = FloorClient.parse(json);
        assertEquals(3400, f.responses(), "injected minus failed");
        assertEquals(11, f.errorCount());
        assertEquals(17000, f.requestsPerSecond(), 1e-6);
        assertEquals(21.759, f.latencyMicros().get("p50"));
        assertEquals(868.351, f.latencyMicros().get("p99"));
        assertEquals(5712.237, f.latencyMicros().get("max"));
        assertEquals(11, f.latencyCurve().size());
        assertThrows(IllegalArgumentException.class, () -> FloorClient.parse("{\"responses\":1}"));
    }
}
