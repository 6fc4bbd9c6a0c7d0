package io.amqpservlet.bench.gateway;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code load-tests/bench attach}: the brokered rows of {@code bench gateway} alone, the short loop for tuning attach
 * mode. A listener gateway is started for the reference rows (its AMQP port at saturation, in rounds, then at each
 * attach row's 50% rate alongside the brokered rows), then each broker asked for in turn ({@link BrokeredRows}); the
 * report is the brokered table and the attach-mode targets with their verdicts ({@link AttachTargets}). Writes
 * {@code attach.json}, {@code attach.md} and {@code attach-*.png} into the output directory.
 */
public final class AttachSuite {
    private Path jar = Path.of("container-integration/gateway/target/amqp-servlet-gateway.jar");
    private Path out = Path.of("load-tests/target/bench");
    private int connections = 16;
    private int window = 4;
    private int bodyBytes = 100;
    private int threads = 2;
    private int rounds = 3;
    private double warmupSeconds = 8;
    private double saturationSeconds = 8;
    private double rateSeconds = 6;
    private List<String> brokers = BrokerUnderTest.NAMES;
    private List<String> gatewayJvm = List.of("-Xms512m", "-Xmx512m");
    private final PrintStream log = System.err;

    private AttachSuite() {
    }

    /** Runs the suite; options as in {@code load-tests/bench attach}. */
    public static void main(String[] args) throws Exception {
        AttachSuite s = new AttachSuite();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> {
                    s.warmupSeconds = 3;
                    s.saturationSeconds = 3;
                    s.rateSeconds = 2;
                }
                case "--broker" -> s.brokers = BrokerUnderTest.parse(args[++i]);
                case "--jar" -> s.jar = Path.of(args[++i]);
                case "--out" -> s.out = Path.of(args[++i]);
                case "--connections" -> s.connections = Integer.parseInt(args[++i]);
                case "--window" -> s.window = Integer.parseInt(args[++i]);
                case "--rounds" -> s.rounds = Integer.parseInt(args[++i]);
                case "--duration" -> s.saturationSeconds = Double.parseDouble(args[++i]);
                case "--rate-duration" -> s.rateSeconds = Double.parseDouble(args[++i]);
                case "--warmup" -> s.warmupSeconds = Double.parseDouble(args[++i]);
                case "--gateway-jvm" -> s.gatewayJvm = List.of(args[++i].trim().split("\\s+"));
                default -> {
                    System.err.println("bench attach: unknown option " + args[i]);
                    System.exit(2);
                }
            }
        }
        s.run();
    }

    private void run() throws Exception {
        Files.createDirectories(out);
        String settings = String.format(Locale.ROOT, "POST %d B to /echo; AMQP %d connections x %d in flight by our "
                        + "generator, latency from the due time; brokers: %s; %d alternating rounds of %.0f s at "
                        + "saturation and %.0f s at %d%% of attach saturation (open loop), after %.0f s warm-ups",
                bodyBytes, connections, window, String.join(", ", brokers), rounds, saturationSeconds, rateSeconds,
                BrokeredRows.RATE_PERCENT, warmupSeconds);
        Map<String, List<RoundSet>> runs = new LinkedHashMap<>();
        Map<String, String> clients = new LinkedHashMap<>();
        List<BrokeredRows.Result> brokered = new ArrayList<>();
        Path work = out.resolve("attach-work").resolve("listener");
        try (GatewayProcess gw = new GatewayProcess(jar, work, gatewayJvm, List.of())) {
            log.println("bench attach: listener gateway pid " + gw.pid() + ", amqp=" + gw.amqpPort);
            LoadClient amqp = new GeneratorClient("amqp://127.0.0.1:" + gw.amqpPort + "/echo", threads, connections,
                    window, bodyBytes);
            clients.put("amqp", amqp.describe() + ", the listener gateway's own AMQP port");
            log.printf(Locale.ROOT, "bench attach: amqp warm-up %.0f s%n", warmupSeconds);
            amqp.run(0, warmupSeconds);
            List<Run> saturation = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                saturation.add(measure(amqp, gw));
            }
            runs.put("amqp", List.of(new RoundSet("amqp", "saturation", 0, saturation)));
            BrokeredRows rows = new BrokeredRows(new BrokeredRows.Settings(jar, out, gatewayJvm, threads, connections,
                    window, bodyBytes, warmupSeconds, saturationSeconds, rateSeconds, rounds), log);
            for (String b : brokers) {
                brokered.add(rows.run(b, amqp, gw));
            }
        }
        SuiteReport report = new SuiteReport(runs, clients, settings, brokered, false);
        Files.writeString(out.resolve("attach.json"), report.json());
        String md = report.markdown();
        Files.writeString(out.resolve("attach.md"), md);
        SuiteCharts.write(runs, brokered, out, "attach");
        System.out.println(md);
    }

    private Run measure(LoadClient client, GatewayProcess gw) throws Exception {
        ServerSample[] samples = new ServerSample[2];
        ClientFigures f = client.run(0, saturationSeconds, new io.amqpservlet.bench.load.MeasuredPhase() {
            @Override
            public void begin() throws Exception {
                samples[0] = ServerSample.take(gw.pid(), gw.statsUrl());
            }

            @Override
            public void end() throws Exception {
                samples[1] = ServerSample.take(gw.pid(), gw.statsUrl());
            }
        });
        Run r = new Run("amqp", "saturation", 0, f, samples[1].since(samples[0], f.responses()));
        log.printf(Locale.ROOT, "bench attach: amqp  saturation %,9.0f req/s  cpu %6.1f us/req  p99 %.3f ms  errors "
                        + "%d%n", f.requestsPerSecond(), r.server().cpuMicrosPerRequest(),
                f.latencyMicros().get("p99") / 1000, f.errorCount());
        return r;
    }
}
