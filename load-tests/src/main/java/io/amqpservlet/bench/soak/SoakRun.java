package io.amqpservlet.bench.soak;

import io.amqpservlet.bench.ReportJson;
import io.amqpservlet.bench.gateway.BrokerProcess;
import io.amqpservlet.bench.gateway.GatewayProcess;
import io.amqpservlet.bench.load.LoadOptions;
import io.amqpservlet.bench.load.LoadResult;
import io.amqpservlet.bench.load.LoadRun;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs one soak: an Artemis broker with a queue {@code echo}, one gateway process that listens (AMQP, HTTP/1.1) and
 * consumes that queue in attach mode, then every kind of client at once for the duration, sampling the gateway
 * process every interval. Before the load and after it (once every client has gone) the process is sampled too.
 */
final class SoakRun {
    private static final String HOST = "127.0.0.1";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final SoakSettings settings;
    private final PrintStream log;

    SoakRun(SoakSettings settings, PrintStream log) {
        this.settings = settings;
        this.log = log;
    }

    static byte[] body(int bytes) {
        byte[] b = new byte[bytes];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) ('a' + i % 26);
        }
        return b;
    }

    SoakResult run() throws Exception {
        try (BrokerProcess broker = new BrokerProcess(settings.workDir().resolve("broker"),
                List.of("--queue", "echo", "--no-responder"));
             GatewayProcess gateway = new GatewayProcess(settings.jar(), settings.workDir().resolve("gateway"),
                     gatewayJvm(settings.gatewayJvm()),
                     List.of("--attach", "amqp://" + HOST + ":" + broker.port + "/echo"))) {
            // Ctrl-C: the processes go with us.
            Thread cleanup = new Thread(() -> {
                try {
                    gateway.close();
                    broker.close();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "soak-cleanup");
            Runtime.getRuntime().addShutdownHook(cleanup);
            try {
                return run(gateway, broker);
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(cleanup);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is running
                }
            }
        }
    }

    private SoakResult run(GatewayProcess gateway, BrokerProcess broker) throws Exception {
        awaitAttached(gateway);
        log.printf(Locale.ROOT, "soak: gateway pid %d (amqp %d, http %d), Artemis %s on %d%n", gateway.pid(),
                gateway.amqpPort, gateway.httpPort, BrokerProcess.VERSION, broker.port);
        Saturation saturation = null;
        double total = settings.totalRate();
        if (total <= 0) {
            saturation = saturation(gateway.amqpPort, gateway.httpPort, broker.port);
            total = saturation.requestsPerSecond() / 2;
            log.printf(Locale.ROOT, "soak: saturation %,.0f req/s (%s; closed loop, all at once); running at "
                    + "half: %,.0f req/s%n", saturation.requestsPerSecond(), saturation.parts(), total);
        }
        ProcessSample before = ProcessSample.take(gateway.pid());
        List<SoakClient> clients = clients(gateway, broker.port, total);
        BadPeers bad = new BadPeers(HOST, gateway.amqpPort, gateway.httpPort, settings.badPeerPeriodMillis(),
                settings.badPeerHoldMillis());
        Map<String, String> describe = new LinkedHashMap<>();
        for (SoakClient c : clients) {
            describe.put(c.name(), c.describe());
        }
        describe.put("bad peers", bad.describe());
        Map<String, Map<String, Long>> errors = new LinkedHashMap<>();
        List<SoakSample> samples = new ArrayList<>();
        long start = System.nanoTime();
        for (SoakClient c : clients) {
            c.start();
            errors.put(c.name(), new TreeMap<>());
        }
        bad.start();
        try {
            long next = start;
            long previous = start;
            long end = start + settings.durationMillis() * 1_000_000L;
            while (next < end && gateway.isAlive()) {
                next = Math.min(end, next + settings.sampleMillis() * 1_000_000L);
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000);
                }
                List<KindStats.Interval> kinds = new ArrayList<>();
                for (SoakClient c : clients) {
                    KindStats.Interval i = c.stats().drain();
                    kinds.add(i);
                    for (Map.Entry<String, Long> e : i.errors().entrySet()) {
                        errors.get(c.name()).merge(e.getKey(), e.getValue(), Long::sum);
                    }
                }
                if (!gateway.isAlive()) {
                    break;
                }
                long now = System.nanoTime();
                SoakSample s = new SoakSample((now - start) / 1e9, (now - previous) / 1e9,
                        ProcessSample.take(gateway.pid()), kinds, bad.drainStarted());
                previous = now;
                samples.add(s);
                log.println(SoakReport.progressLine(s));
            }
        } finally {
            for (SoakClient c : clients) {
                c.stop();
            }
            bad.stop();
        }
        boolean alive = gateway.isAlive();
        ProcessSample after = null;
        if (alive) {
            // Every client has closed; give the gateway a moment to see the last connections end.
            Thread.sleep(3_000);
            after = ProcessSample.take(gateway.pid());
        }
        Map<String, Long> responses = new LinkedHashMap<>();
        for (SoakClient c : clients) {
            responses.put(c.name(), c.stats().totalResponses());
        }
        return new SoakResult(settings, saturation, total, describe, before, samples, after, alive, responses,
                errors, bad.counts());
    }

    /**
     * The gateway's JVM options, after one of the soak's own: every full collection compacts the whole heap. By
     * default G1's full collection leaves dead space in place in mostly live regions (up to
     * {@code MarkSweepDeadRatio}, 5% of the heap, which the class histogram counts as {@code int[]} fillers) and
     * compacts fully only every fourth time ({@code MarkSweepAlwaysCompactCount}), so the heap after the sampler's
     * collection would saw-tooth by up to that much. The sampler's are the only full collections the gateway runs
     * (its own are young and mixed), so this changes what is measured, not what is served.
     */
    static List<String> gatewayJvm(List<String> options) {
        List<String> jvm = new ArrayList<>();
        jvm.add("-XX:MarkSweepAlwaysCompactCount=1");
        jvm.addAll(options); // given later, an option of the user's wins
        return jvm;
    }

    /** Waits until the gateway reports its attachment attached (it connects to the broker after it starts). */
    private static void awaitAttached(GatewayProcess gateway) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        String last = "";
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(gateway.statsUrl()))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            last = r.body();
            Object stats = ReportJson.parse(last);
            if (stats instanceof Map<?, ?> m && m.get("attachments") instanceof List<?> list && !list.isEmpty()
                    && list.get(0) instanceof Map<?, ?> a && Boolean.TRUE.equals(a.get("attached"))) {
                return;
            }
            Thread.sleep(200);
        }
        throw new IOException("the gateway did not attach to the broker within 30 s: " + last);
    }

    /**
     * The saturation of the soak's main mix: our generator over AMQP (16 connections x 4 in flight), HTTP/1.1 (16 x
     * 1) and AMQP through the broker (4 x 4), all three at once in closed loop, 100-byte POSTs, 5 s of warm-up and
     * 10 s measured; the sum of their throughputs. Measured with the clients, the broker and the gateway on the same
     * CPUs as the soak itself, so half of it leaves room for the soak's other clients.
     */
    private Saturation saturation(int amqpPort, int httpPort, int brokerPort) throws Exception {
        String[] urls = {"amqp://" + HOST + ":" + amqpPort + "/echo", "http://" + HOST + ":" + httpPort + "/echo",
                "amqp://" + HOST + ":" + brokerPort + "/echo"};
        int[][] shape = {{16, 4}, {16, 1}, {4, 4}};
        LoadResult[] results = new LoadResult[urls.length];
        Exception[] failures = new Exception[urls.length];
        Thread[] threads = new Thread[urls.length];
        for (int i = 0; i < urls.length; i++) {
            int k = i;
            threads[i] = new Thread(() -> {
                try {
                    LoadOptions o = new LoadOptions().endpoint(urls[k]).clients(1).connections(shape[k][0])
                            .window(shape[k][1]).body(SoakSettings.BODY_BYTES).warmupMillis(5_000)
                            .durationMillis(10_000).progress(false);
                    results[k] = new LoadRun(o, null).run();
                } catch (Exception e) {
                    failures[k] = e;
                }
            }, "soak-saturation-" + i);
            threads[i].start();
        }
        double sum = 0;
        StringBuilder parts = new StringBuilder();
        String[] names = {"AMQP", "HTTP/1.1", "through the broker"};
        for (int i = 0; i < urls.length; i++) {
            threads[i].join();
            if (failures[i] != null) {
                throw failures[i];
            }
            if (results[i].errorCount() > 0) {
                throw new IOException("errors while measuring saturation (" + names[i] + "): " + results[i].errors());
            }
            sum += results[i].requestsPerSecond();
            parts.append(String.format(Locale.ROOT, "%s%s %,.0f", i == 0 ? "" : ", ", names[i],
                    results[i].requestsPerSecond()));
        }
        return new Saturation(sum, parts.toString());
    }

    /** The mix's saturation, and its parts in words. */
    record Saturation(double requestsPerSecond, String parts) {
    }

    private List<SoakClient> clients(GatewayProcess gateway, int brokerPort, double total) {
        long segment = settings.segmentMillis();
        String echo = "amqp://" + HOST + ":" + gateway.amqpPort + "/echo";
        List<SoakClient> clients = new ArrayList<>();
        clients.add(new GeneratorSoakClient("amqp", echo, 16, 4, SoakSettings.BODY_BYTES,
                total * SoakSettings.AMQP_SHARE, segment));
        clients.add(new GeneratorSoakClient("http1", "http://" + HOST + ":" + gateway.httpPort + "/echo", 16, 1,
                SoakSettings.BODY_BYTES, total * SoakSettings.HTTP_SHARE, segment));
        clients.add(new GeneratorSoakClient("attach", "amqp://" + HOST + ":" + brokerPort + "/echo", 4, 4,
                SoakSettings.BODY_BYTES, total * SoakSettings.ATTACH_SHARE, segment));
        clients.add(new ProtonJ2SoakClient(HOST, gateway.amqpPort, 2,
                Math.max(10, total * SoakSettings.PROTONJ2_SHARE), SoakSettings.BODY_BYTES));
        clients.add(new GeneratorSoakClient("stream", echo, 2, 2, SoakSettings.STREAM_BODY_BYTES,
                settings.streamRate(), segment));
        clients.add(new ChurnSoakClient(HOST, gateway.amqpPort, settings.churnPerSecond(),
                SoakSettings.CHURN_REQUESTS, SoakSettings.BODY_BYTES));
        return clients;
    }
}
