package io.amqpservlet.bench.gateway;

import io.amqpservlet.bench.load.MeasuredPhase;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The brokered rows of {@code bench gateway} and {@code bench attach}, for one broker: the same generator (same
 * connections, window and body as the listener's AMQP row) into a queue consumed by the hand-written responder (its
 * own process) and into another queue consumed by a gateway in attach mode ({@code --attach}). Both consumers stay
 * attached throughout, each to its own queue, so the rows can alternate: every round measures, in turn (one further
 * along each round), the responder row and the attach row at saturation; then, at half the attach row's median
 * saturation rate (open loop), the responder row, the attach row and the caller's listener gateway. The CPU time of
 * the broker, the responder and the gateway is sampled around each measured phase.
 *
 * <p>Rows, each a key of the result: {@code B} (the generator's figures through the broker with the responder; the
 * broker's CPU), {@code B-responder} (the responder's CPU), {@code B-attach} (the attached gateway's CPU and heap),
 * {@code B-attach-broker} (the broker's CPU during the attach runs), each at {@code saturation} and at {@code 50%},
 * and {@code B-listener} (the listener gateway at the attach row's 50% rate), where B is the broker's name; and for
 * each of {@code B}, {@code B-attach} and {@code B-listener} a {@code -machine} row, the whole machine's busy CPU
 * over the same phases (every process's: how much of the machine the run kept busy).
 *
 * <p>Every process shares every CPU, unless told to split them ({@code --split-cpus}): then the broker runs on CPUs
 * of its own and every other process of these rows (responder, attached gateway, listener gateway, generator) on
 * the rest ({@link CpuSplit}), as a deployment gives its broker a machine of its own. On shared CPUs the consumer's
 * CPU is taken from the broker's, so the broker is not alone in limiting the rows.
 */
final class BrokeredRows {
    /** The queue the responder consumes. */
    static final String RESPONDER_QUEUE = "requests";
    /** The queue the attached gateway consumes; its requests carry {@code to = /echo}. */
    static final String ATTACH_QUEUE = "echo";
    /** The fixed load of the latency target: this share of the attach row's saturation rate. */
    static final int RATE_PERCENT = 50;
    static final String RATE_LOAD = "attach-" + RATE_PERCENT + "%";
    /**
     * The shortest warm-up of the attached gateway (and of {@code bench attach}'s listener reference), whatever the
     * suite's ({@code --quick}'s 3 s too): attach mode warms up slowly, its JIT still compiling after 10 s
     * (docs/profiling.md, "Attach mode"), and a cold gateway measures a third of its rate, so that a quick run's
     * verdicts would not be the full run's.
     */
    static final double MIN_WARMUP_SECONDS = 20;

    /** What every brokered run shares with the listener's rows. */
    record Settings(Path jar, Path out, List<String> gatewayJvm, int threads, int connections, int window,
                    int bodyBytes, double warmupSeconds, double saturationSeconds, double rateSeconds, int rounds,
                    boolean splitCpus) {
    }

    /**
     * The rows of one broker and the clients' descriptions.
     *
     * @param broker the broker's name, the prefix of the rows' keys
     * @param title  product and version
     * @param rows   key (see the class comment) to its round sets, saturation first
     */
    record Result(String broker, String title, Map<String, List<RoundSet>> rows, Map<String, String> clients) {
        RoundSet at(String suffix, String load) {
            for (RoundSet s : rows.getOrDefault(suffix.isEmpty() ? broker : broker + "-" + suffix, List.of())) {
                if (s.load().equals(load)) {
                    return s;
                }
            }
            return null;
        }
    }

    private final Settings settings;
    private final PrintStream log;

    BrokeredRows(Settings settings, PrintStream log) {
        this.settings = settings;
        this.log = log;
    }

    /**
     * Starts {@code brokerName}, its responder and an attached gateway, measures the rows, and stops them.
     *
     * @param listener   the generator against the listener gateway's AMQP port (the same shape)
     * @param listenerGw the listener gateway, measured at the attach row's 50% rate
     */
    Result run(String brokerName, LoadClient listener, GatewayProcess listenerGw) throws Exception {
        Path work = settings.out().resolve("attach-work").resolve(brokerName);
        Map<String, Map<String, List<Run>>> measured = new LinkedHashMap<>();
        Map<String, String> clients = new LinkedHashMap<>();
        String title;
        try (BrokerUnderTest broker = BrokerUnderTest.start(brokerName, work)) {
            title = broker.title();
            log.printf(Locale.ROOT, "bench: %s on %d (pid %d)%n", title, broker.port(), broker.pid());
            try (ResponderProcess responder = new ResponderProcess(work, brokerName, broker.port(),
                    broker.node(RESPONDER_QUEUE), broker.login());
                 GatewayProcess gw = new GatewayProcess(settings.jar(), work, settings.gatewayJvm(),
                         List.of("--attach", broker.attachUri(ATTACH_QUEUE)))) {
                LoadClient viaResponder = GeneratorClient.through(broker, RESPONDER_QUEUE, "/echo", settings.threads(),
                        settings.connections(), settings.window(), settings.bodyBytes());
                LoadClient viaAttach = GeneratorClient.through(broker, ATTACH_QUEUE, "/echo", settings.threads(),
                        settings.connections(), settings.window(), settings.bodyBytes());
                String b = brokerName;
                CpuSplit split = settings.splitCpus() ? CpuSplit.ofThisProcess() : null;
                String cpus = split != null ? "; the broker on CPU " + split.broker() + ", the responder, the gateways "
                        + "and the generator on CPU " + split.others()
                        : settings.splitCpus() ? "; every process on the one CPU" : "; every process on every CPU";
                log.printf(Locale.ROOT, "bench: %s, CPUs:%s%n", b, cpus.substring(1));
                clients.put(b, viaResponder.describe() + ", through " + title + " to the hand-written responder ("
                        + ResponderProcess.DESCRIPTION + ")" + cpus + "; server figures: the broker's CPU");
                clients.put(b + "-responder", "the responder's process in the " + b + " runs (CPU only)");
                clients.put(b + "-attach", viaAttach.describe() + ", through " + title + " to a gateway in attach "
                        + "mode (--attach " + broker.attachUri(ATTACH_QUEUE) + ", default credit); server figures: "
                        + "the attached gateway's");
                clients.put(b + "-attach-broker", "the broker's process during the " + b + "-attach runs (CPU only)");
                clients.put(b + "-listener", listener.describe() + ", the listener gateway at the " + b
                        + "-attach row's rate at " + RATE_PERCENT + "%");
                for (String run : List.of(b, b + "-attach", b + "-listener")) {
                    clients.put(run + "-machine", "the whole machine during the " + run + " runs (busy CPU of every "
                            + "process, from /proc/stat)");
                }
                try {
                    if (split != null) {
                        split.pinBroker(broker.pid());
                        split.pinOther(responder.pid());
                        split.pinOther(gw.pid());
                        split.pinOther(listenerGw.pid());
                        split.pinOther(ProcessHandle.current().pid()); // the generator
                    }
                    measureRows(b, broker, responder, gw, viaResponder, viaAttach, listener, listenerGw, measured);
                } finally {
                    if (split != null) {
                        split.release(listenerGw.pid());
                        split.release(ProcessHandle.current().pid());
                    }
                }
                if (!gw.isAlive()) {
                    throw new IllegalStateException("the attached gateway ended during the run; see "
                            + work.resolve("gateway.log"));
                }
            }
        }
        Map<String, List<RoundSet>> rows = new LinkedHashMap<>();
        for (Map.Entry<String, Map<String, List<Run>>> e : measured.entrySet()) {
            List<RoundSet> sets = new ArrayList<>();
            for (Map.Entry<String, List<Run>> l : e.getValue().entrySet()) {
                sets.add(new RoundSet(e.getKey(), l.getKey(), l.getValue().get(0).targetRate(), l.getValue()));
            }
            rows.put(e.getKey(), sets);
        }
        // The listener's rows at the fixed rate are measured here but belong after the broker's rows in the tables.
        for (String key : List.of(brokerName + "-listener", brokerName + "-listener-machine")) {
            List<RoundSet> listenerRows = rows.remove(key);
            if (listenerRows != null) {
                rows.put(key, listenerRows);
            }
        }
        return new Result(brokerName, title, rows, clients);
    }

    /** Warms both consumers up, then measures the rows at saturation and at the attach row's 50% rate, in rounds. */
    private void measureRows(String b, BrokerUnderTest broker, ResponderProcess responder, GatewayProcess gw,
                             LoadClient viaResponder, LoadClient viaAttach, LoadClient listener,
                             GatewayProcess listenerGw, Map<String, Map<String, List<Run>>> measured)
            throws Exception {
        double attachWarmup = Math.max(settings.warmupSeconds(), MIN_WARMUP_SECONDS);
        log.printf(Locale.ROOT, "bench: %s warm-up %.0f s (responder), %.0f s (attach)%n", b,
                settings.warmupSeconds(), attachWarmup);
        viaResponder.run(0, settings.warmupSeconds());
        viaAttach.run(0, attachWarmup);
        List<Measured> saturated = List.of(
                new Measured(b, viaResponder, List.of(new Sampled(b, broker.pid(), null),
                        new Sampled(b + "-responder", responder.pid(), null), Sampled.machine(b))),
                new Measured(b + "-attach", viaAttach, List.of(new Sampled(b + "-attach", gw.pid(),
                        gw.statsUrl()), new Sampled(b + "-attach-broker", broker.pid(), null),
                        Sampled.machine(b + "-attach"))));
        for (int round = 0; round < settings.rounds(); round++) {
            for (Measured m : inTurn(saturated, round)) {
                measure(measured, m, "saturation", 0, settings.saturationSeconds());
            }
        }
        double[] attachRates = new RoundSet(b + "-attach", "saturation", 0,
                measured.get(b + "-attach").get("saturation")).each(RoundSet::rps);
        double rate = RoundSet.median(attachRates) * RATE_PERCENT / 100.0;
        List<Measured> atRate = new ArrayList<>(saturated);
        atRate.add(new Measured(b + "-listener", listener, List.of(new Sampled(b + "-listener",
                listenerGw.pid(), listenerGw.statsUrl()), Sampled.machine(b + "-listener"))));
        for (int round = 0; round < settings.rounds(); round++) {
            for (Measured m : inTurn(atRate, round)) {
                measure(measured, m, RATE_LOAD, rate, settings.rateSeconds());
            }
        }
    }

    /** One load through one client, and the processes whose figures each become a row. */
    private record Measured(String name, LoadClient client, List<Sampled> processes) {
    }

    /**
     * A process sampled around a measured phase: CPU only, or with {@code statsUrl} also heap and GC; or, with the
     * pid {@link #MACHINE}, the whole machine's busy CPU.
     */
    private record Sampled(String row, long pid, String statsUrl) {
        static final long MACHINE = -1;

        /** The machine's row of the run {@code name}: {@code name-machine}. */
        static Sampled machine(String name) {
            return new Sampled(name + "-machine", MACHINE, null);
        }

        ServerSample take() throws Exception {
            if (pid == MACHINE) {
                return ServerSample.machine();
            }
            return statsUrl == null ? ServerSample.cpuOnly(pid) : ServerSample.take(pid, statsUrl);
        }
    }

    private static List<Measured> inTurn(List<Measured> all, int round) {
        List<Measured> order = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            order.add(all.get((round + i) % all.size()));
        }
        return order;
    }

    private void measure(Map<String, Map<String, List<Run>>> measured, Measured m, String load, double rate,
                         double seconds) throws Exception {
        int n = m.processes().size();
        ServerSample[] before = new ServerSample[n];
        ServerSample[] after = new ServerSample[n];
        ClientFigures f = m.client().run(rate, seconds, new MeasuredPhase() {
            @Override
            public void begin() throws Exception {
                for (int i = 0; i < n; i++) {
                    before[i] = m.processes().get(i).take();
                }
            }

            @Override
            public void end() throws Exception {
                for (int i = 0; i < n; i++) {
                    after[i] = m.processes().get(i).take();
                }
            }
        });
        StringBuilder cpu = new StringBuilder();
        for (int i = 0; i < n; i++) {
            Sampled p = m.processes().get(i);
            Run r = new Run(p.row(), load, rate, f, after[i].since(before[i], f.responses()));
            measured.computeIfAbsent(p.row(), k -> new LinkedHashMap<>()).computeIfAbsent(load, k -> new ArrayList<>())
                    .add(r);
            if (p.pid() == Sampled.MACHINE) {
                cpu.append(String.format(Locale.ROOT, "  machine %.2f cores busy", r.server().cpuMicrosPerRequest()
                        * f.requestsPerSecond() / 1e6));
            } else {
                cpu.append(String.format(Locale.ROOT, "  %s %.1f us/req", p.row(), r.server().cpuMicrosPerRequest()));
            }
        }
        log.printf(Locale.ROOT, "bench: %-16s %-10s %,9.0f req/s  p99 %.3f ms  errors %d %s%n", m.name(), load,
                f.requestsPerSecond(), f.latencyMicros().get("p99") / 1000, f.errorCount(), cpu);
    }
}
