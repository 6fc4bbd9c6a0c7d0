package io.amqpservlet.bench.gateway;

import io.amqpservlet.bench.load.MeasuredPhase;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code load-tests/bench gateway}: one gateway process ({@code --stats}) serves the demo {@code /echo} servlet over
 * AMQP, HTTP/1.1 and h2c; each protocol is loaded in turn at saturation, then at 25, 50 and 75% of the AMQP maximum,
 * with the same 100-byte POST body and the same number of requests in flight. Server CPU comes from
 * {@code /proc/<pid>/stat}, allocation and GC from the gateway's counters, latency from the clients. Then the
 * brokered baseline: the same generator through an embedded Artemis broker and a responder. Writes
 * {@code gateway.json}, {@code gateway.md} and the plots into the output directory.
 */
public final class GatewaySuite {
    private static final String[] PROTOCOLS = {"amqp", "http1", "http2"};
    private static final int[] RATE_PERCENTS = {25, 50, 75};

    private Path jar = Path.of("container-integration/gateway/target/amqp-servlet-gateway.jar");
    private Path out = Path.of("load-tests/target/bench");
    private int connections = 16;
    private int window = 4;
    private int bodyBytes = 100;
    private int threads = 2;
    private double warmupSeconds = 10;
    private double saturationSeconds = 20;
    private double rateSeconds = 10;
    private boolean artemis = true;
    private boolean profile;
    private List<String> gatewayJvm = List.of("-Xms512m", "-Xmx512m");
    private final PrintStream log = System.err;

    private GatewaySuite() {
    }

    /** Runs the suite; options as in {@code load-tests/bench gateway}. */
    public static void main(String[] args) throws Exception {
        GatewaySuite s = new GatewaySuite();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> {
                    s.warmupSeconds = 5; // each protocol: 5 s, then 1.7 s before its measurement
                    s.saturationSeconds = 4;
                    s.rateSeconds = 3;
                }
                case "--no-artemis" -> s.artemis = false;
                case "--profile" -> s.profile = true;
                case "--jar" -> s.jar = Path.of(args[++i]);
                case "--out" -> s.out = Path.of(args[++i]);
                case "--connections" -> s.connections = Integer.parseInt(args[++i]);
                case "--window" -> s.window = Integer.parseInt(args[++i]);
                case "--threads" -> s.threads = Integer.parseInt(args[++i]);
                case "--duration" -> s.saturationSeconds = Double.parseDouble(args[++i]);
                case "--warmup" -> s.warmupSeconds = Double.parseDouble(args[++i]);
                case "--gateway-jvm" -> s.gatewayJvm = List.of(args[++i].trim().split("\\s+"));
                default -> {
                    System.err.println("bench gateway: unknown option " + args[i]);
                    System.exit(2);
                }
            }
        }
        s.run();
    }

    private void run() throws Exception {
        Files.createDirectories(out);
        Path work = out.resolve("gateway-work");
        Map<String, List<Run>> runs = new LinkedHashMap<>();
        Map<String, String> clients = new LinkedHashMap<>();
        List<String> profiles = new ArrayList<>();
        try (GatewayProcess gw = new GatewayProcess(jar, work, gatewayJvm)) {
            log.println("bench gateway: gateway pid " + gw.pid() + ", amqp=" + gw.amqpPort + " http=" + gw.httpPort);
            Map<String, LoadClient> byProtocol = new LinkedHashMap<>();
            byProtocol.put("amqp", new AmqpLoadClient("amqp://127.0.0.1:" + gw.amqpPort + "/echo", threads,
                    connections, window, bodyBytes));
            byProtocol.put("http1", new WrkClient("http://127.0.0.1:" + gw.httpPort + "/echo", threads,
                    connections * window, bodyBytes, work));
            byProtocol.put("http2", new H2loadClient("http://127.0.0.1:" + gw.httpPort + "/echo", threads,
                    connections, window, bodyBytes, work));
            // Warm every path first: the gateway's JIT compiles the servlet and Jetty code all protocols share
            // during the first run, which would otherwise make whichever protocol runs first look slow.
            for (String p : PROTOCOLS) {
                clients.put(p, byProtocol.get(p).describe());
                runs.put(p, new ArrayList<>());
                log.printf(Locale.ROOT, "bench gateway: %s warm-up %.0f s%n", p, warmupSeconds);
                byProtocol.get(p).run(0, warmupSeconds);
            }
            for (String p : PROTOCOLS) {
                // A short second warm-up right before the measurement: this protocol's connections and buffers.
                byProtocol.get(p).run(0, Math.max(1, warmupSeconds / 3));
                Run r = measure(p, "saturation", 0, byProtocol.get(p), gw, saturationSeconds,
                        profile ? work.resolve(p + ".jfr") : null, profiles);
                runs.get(p).add(r);
            }
            double amqpMax = runs.get("amqp").get(0).client().requestsPerSecond();
            for (int pct : RATE_PERCENTS) {
                double rate = amqpMax * pct / 100.0;
                for (String p : PROTOCOLS) {
                    runs.get(p).add(measure(p, pct + "%", rate, byProtocol.get(p), gw, rateSeconds, null, profiles));
                }
            }
        }
        if (artemis) {
            try (BrokerProcess broker = new BrokerProcess(work)) {
                LoadClient c = new AmqpLoadClient("amqp://127.0.0.1:" + broker.port + BrokerProcess.QUEUE,
                        threads, connections, window, bodyBytes);
                clients.put("artemis", c.describe() + ", through Artemis " + BrokerProcess.VERSION
                        + " and a responder (" + BrokerProcess.RESPONDER + ")");
                log.printf(Locale.ROOT, "bench gateway: artemis warm-up %.0f s%n", warmupSeconds);
                c.run(0, warmupSeconds);
                ServerSample[] samples = new ServerSample[2];
                ClientFigures f = c.run(0, saturationSeconds, new MeasuredPhase() {
                    @Override
                    public void begin() throws Exception {
                        samples[0] = ServerSample.cpuOnly(broker.pid());
                    }

                    @Override
                    public void end() throws Exception {
                        samples[1] = ServerSample.cpuOnly(broker.pid());
                    }
                });
                ServerSample.ServerFigures server = samples[1].since(samples[0], f.responses());
                runs.put("artemis", List.of(new Run("artemis", "saturation", 0, f, server)));
                log.printf(Locale.ROOT, "bench gateway: artemis %,.0f req/s%n", f.requestsPerSecond());
            }
        }
        if (artemis) {
            attachRow(runs, clients);
        }
        SuiteReport report = new SuiteReport(runs, clients, connections, window, bodyBytes);
        Files.writeString(out.resolve("gateway.json"), report.json());
        String md = report.markdown();
        Files.writeString(out.resolve("gateway.md"), md);
        SuiteCharts.write(runs, out);
        System.out.println(md);
        for (String p : profiles) {
            System.out.println(p);
        }
    }

    /**
     * Attach mode: the same generator into an Artemis queue named {@code /echo}, consumed by a gateway in attach mode
     * ({@code --attach}), which answers through the broker. Two rows: the gateway's CPU and heap per request, and
     * the broker's CPU per request, both over the same measured phase.
     */
    private void attachRow(Map<String, List<Run>> runs, Map<String, String> clients) throws Exception {
        Path work = out.resolve("attach-work");
        try (BrokerProcess broker = new BrokerProcess(work, List.of("--queue", "/echo", "--no-responder"));
             GatewayProcess gw = new GatewayProcess(jar, work, gatewayJvm,
                     List.of("--attach", "amqp://127.0.0.1:" + broker.port + "//echo"))) {
            LoadClient c = new AmqpLoadClient("amqp://127.0.0.1:" + broker.port + "/echo", threads, connections,
                    window, bodyBytes);
            clients.put("attach", c.describe() + ", through Artemis " + BrokerProcess.VERSION
                    + " to a gateway in attach mode (default credit)");
            log.printf(Locale.ROOT, "bench gateway: attach warm-up %.0f s%n", warmupSeconds);
            c.run(0, warmupSeconds);
            ServerSample[] gateway = new ServerSample[2];
            ServerSample[] brokerCpu = new ServerSample[2];
            ClientFigures f = c.run(0, saturationSeconds, new MeasuredPhase() {
                @Override
                public void begin() throws Exception {
                    gateway[0] = ServerSample.take(gw.pid(), gw.statsUrl());
                    brokerCpu[0] = ServerSample.cpuOnly(broker.pid());
                }

                @Override
                public void end() throws Exception {
                    gateway[1] = ServerSample.take(gw.pid(), gw.statsUrl());
                    brokerCpu[1] = ServerSample.cpuOnly(broker.pid());
                }
            });
            runs.put("attach", List.of(new Run("attach", "saturation", 0, f,
                    gateway[1].since(gateway[0], f.responses()))));
            runs.put("attach-broker", List.of(new Run("attach-broker", "saturation", 0, f,
                    brokerCpu[1].since(brokerCpu[0], f.responses()))));
            clients.put("attach-broker", "the broker's process during the attach run (CPU only)");
            log.printf(Locale.ROOT, "bench gateway: attach %,.0f req/s%n", f.requestsPerSecond());
        }
    }

    /**
     * One measured run: the server's counters are taken (and with {@code jfr} a recording made) exactly around the
     * client's measured phase.
     */
    private Run measure(String protocol, String load, double rate, LoadClient client, GatewayProcess gw,
                        double seconds, Path jfr, List<String> profiles) throws Exception {
        ServerSample[] samples = new ServerSample[2];
        JfrProfile[] recording = new JfrProfile[1];
        MeasuredPhase phase = new MeasuredPhase() {
            @Override
            public void begin() throws Exception {
                if (jfr != null) {
                    recording[0] = JfrProfile.start(gw.pid(), jfr);
                }
                samples[0] = ServerSample.take(gw.pid(), gw.statsUrl());
            }

            @Override
            public void end() throws Exception {
                samples[1] = ServerSample.take(gw.pid(), gw.statsUrl());
                if (recording[0] != null) {
                    recording[0].stop();
                }
            }
        };
        ClientFigures f = client.run(rate, seconds, phase);
        Run r = new Run(protocol, load, rate, f, samples[1].since(samples[0], f.responses()));
        if (recording[0] != null) {
            profiles.add(recording[0].report(f.responses(), out.resolve("profile-" + protocol + ".txt")));
        }
        log.printf(Locale.ROOT, "bench gateway: %-5s %-10s %,9.0f req/s  cpu %6.1f us/req  %8.0f B/req  p99 %.3f ms"
                        + "  errors %d%n", protocol, load, f.requestsPerSecond(), r.server().cpuMicrosPerRequest(),
                r.server().bytesPerRequest(), f.latencyMicros().get("p99") / 1000, f.errorCount());
        return r;
    }
}
