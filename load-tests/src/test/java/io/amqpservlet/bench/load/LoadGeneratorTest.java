package io.amqpservlet.bench.load;

import io.amqpservlet.gateway.Gateway;
import io.amqpservlet.gateway.GatewayOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The load generator against a real gateway on an ephemeral port, a few seconds per run. */
@Timeout(120)
class LoadGeneratorTest {
    private static Gateway gateway;

    @BeforeAll
    static void startGateway() throws Exception {
        gateway = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "0", "--http-port", "0",
            "--servlet", "/count=" + CountingEchoServlet.class.getName(),
            "--servlet", "/slow=io.amqpservlet.gateway.demo.SlowServlet",
            "--servlet", "/status/*=io.amqpservlet.gateway.demo.StatusServlet"}));
        gateway.start();
    }

    @AfterAll
    static void stopGateway() throws Exception {
        if (gateway != null) {
            gateway.stop();
        }
    }

    private static LoadOptions options(String path) throws LoadOptions.UsageException {
        return new LoadOptions().endpoint("amqp://127.0.0.1:" + gateway.amqpPort() + path).progress(false);
    }

    @Test
    void closedLoopCountsEveryResponseTheServletServed() throws Exception {
        LoadOptions o = options("/count").clients(2).connections(2).window(4).warmupMillis(0).durationMillis(2_000);
        long before = CountingEchoServlet.SERVED.get();
        LoadResult r = new LoadRun(o, null).run();
        long served = CountingEchoServlet.SERVED.get() - before;

        assertTrue(r.requestsPerSecond() > 0, r.describe());
        assertEquals(0, r.errorCount(), () -> "errors: " + r.errors());
        assertTrue(r.seconds() >= 1.9 && r.seconds() < 3, "measured " + r.seconds() + " s");
        // Every response recorded is one the servlet served; the servlet also served the requests still in
        // flight when the run ended (at most the 16 of the windows) and those answered after the last interval.
        assertTrue(r.responses() <= served, r.responses() + " recorded, " + served + " served");
        assertTrue(served - r.responses() <= 16 + r.requestsPerSecond() * 0.5,
                r.responses() + " recorded, " + served + " served");
        assertTrue(r.percentileMicros(50) <= r.percentileMicros(99) && r.percentileMicros(99) <= r.maxMicros());
    }

    @Test
    void generatorThreadsAllocateAlmostNothingPerRequest() throws Exception {
        assertAllocatesAlmostNothing(options("/count").clients(1).connections(2).window(8));
    }

    @Test
    void httpGeneratorThreadsAllocateAlmostNothingPerRequest() throws Exception {
        // Several requests per wake-up, as for AMQP above: with one request per connection in flight each response
        // is a wake-up of its own, and the wake-up path (selector, socket read) allocates about 16 bytes whatever
        // the protocol (AMQP at window 1 measured 16.4 B per request, HTTP/1.1 and h2c the same).
        assertAllocatesAlmostNothing(http("/count").clients(1).connections(1).window(8));
        assertAllocatesAlmostNothing(new LoadOptions().endpoint("h2c://127.0.0.1:" + gateway.httpPort() + "/count")
                .progress(false).clients(1).connections(2).window(8));
    }

    private static void assertAllocatesAlmostNothing(LoadOptions options) throws Exception {
        LoadOptions o = options.warmupMillis(1_000).durationMillis(3_000);
        // The run says when its measured phase begins and ends (every connection ready, the warm-up over): the
        // figures are taken at exactly those points, so connection setup and the warm-up are never in them.
        AllocationWindow measured = new AllocationWindow();
        LoadResult r = new LoadRun(o, null).run(measured);
        assertEquals(0, r.errorCount(), () -> "errors: " + r.errors());
        assertTrue(measured.served > 100, "served " + measured.served);
        // The selector's key set and the JDK's socket paths may allocate a little now and then; per request it
        // must stay far below one message's size (the request alone is about 200 bytes).
        assertTrue(measured.bytes / (double) measured.served < 16, measured.bytes + " bytes for " + measured.served
                + " requests to " + o.endpoints.get(0));
    }

    /**
     * What the generator thread {@code load-client-0} allocated and how many requests the servlet served over a
     * run's measured phase. Its methods run on the thread running the load, which reads the figures after the run.
     */
    private static final class AllocationWindow implements MeasuredPhase {
        private final com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean)
                java.lang.management.ManagementFactory.getThreadMXBean();
        private long client;
        private long bytes;
        private long served;

        @Override
        public void begin() {
            client = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("load-client-0")).findFirst().orElseThrow().getId();
            bytes = mx.getThreadAllocatedBytes(client);
            served = CountingEchoServlet.SERVED.get();
        }

        @Override
        public void end() {
            bytes = mx.getThreadAllocatedBytes(client) - bytes;
            served = CountingEchoServlet.SERVED.get() - served;
        }
    }

    @Test
    void resultFilesAgreeWithTheHistogram() throws Exception {
        LoadResult r = new LoadRun(options("/count").warmupMillis(200).durationMillis(1_000), null).run();
        Path dir = Files.createTempDirectory("load");
        Path hgrm = dir.resolve("run.hgrm");
        r.writeHgrm(hgrm);
        List<String> lines = Files.readAllLines(hgrm);
        String total = lines.stream().filter(l -> l.startsWith("#[Max")).findFirst().orElseThrow();
        assertTrue(total.contains("Total count    = " + String.format("%12d", r.responses())), total);
        assertTrue(r.toJson().contains("\"responses\":" + r.responses() + ","), r.toJson());
        assertTrue(r.toJson().contains("\"errors\":0,"), r.toJson());
    }

    @Test
    void openLoopCountsLatencyFromTheScheduledSendTime() throws Exception {
        // One request in flight, a servlet that takes 50 ms, requests due every 10 ms: the generator falls
        // further behind its schedule with every request. Measured from the scheduled time (no coordinated
        // omission) the latency grows with the backlog; closed loop sees only the servlet's 50 ms.
        LoadOptions closed = options("/slow?ms=50").window(1).warmupMillis(0).durationMillis(2_000);
        LoadResult c = new LoadRun(closed, null).run();
        LoadOptions open = options("/slow?ms=50").window(1).warmupMillis(0).durationMillis(2_000).rate(100);
        LoadResult o = new LoadRun(open, null).run();

        assertEquals(0, c.errorCount(), () -> "errors: " + c.errors());
        assertEquals(0, o.errorCount(), () -> "errors: " + o.errors());
        assertTrue(c.percentileMicros(50) >= 50_000, "the servlet sleeps 50 ms: " + c.percentileMicros(50));
        assertTrue(o.requestsPerSecond() < 25, "one in flight at >= 50 ms each: " + o.requestsPerSecond());
        // The k-th response comes at about k x 50 ms but was due at k x 10 ms: after 2 s the backlog is about
        // 1.6 s. Allow for a slow machine (which only makes it larger) and a late start.
        assertTrue(o.maxMicros() > 1_000_000, "max " + o.maxMicros() + " us");
        assertTrue(o.percentileMicros(50) > 4 * c.percentileMicros(50),
                "open-loop median " + o.percentileMicros(50) + " us vs closed-loop " + c.percentileMicros(50));
    }

    private static LoadOptions http(String path) throws LoadOptions.UsageException {
        return new LoadOptions().endpoint("http://127.0.0.1:" + gateway.httpPort() + path).progress(false);
    }

    @Test
    void http1ClosedLoopAndPipelinedCountEveryResponseTheServletServed() throws Exception {
        for (int window : new int[] {1, 8}) {
            LoadOptions o = http("/count").clients(2).connections(2).window(window).warmupMillis(0)
                    .durationMillis(1_500);
            long before = CountingEchoServlet.SERVED.get();
            LoadResult r = new LoadRun(o, null).run();
            long served = CountingEchoServlet.SERVED.get() - before;
            assertTrue(r.responses() > 0, r.describe());
            assertEquals(0, r.errorCount(), () -> "window " + window + " errors: " + r.errors());
            assertTrue(r.responses() <= served, r.responses() + " recorded, " + served + " served");
            assertTrue(served - r.responses() <= 4 * window + r.requestsPerSecond() * 0.5,
                    r.responses() + " recorded, " + served + " served");
        }
    }

    @Test
    void h2cClosedLoopCountsEveryResponseTheServletServed() throws Exception {
        LoadOptions o = new LoadOptions().endpoint("h2c://127.0.0.1:" + gateway.httpPort() + "/count").progress(false)
                .clients(2).connections(2).window(4).warmupMillis(0).durationMillis(1_500);
        long before = CountingEchoServlet.SERVED.get();
        LoadResult r = new LoadRun(o, null).run();
        long served = CountingEchoServlet.SERVED.get() - before;
        assertTrue(r.responses() > 0, r.describe());
        assertEquals(0, r.errorCount(), () -> "errors: " + r.errors());
        assertTrue(r.responses() <= served, r.responses() + " recorded, " + served + " served");
        assertTrue(served - r.responses() <= 16 + r.requestsPerSecond() * 0.5,
                r.responses() + " recorded, " + served + " served");
    }

    @Test
    void h2cOpenLoopAndErrorStatuses() throws Exception {
        LoadResult o = new LoadRun(new LoadOptions().endpoint("h2c://127.0.0.1:" + gateway.httpPort()
                + "/slow?ms=50").progress(false).window(1).warmupMillis(0).durationMillis(2_000).rate(100), null).run();
        assertEquals(0, o.errorCount(), () -> "errors: " + o.errors());
        assertTrue(o.maxMicros() > 1_000_000, "one stream at >= 50 ms, due every 10 ms: max " + o.maxMicros());
        LoadResult e = new LoadRun(new LoadOptions().endpoint("h2c://127.0.0.1:" + gateway.httpPort()
                + "/status/503").progress(false).method("GET").body(0).warmupMillis(0).durationMillis(500), null).run();
        assertTrue(e.responses() > 0);
        assertEquals(e.responses(), e.errorCount(), () -> "errors: " + e.errors());
    }

    @Test
    void http1OpenLoopCountsLatencyFromTheScheduledSendTime() throws Exception {
        // As for AMQP: one request in flight, 50 ms each, one due every 10 ms: the backlog counts.
        LoadOptions open = http("/slow?ms=50").window(1).warmupMillis(0).durationMillis(2_000).rate(100);
        LoadResult o = new LoadRun(open, null).run();
        assertEquals(0, o.errorCount(), () -> "errors: " + o.errors());
        assertTrue(o.requestsPerSecond() < 25, "one in flight at >= 50 ms each: " + o.requestsPerSecond());
        assertTrue(o.maxMicros() > 1_000_000, "max " + o.maxMicros() + " us");
    }

    @Test
    void http1ErrorStatusesAreCountedByKind() throws Exception {
        LoadResult r = new LoadRun(http("/status/503").method("GET").body(0).warmupMillis(0)
                .durationMillis(500), null).run();
        assertTrue(r.responses() > 0);
        assertEquals(r.responses(), r.errors().get("status 503"), () -> "errors: " + r.errors());
        // Responses without a body whatever their headers: 204 (no Content-Length at all) and any answer to HEAD.
        for (String method : new String[] {"GET", "HEAD"}) {
            LoadResult none = new LoadRun(http(method.equals("GET") ? "/status/204" : "/count").method(method).body(0)
                    .warmupMillis(0).durationMillis(500), null).run();
            assertTrue(none.responses() > 0, method);
            assertEquals(0, none.errorCount(), () -> method + " errors: " + none.errors());
        }
    }

    @Test
    void errorStatusesAreCountedByKind() throws Exception {
        LoadResult r = new LoadRun(options("/status/503").method("GET").body(0).warmupMillis(0)
                .durationMillis(500), null).run();
        assertTrue(r.responses() > 0);
        assertEquals(r.responses(), r.errors().get("status 503"), () -> "errors: " + r.errors());
    }

    @Test
    void refusedConnectionFailsTheRunClearly() throws Exception {
        java.net.ServerSocket s = new java.net.ServerSocket(0);
        int port = s.getLocalPort();
        s.close();
        LoadOptions o = new LoadOptions().endpoint("amqp://127.0.0.1:" + port + "/x").progress(false);
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> new LoadRun(o, null).run());
        assertTrue(e.getMessage().contains("failed to connect"), e.getMessage());
    }

    @Test
    void scenariosSetTheTopologyAndLaterOptionsOverride() throws Exception {
        LoadOptions many = LoadOptions.parse(new String[] {"--scenario", "many", "amqp://h:1/p"});
        assertEquals(1_000, many.totalConnections());
        assertEquals(2, many.window);
        LoadOptions quad = LoadOptions.parse(new String[] {"--scenario", "quad", "--window", "8", "amqp://h/p"});
        assertEquals(4, quad.totalConnections(), "2 clients x 2 endpoints (the one given, used twice)");
        assertEquals(8, quad.window);
        assertEquals(5672, quad.endpoints.get(0).port());
        LoadOptions funnel = LoadOptions.parse(new String[] {"--scenario=funnel", "--rate", "500", "amqp://h:1/p"});
        assertEquals(2, funnel.totalConnections());
        assertEquals(500, funnel.ratePerSecond);
        assertThrows(LoadOptions.UsageException.class, () -> LoadOptions.parse(new String[] {"https://h/p"}));
        LoadOptions http = LoadOptions.parse(new String[] {"http://h/p"});
        assertEquals("http", http.endpoints.get(0).scheme());
        assertEquals(80, http.endpoints.get(0).port());
        assertThrows(LoadOptions.UsageException.class, () -> LoadOptions.parse(new String[] {"--scenario", "x"}));
    }
}
