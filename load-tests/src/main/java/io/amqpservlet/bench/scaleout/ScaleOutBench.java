package io.amqpservlet.bench.scaleout;

import io.amqpservlet.bench.load.LoadOptions;
import io.amqpservlet.bench.load.LoadResult;
import io.amqpservlet.bench.load.LoadRun;
import io.amqpservlet.bench.load.MeasuredPhase;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs the configurations: for each gateway count a fresh broker in its group, that many fresh gateways attached to
 * its queue, each in a group of its own, and the generator (this JVM, in a group without a quota) sending to the
 * queue, closed loop; warm-up, then the measured phase, around which every group's CPU counters, the machine's and
 * each gateway's served count are read.
 */
final class ScaleOutBench {
    private final ScaleOutSettings settings;
    private final QuotaGroup brokerGroup;
    private final List<QuotaGroup> gatewayGroups;
    private final QuotaGroup generatorGroup;
    private final PrintStream log;

    private ScaleOutBench(ScaleOutSettings settings, QuotaGroup brokerGroup, List<QuotaGroup> gatewayGroups,
                          QuotaGroup generatorGroup, PrintStream log) {
        this.settings = settings;
        this.brokerGroup = brokerGroup;
        this.gatewayGroups = gatewayGroups;
        this.generatorGroup = generatorGroup;
        this.log = log;
    }

    /** Makes the groups (broker, gateway-1..N, generator) and moves this JVM, the generator, into its own. */
    static ScaleOutBench prepare(ScaleOutSettings s, CpuGroups groups, PrintStream log) throws IOException {
        QuotaGroup broker = groups.create("broker", s.brokerCores());
        List<QuotaGroup> gateways = new ArrayList<>();
        int most = s.gatewayCounts().get(s.gatewayCounts().size() - 1);
        for (int i = 1; i <= most; i++) {
            gateways.add(groups.create("gateway-" + i, s.gatewayCores()));
        }
        QuotaGroup generator = groups.create("generator", 0);
        groups.joinSelf(generator);
        return new ScaleOutBench(s, broker, gateways, generator, log);
    }

    /** Every configuration of {@code broker}, in order. */
    List<ScaleOutRun> run(BrokerKind broker) throws IOException, InterruptedException {
        List<ScaleOutRun> runs = new ArrayList<>();
        for (int n : settings.gatewayCounts()) {
            runs.add(measure(broker, n));
        }
        return runs;
    }

    private ScaleOutRun measure(BrokerKind kind, int n) throws IOException, InterruptedException {
        Path work = settings.out().resolve("scaleout-work").resolve(kind.id + "-" + n);
        log.printf(Locale.ROOT, "bench scaleout: %s with %d gateway(s): starting%n", kind.label, n);
        try (BrokerKind.QueueBroker broker = kind.start(brokerGroup, work, settings)) {
            List<AttachedGateway> gateways = new ArrayList<>();
            try {
                for (int i = 0; i < n; i++) {
                    gateways.add(AttachedGateway.start("gateway-" + (i + 1), gatewayGroups.get(i), broker.attachUri(),
                            work, settings));
                }
                for (AttachedGateway g : gateways) {
                    g.awaitAttached(60);
                }
                return load(kind, broker, gateways);
            } finally {
                for (int i = gateways.size() - 1; i >= 0; i--) {
                    gateways.get(i).close();
                }
            }
        }
    }

    private ScaleOutRun load(BrokerKind kind, BrokerKind.QueueBroker broker, List<AttachedGateway> gateways)
            throws IOException, InterruptedException {
        int n = gateways.size();
        LoadOptions o;
        try {
            o = new LoadOptions().endpoint(broker.generatorUrl(), BrokerKind.TARGET);
        } catch (LoadOptions.UsageException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        o.clients(settings.clients()).connections(settings.connectionsPerClient()).window(settings.window())
                .body(settings.bodyBytes()).warmupMillis(Math.round(settings.warmupSeconds() * 1000))
                .durationMillis(Math.round(settings.durationSeconds() * 1000)).progress(true)
                .replyNodePrefix(broker.replyNodePrefix());
        if (broker.user() != null) {
            o.user(broker.user(), broker.password());
        }
        CpuReading[][] readings = new CpuReading[2][n + 2];
        long[][] served = new long[2][n];
        long[] machine = new long[2];
        LoadResult r = new LoadRun(o, log).run(new MeasuredPhase() {
            @Override
            public void begin() throws Exception {
                sample(0);
            }

            @Override
            public void end() throws Exception {
                sample(1);
            }

            /** The CPU counters first, all together; then the gateways' counts, over HTTP. */
            private void sample(int at) throws IOException, InterruptedException {
                readings[at][0] = brokerGroup.read();
                for (int i = 0; i < n; i++) {
                    readings[at][i + 1] = gatewayGroups.get(i).read();
                }
                readings[at][n + 1] = generatorGroup.read();
                machine[at] = MachineCpu.busyTicks();
                for (int i = 0; i < n; i++) {
                    served[at][i] = gateways.get(i).requestsServed();
                }
            }
        });
        broker.checkAlive();
        List<ProcessCpu> gatewayCpu = new ArrayList<>();
        List<Long> servedBy = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            gateways.get(i).checkAlive();
            QuotaGroup g = gatewayGroups.get(i);
            gatewayCpu.add(readings[1][i + 1].since(readings[0][i + 1], g.name(), g.quotaCores()));
            servedBy.add(served[1][i] - served[0][i]);
        }
        ProcessCpu brokerCpu = readings[1][0].since(readings[0][0], "broker", brokerGroup.quotaCores());
        ProcessCpu generatorCpu = readings[1][n + 1].since(readings[0][n + 1], "generator", 0);
        double machineCores = (machine[1] - machine[0]) / MachineCpu.TICKS_PER_SECOND / brokerCpu.seconds();
        ScaleOutRun run = new ScaleOutRun(kind, n, r.seconds(), r.responses(), r.percentileMicros(50),
                r.percentileMicros(99), r.errors(), brokerCpu, gatewayCpu, generatorCpu, servedBy, machineCores);
        StringBuilder shares = new StringBuilder();
        for (ProcessCpu g : gatewayCpu) {
            shares.append(String.format(Locale.ROOT, " %.0f%%", g.quotaShare() * 100));
        }
        log.printf(Locale.ROOT, "bench scaleout: %s, %d gateway(s): %,.0f req/s, gateways' CPU of quota%s, broker's "
                        + "%.0f%%, generator %.2f cores, machine %.2f cores, p99 %.1f ms, errors %d%n", kind.id, n,
                run.requestsPerSecond(), shares, brokerCpu.quotaShare() * 100, generatorCpu.cores(), machineCores,
                run.p99Micros() / 1000, run.errorCount());
        return run;
    }
}
