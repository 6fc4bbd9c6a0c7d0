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
 * Then, with the listener gateway still running, the brokered rows ({@link BrokeredRows}: the same generator through
 * a broker to a hand-written responder and to a gateway in attach mode, and the listener at half the attach row's
 * saturation rate) and the attach-mode targets ({@link AttachTargets}). Writes {@code gateway.json},
 * {@code gateway.md} and the plots into the output directory.
 */
public final class GatewaySuite {
    private static final String[] PROTOCOLS = {"floor", "amqp", "http1", "http2"};
    private static final int[] RATE_PERCENTS = {25, 50, 75};

    private boolean tools = true;
    private boolean profile;
    private final SuiteOptions o = new SuiteOptions(10, List.of("artemis"));
    private final PrintStream log = System.err;

    private GatewaySuite() {
    }

    /** Runs the suite; options as in {@code load-tests/bench gateway}. */
    public static void main(String[] args) throws Exception {
        GatewaySuite s = new GatewaySuite();
        s.o.parse(args, "bench gateway", option -> {
            switch (option) {
                case "--no-artemis" -> s.o.brokers = List.of();
                case "--no-tools" -> s.tools = false;
                case "--profile" -> s.profile = true;
                default -> {
                    return false;
                }
            }
            return true;
        });
        s.run();
    }

    private void run() throws Exception {
        Files.createDirectories(o.out);
        Path work = o.out.resolve("gateway-work");
        // protocol -> load -> the rounds, in the order measured
        Map<String, Map<String, List<Run>>> measured = new LinkedHashMap<>();
        Map<String, String> clients = new LinkedHashMap<>();
        List<String> profiles = new ArrayList<>();
        List<BrokeredRows.Result> brokered = new ArrayList<>();
        int inFlight = o.connections * o.window;
        // Made first: a mistake in it must not cost the measurements.
        String settings = String.format(Locale.ROOT, "POST %d B to /echo; in flight: AMQP %d connections x %d, "
                        + "HTTP/1.1 %d connections x 1 (no pipelining), h2c %d connections x %d streams, floor %d "
                        + "threads x 1; all by our generator, latency from the due time; %d rounds of %.0f s at "
                        + "saturation and %.0f s per fixed rate", o.bodyBytes, o.connections, o.window, inFlight,
                o.connections, o.window, o.threads, o.rounds, o.saturationSeconds, o.rateSeconds);
        // --bench-floor: the floor row's endpoint, which a gateway serves only when asked (and to loopback only).
        try (GatewayProcess gw = new GatewayProcess(o.jar, work, o.gatewayJvm, List.of("--bench-floor"))) {
            log.println("bench gateway: gateway pid " + gw.pid() + ", amqp=" + gw.amqpPort + " http=" + gw.httpPort);
            Map<String, LoadClient> byProtocol = new LinkedHashMap<>();
            byProtocol.put("floor", new FloorClient(gw.floorUrl(), o.threads, o.bodyBytes));
            byProtocol.put("amqp", new GeneratorClient("amqp://127.0.0.1:" + gw.amqpPort + "/echo", o.threads,
                    o.connections, o.window, o.bodyBytes));
            // HTTP/1.1 has one request per connection at a time: as many connections as the others have in flight.
            byProtocol.put("http1", new GeneratorClient("http://127.0.0.1:" + gw.httpPort + "/echo", o.threads,
                    inFlight, 1, o.bodyBytes));
            byProtocol.put("http2", new GeneratorClient("h2c://127.0.0.1:" + gw.httpPort + "/echo", o.threads,
                    o.connections, o.window, o.bodyBytes));
            // The C tools, as cross-checks of our generator at saturation (they count latency from the send).
            Map<String, LoadClient> crossChecks = new LinkedHashMap<>();
            if (tools) {
                crossChecks.put("http1", new WrkClient("http://127.0.0.1:" + gw.httpPort + "/echo", o.threads,
                        inFlight, o.bodyBytes, work));
                crossChecks.put("http2", new H2loadClient("http://127.0.0.1:" + gw.httpPort + "/echo", o.threads,
                        o.connections, o.window, o.bodyBytes, work));
            }
            // Warm every path first: the gateway's JIT compiles the servlet and Jetty code all protocols share
            // during the first run, which would otherwise make whichever protocol runs first look slow.
            for (String p : PROTOCOLS) {
                clients.put(p, byProtocol.get(p).describe());
                measured.put(p, new LinkedHashMap<>());
                log.printf(Locale.ROOT, "bench gateway: %s warm-up %.0f s%n", p, o.warmupSeconds);
                byProtocol.get(p).run(0, o.warmupSeconds);
            }
            for (Map.Entry<String, LoadClient> c : crossChecks.entrySet()) {
                String row = crossCheckRow(c.getKey());
                clients.put(row, c.getValue().describe() + " (a cross-check of our generator at saturation, first "
                        + "round only; it counts latency from the actual send)");
                measured.put(row, new LinkedHashMap<>());
            }
            for (int round = 0; round < o.rounds; round++) {
                for (String p : inTurn(round)) {
                    Path jfr = profile && round == 0 ? work.resolve(p + ".jfr") : null;
                    add(measured, measure(p, "saturation", 0, byProtocol.get(p), gw, o.saturationSeconds, jfr,
                            profiles));
                    if (round == 0 && crossChecks.containsKey(p)) { // a cross-check: one round is enough
                        add(measured, measure(crossCheckRow(p), "saturation", 0, crossChecks.get(p), gw,
                                o.saturationSeconds, null, profiles));
                    }
                }
            }
            double[] amqpRates = new RoundSet("amqp", "saturation", 0, measured.get("amqp").get("saturation"))
                    .each(RoundSet::rps);
            double amqpMax = RoundSet.median(amqpRates);
            for (int pct : RATE_PERCENTS) {
                double rate = amqpMax * pct / 100.0;
                for (int round = 0; round < o.rounds; round++) {
                    for (String p : inTurn(round)) {
                        add(measured, measure(p, pct + "%", rate, byProtocol.get(p), gw, o.rateSeconds, null,
                                profiles));
                    }
                }
            }
            // The brokered rows, with the listener gateway still up: it is measured again at each attach row's
            // 50% rate, and its AMQP saturation rounds above are target 2's reference.
            BrokeredRows rows = new BrokeredRows(o.brokeredRows(), log);
            for (String b : o.brokers) {
                brokered.add(rows.run(b, byProtocol.get("amqp"), gw));
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
        SuiteReport report = new SuiteReport(runs, clients, settings, brokered, true);
        Files.writeString(o.out.resolve("gateway.json"), report.json());
        String md = report.markdown();
        Files.writeString(o.out.resolve("gateway.md"), md);
        SuiteCharts.write(runs, brokered, o.out, "gateway");
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
            profiles.add(recording[0].report(f.responses(), o.out.resolve("profile-" + protocol + ".txt")));
        }
        log.printf(Locale.ROOT, "bench gateway: %-5s %-10s %,9.0f req/s  cpu %6.1f us/req  %8.0f B/req  p99 %.3f ms"
                        + "  errors %d%n", protocol, load, f.requestsPerSecond(), r.server().cpuMicrosPerRequest(),
                r.server().bytesPerRequest(), f.latencyMicros().get("p99") / 1000, f.errorCount());
        return r;
    }
}
