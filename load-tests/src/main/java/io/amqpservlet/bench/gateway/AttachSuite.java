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
    private final SuiteOptions o = new SuiteOptions(8, BrokerUnderTest.NAMES);
    private final PrintStream log = System.err;

    private AttachSuite() {
    }

    /** Runs the suite; options as in {@code load-tests/bench attach}. */
    public static void main(String[] args) throws Exception {
        AttachSuite s = new AttachSuite();
        s.o.parse(args, "bench attach", option -> false);
        s.run();
    }

    private void run() throws Exception {
        Files.createDirectories(o.out);
        String settings = String.format(Locale.ROOT, "POST %d B to /echo; AMQP %d connections x %d in flight by our "
                        + "generator, latency from the due time; brokers: %s; %d alternating rounds of %.0f s at "
                        + "saturation and %.0f s at %d%% of attach saturation (open loop), after %.0f s warm-ups",
                o.bodyBytes, o.connections, o.window, String.join(", ", o.brokers), o.rounds, o.saturationSeconds,
                o.rateSeconds, BrokeredRows.RATE_PERCENT, o.warmupSeconds);
        Map<String, List<RoundSet>> runs = new LinkedHashMap<>();
        Map<String, String> clients = new LinkedHashMap<>();
        List<BrokeredRows.Result> brokered = new ArrayList<>();
        Path work = o.out.resolve("attach-work").resolve("listener");
        try (GatewayProcess gw = new GatewayProcess(o.jar, work, o.gatewayJvm, List.of())) {
            log.println("bench attach: listener gateway pid " + gw.pid() + ", amqp=" + gw.amqpPort);
            LoadClient amqp = new GeneratorClient("amqp://127.0.0.1:" + gw.amqpPort + "/echo", o.threads, o.connections,
                    o.window, o.bodyBytes);
            clients.put("amqp", amqp.describe() + ", the listener gateway's own AMQP port");
            // The reference of the attach targets warms up as long as the attached gateway does.
            double warmup = Math.max(o.warmupSeconds, BrokeredRows.MIN_WARMUP_SECONDS);
            log.printf(Locale.ROOT, "bench attach: amqp warm-up %.0f s%n", warmup);
            amqp.run(0, warmup);
            List<Run> saturation = new ArrayList<>();
            for (int round = 0; round < o.rounds; round++) {
                saturation.add(measure(amqp, gw));
            }
            runs.put("amqp", List.of(new RoundSet("amqp", "saturation", 0, saturation)));
            BrokeredRows rows = new BrokeredRows(o.brokeredRows(), log);
            for (String b : o.brokers) {
                brokered.add(rows.run(b, amqp, gw));
            }
        }
        SuiteReport report = new SuiteReport(runs, clients, settings, brokered, false);
        Files.writeString(o.out.resolve("attach.json"), report.json());
        String md = report.markdown();
        Files.writeString(o.out.resolve("attach.md"), md);
        SuiteCharts.write(runs, brokered, o.out, "attach");
        System.out.println(md);
    }

    private Run measure(LoadClient client, GatewayProcess gw) throws Exception {
        ServerSample[] samples = new ServerSample[2];
        ClientFigures f = client.run(0, o.saturationSeconds, new io.amqpservlet.bench.load.MeasuredPhase() {
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
