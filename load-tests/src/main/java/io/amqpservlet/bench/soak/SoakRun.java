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
                     settings.gatewayJvm(), List.of("--attach", "amqp://" + HOST + ":" + broker.port + "/echo"))) {
            awaitAttached(gateway);
            log.printf(Locale.ROOT, "soak: gateway pid %d (amqp %d, http %d), Artemis %s on %d%n", gateway.pid(),
                    gateway.amqpPort, gateway.httpPort, BrokerProcess.VERSION, broker.port);
            double saturation = Double.NaN;
            double total = settings.totalRate();
            if (total <= 0) {
                saturation = saturation(gateway.amqpPort);
                total = saturation / 2;
                log.printf(Locale.ROOT, "soak: saturation %,.0f req/s (AMQP, our generator, closed loop); running at "
                        + "half: %,.0f req/s%n", saturation, total);
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

    /** The gateway's AMQP maximum: our generator, closed loop, 16 connections x 4 in flight, 100-byte POSTs. */
    private double saturation(int amqpPort) throws Exception {
        LoadOptions o = new LoadOptions().endpoint("amqp://" + HOST + ":" + amqpPort + "/echo").clients(2)
                .connections(8).window(4).body(SoakSettings.BODY_BYTES).warmupMillis(5_000).durationMillis(10_000)
                .progress(false);
        LoadResult r = new LoadRun(o, null).run();
        if (r.errorCount() > 0) {
            throw new IOException("errors while measuring saturation: " + r.errors());
        }
        return r.requestsPerSecond();
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
