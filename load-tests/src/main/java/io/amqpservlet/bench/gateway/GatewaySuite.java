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
 * {@code load-tests/bench gateway}: one gateway process ({@code --stats --bench-floor}) serves the demo {@code /echo}
 * servlet over AMQP, HTTP/1.1 and h2c, and runs the floor (the same requests injected through Jetty's
 * {@code HttpChannel} with no wire); each is measured at saturation, then at 25, 50 and 75% of the AMQP maximum,
 * with the same 100-byte POST body. Every load is measured in three alternating rounds (each round takes the protocols in turn, starting one
 * further along each time), so drift falls on all of them alike; the report gives medians and spreads. Server CPU
 * comes from {@code /proc/<pid>/stat}, allocation and GC from the gateway's counters, latency from the clients.
 * Then the brokered baselines: the same generator through an embedded Artemis broker and a responder, and through
 * Artemis to a gateway in attach mode. Writes {@code gateway.json}, {@code gateway.md} and the plots into the output
 * directory.
 */
public final class GatewaySuite {
    private static final String[] PROTOCOLS = {"floor", "amqp", "http1", "http2"};
    private static final int[] RATE_PERCENTS = {25, 50, 75};

    private Path jar = Path.of("container-integration/gateway/target/amqp-servlet-gateway.jar");
    private Path out = Path.of("load-tests/target/bench");
    private int connections = 16;
    private int window = 4;
    private int bodyBytes = 100;
    private int threads = 2;
    private int rounds = 3;
    private double warmupSeconds = 10;
    private double saturationSeconds = 10;
    private double rateSeconds = 6;
    private boolean artemis = true;
    private boolean tools = true;
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
                    s.warmupSeconds = 3;
                    s.saturationSeconds = 3;
                    s.rateSeconds = 2;
                }
                case "--no-artemis" -> s.artemis = false;
                case "--no-tools" -> s.tools = false;
                case "--profile" -> s.profile = true;
                case "--jar" -> s.jar = Path.of(args[++i]);
                case "--out" -> s.out = Path.of(args[++i]);
                case "--connections" -> s.connections = Integer.parseInt(args[++i]);
                case "--window" -> s.window = Integer.parseInt(args[++i]);
                case "--threads" -> s.threads = Integer.parseInt(args[++i]);
                case "--rounds" -> s.rounds = Integer.parseInt(args[++i]);
                case "--duration" -> s.saturationSeconds = Double.parseDouble(args[++i]);
                case "--rate-duration" -> s.rateSeconds = Double.parseDouble(args[++i]);
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
        // protocol -> load -> the rounds, in the order measured
        Map<String, Map<String, List<Run>>> measured = new LinkedHashMap<>();
        Map<String, String> clients = new LinkedHashMap<>();
        List<String> profiles = new ArrayList<>();
        int inFlight = connections * window;
        // Made first: a mistake in it must not cost the measurements.
        String settings = String.format(Locale.ROOT, "POST %d B to /echo; in flight: AMQP %d connections x %d, "
                        + "HTTP/1.1 %d connections x 1 (no pipelining), h2c %d connections x %d streams, floor %d "
                        + "threads x 1; all by our generator, latency from the due time; %d rounds of %.0f s at "
                        + "saturation and %.0f s per fixed rate", bodyBytes, connections, window, inFlight, connections,
                window, threads, rounds, saturationSeconds, rateSeconds);
        // --bench-floor: the floor row's endpoint, which a gateway serves only when asked (and to loopback only).
        try (GatewayProcess gw = new GatewayProcess(jar, work, gatewayJvm, List.of("--bench-floor"))) {
            log.println("bench gateway: gateway pid " + gw.pid() + ", amqp=" + gw.amqpPort + " http=" + gw.httpPort);
            Map<String, LoadClient> byProtocol = new LinkedHashMap<>();
            byProtocol.put("floor", new FloorClient(gw.floorUrl(), threads, bodyBytes));
            byProtocol.put("amqp", new GeneratorClient("amqp://127.0.0.1:" + gw.amqpPort + "/echo", threads,
                    connections, window, bodyBytes));
            // HTTP/1.1 has one request per connection at a time: as many connections as the others have in flight.
            byProtocol.put("http1", new GeneratorClient("http://127.0.0.1:" + gw.httpPort + "/echo", threads,
                    inFlight, 1, bodyBytes));
            byProtocol.put("http2", new GeneratorClient("h2c://127.0.0.1:" + gw.httpPort + "/echo", threads,
                    connections, window, bodyBytes));
            // The C tools, as cross-checks of our generator at saturation (they count latency from the send).
            Map<String, LoadClient> crossChecks = new LinkedHashMap<>();
            if (tools) {
                crossChecks.put("http1", new WrkClient("http://127.0.0.1:" + gw.httpPort + "/echo", threads,
                        inFlight, bodyBytes, work));
                crossChecks.put("http2", new H2loadClient("http://127.0.0.1:" + gw.httpPort + "/echo", threads,
                        connections, window, bodyBytes, work));
            }
            // Warm every path first: the gateway's JIT compiles the servlet and Jetty code all protocols share
            // during the first run, which would otherwise make whichever protocol runs first look slow.
            for (String p : PROTOCOLS) {
                clients.put(p, byProtocol.get(p).describe());
                measured.put(p, new LinkedHashMap<>());
                log.printf(Locale.ROOT, "bench gateway: %s warm-up %.0f s%n", p, warmupSeconds);
                byProtocol.get(p).run(0, warmupSeconds);
            }
            for (Map.Entry<String, LoadClient> c : crossChecks.entrySet()) {
                String row = crossCheckRow(c.getKey());
                clients.put(row, c.getValue().describe() + " (a cross-check of our generator at saturation, first "
                        + "round only; it counts latency from the actual send)");
                measured.put(row, new LinkedHashMap<>());
            }
            for (int round = 0; round < rounds; round++) {
                for (String p : inTurn(round)) {
                    Path jfr = profile && round == 0 ? work.resolve(p + ".jfr") : null;
                    add(measured, measure(p, "saturation", 0, byProtocol.get(p), gw, saturationSeconds, jfr,
                            profiles));
                    if (round == 0 && crossChecks.containsKey(p)) { // a cross-check: one round is enough
                        add(measured, measure(crossCheckRow(p), "saturation", 0, crossChecks.get(p), gw,
                                saturationSeconds, null, profiles));
                    }
                }
            }
            double[] amqpRates = new RoundSet("amqp", "saturation", 0, measured.get("amqp").get("saturation"))
                    .each(RoundSet::rps);
            double amqpMax = RoundSet.median(amqpRates);
            for (int pct : RATE_PERCENTS) {
                double rate = amqpMax * pct / 100.0;
                for (int round = 0; round < rounds; round++) {
                    for (String p : inTurn(round)) {
                        add(measured, measure(p, pct + "%", rate, byProtocol.get(p), gw, rateSeconds, null, profiles));
                    }
                }
            }
        }
        Map<String, List<RoundSet>> runs = new LinkedHashMap<>();
        for (Map.Entry<String, Map<String, List<Run>>> e : measured.entrySet()) {
            List<RoundSet> sets = new ArrayList<>();
            for (Map.Entry<String, List<Run>> l : e.getValue().entrySet()) {
                Run first = l.getValue().get(0);
                sets.add(new RoundSet(e.getKey(), l.getKey(), first.targetRate(), l.getValue()));
            }
            runs.put(e.getKey(), sets);
        }
        if (artemis) {
            try (BrokerProcess broker = new BrokerProcess(work)) {
                LoadClient c = new GeneratorClient("amqp://127.0.0.1:" + broker.port + "/" + BrokerProcess.QUEUE,
                        threads, connections, window, bodyBytes);
                clients.put("artemis", c.describe() + ", through Artemis " + BrokerProcess.VERSION
                        + " and a responder (" + BrokerProcess.RESPONDER + "); one round");
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
                runs.put("artemis", List.of(new RoundSet("artemis", "saturation", 0,
                        List.of(new Run("artemis", "saturation", 0, f, server)))));
                log.printf(Locale.ROOT, "bench gateway: artemis %,.0f req/s%n", f.requestsPerSecond());
            }
            attachRow(runs, clients);
        }
        SuiteReport report = new SuiteReport(runs, clients, settings);
        Files.writeString(out.resolve("gateway.json"), report.json());
        String md = report.markdown();
        Files.writeString(out.resolve("gateway.md"), md);
        SuiteCharts.write(runs, out);
        System.out.println(md);
        for (String p : profiles) {
            System.out.println(p);
        }
    }

    /** The row of a tool's cross-check: {@code http1-wrk}, {@code http2-h2load}. */
    private static String crossCheckRow(String protocol) {
        return protocol + (protocol.equals("http1") ? "-wrk" : "-h2load");
    }

    /** The protocols in the order of round {@code round}: each round starts one further along. */
    private static List<String> inTurn(int round) {
        List<String> order = new ArrayList<>();
        for (int i = 0; i < PROTOCOLS.length; i++) {
            order.add(PROTOCOLS[(round + i) % PROTOCOLS.length]);
        }
        return order;
    }

    private static void add(Map<String, Map<String, List<Run>>> measured, Run r) {
        measured.computeIfAbsent(r.protocol(), k -> new LinkedHashMap<>())
                .computeIfAbsent(r.load(), k -> new ArrayList<>()).add(r);
    }

    /**
     * Attach mode: the same generator into an Artemis queue named {@code echo}, consumed by a gateway in attach mode
     * ({@code --attach}), which answers through the broker. Two rows: the gateway's CPU and heap per request, and
     * the broker's CPU per request, both over the same measured phase.
     */
    private void attachRow(Map<String, List<RoundSet>> runs, Map<String, String> clients) throws Exception {
        Path work = out.resolve("attach-work");
        try (BrokerProcess broker = new BrokerProcess(work, List.of("--queue", "echo", "--no-responder"));
             GatewayProcess gw = new GatewayProcess(jar, work, gatewayJvm,
                     List.of("--attach", "amqp://127.0.0.1:" + broker.port + "/echo"))) {
            LoadClient c = new GeneratorClient("amqp://127.0.0.1:" + broker.port + "/echo", threads, connections,
                    window, bodyBytes);
            clients.put("attach", c.describe() + ", through Artemis " + BrokerProcess.VERSION
                    + " to a gateway in attach mode (default credit); one round");
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
            runs.put("attach", List.of(new RoundSet("attach", "saturation", 0, List.of(new Run("attach",
                    "saturation", 0, f, gateway[1].since(gateway[0], f.responses()))))));
            runs.put("attach-broker", List.of(new RoundSet("attach-broker", "saturation", 0, List.of(new Run(
                    "attach-broker", "saturation", 0, f, brokerCpu[1].since(brokerCpu[0], f.responses()))))));
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
