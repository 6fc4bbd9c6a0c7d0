package io.amqpservlet.bench.scaleout;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What {@code bench scaleout} runs: the brokers in turn, and for each the gateway counts, every configuration with
 * its broker, its gateways and the generator started afresh; the quotas; the generator's shape; the phases.
 *
 * @param brokers             the brokers, in order
 * @param gatewayCounts       gateways on the queue in each run, ascending; must start with 1 (the model's base)
 * @param brokerCores         the broker's quota in cores
 * @param gatewayCores        each gateway's quota in cores
 * @param periodMicros        the quota period: a group that spent its quota waits for the next period
 * @param warmupSeconds       load before the measured phase (each run's JVMs start cold)
 * @param durationSeconds     the measured phase
 * @param clients             the generator's event loops
 * @param connectionsPerClient connections each of them opens to the broker
 * @param window              requests in flight per connection (closed loop)
 * @param bodyBytes           request body size
 * @param jvmProcessors       the processor count the broker's and the gateways' JVMs are told
 *                            ({@code -XX:ActiveProcessorCount}); see {@link #DEFAULT}
 * @param gatewayJar          the gateway's shaded jar
 * @param out                 where the reports go
 * @param gatewayJvm          the gateways' JVM options
 */
record ScaleOutSettings(List<BrokerKind> brokers, List<Integer> gatewayCounts, double brokerCores,
                        double gatewayCores, int periodMicros, double warmupSeconds, double durationSeconds,
                        int clients, int connectionsPerClient, int window, int bodyBytes, int jvmProcessors,
                        Path gatewayJar, Path out, List<String> gatewayJvm) {

    /**
     * The defaults. Quotas: with the gateway costing about as much CPU per request as the broker, a quarter of a core
     * per gateway and one core for the broker put the broker's limit near three gateways. The period is 10 ms
     * rather than the kernel's 100 ms, so a group that spent its quota waits at most a few ms, not up to 75 ms,
     * which would show up in every latency. The generator keeps 2 x 16 connections x 16 = 512 requests in flight:
     * more than three gateways' default credit (3 x 100), so that the queue is never empty and each gateway holds as
     * many requests at once whatever their number (with write coalescing, a gateway's CPU per request falls with the
     * requests it serves at once; a throttled gateway holds its requests while it waits). The JVMs are
     * told the machine's processor count, so that they pick the same collector and pool sizes as in the other
     * benchmarks and only the CPU time differs (seeing a quota of one core or less, a JVM picks the serial GC).
     */
    static final ScaleOutSettings DEFAULT = new ScaleOutSettings(List.of(BrokerKind.ARTEMIS, BrokerKind.RABBITMQ),
            List.of(1, 2, 3), 1.0, 0.25, 10_000, 15, 20, 2, 16, 16, 100, Runtime.getRuntime().availableProcessors(),
            Path.of("container-integration/gateway/target/amqp-servlet-gateway.jar"), Path.of("load-tests/target/bench"),
            List.of("-Xms512m", "-Xmx512m"));

    /** Thrown for a bad command line; the message names the option. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /** {@code bench scaleout}'s options over the defaults. */
    static ScaleOutSettings parse(String[] args) throws UsageException {
        ScaleOutSettings s = DEFAULT;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--quick")) {
                s = s.phases(6, 8);
                continue;
            }
            if (i + 1 >= args.length) {
                throw new UsageException(a.startsWith("--") ? a + " needs a value" : "unknown argument " + a);
            }
            String v = args[++i];
            s = switch (a) {
                case "--brokers" -> s.withBrokers(brokers(v));
                case "--gateways" -> s.withGatewayCounts(counts(v));
                case "--broker-cpus" -> s.withQuotas(cores(a, v), s.gatewayCores);
                case "--gateway-cpus" -> s.withQuotas(s.brokerCores, cores(a, v));
                case "--period-ms" -> s.withPeriod((int) Math.round(number(a, v, 1, 1000) * 1000));
                case "--warmup" -> s.phases(number(a, v, 1, 3600), s.durationSeconds);
                case "--duration" -> s.phases(s.warmupSeconds, number(a, v, 1, 3600));
                case "--connections" -> s.withShape((int) number(a, v, 1, 1000), s.window);
                case "--window" -> s.withShape(s.connectionsPerClient, (int) number(a, v, 1, 1000));
                case "--jar" -> s.withPaths(Path.of(v), s.out);
                case "--out" -> s.withPaths(s.gatewayJar, Path.of(v));
                case "--gateway-jvm" -> s.withGatewayJvm(Arrays.asList(v.trim().split("\\s+")));
                default -> throw new UsageException("unknown option " + a);
            };
        }
        return s;
    }

    /** The settings in one line, for the report. */
    String describe() {
        return String.format(Locale.ROOT, "quotas: broker %.2f cores, each gateway %.2f cores, period %d ms; "
                        + "generator (no quota): %d clients x %d connections x %d in flight = %d, POST %d B to /echo, "
                        + "closed loop; %.0f s warm-up, %.0f s measured per run; JVMs told %d processors",
                brokerCores, gatewayCores, periodMicros / 1000, clients, connectionsPerClient, window, inFlight(),
                bodyBytes, warmupSeconds, durationSeconds, jvmProcessors);
    }

    int inFlight() {
        return clients * connectionsPerClient * window;
    }

    private ScaleOutSettings phases(double warmup, double duration) {
        return new ScaleOutSettings(brokers, gatewayCounts, brokerCores, gatewayCores, periodMicros, warmup, duration,
                clients, connectionsPerClient, window, bodyBytes, jvmProcessors, gatewayJar, out, gatewayJvm);
    }

    private ScaleOutSettings withBrokers(List<BrokerKind> b) {
        return new ScaleOutSettings(b, gatewayCounts, brokerCores, gatewayCores, periodMicros, warmupSeconds,
                durationSeconds, clients, connectionsPerClient, window, bodyBytes, jvmProcessors, gatewayJar, out,
                gatewayJvm);
    }

    private ScaleOutSettings withGatewayCounts(List<Integer> c) {
        return new ScaleOutSettings(brokers, c, brokerCores, gatewayCores, periodMicros, warmupSeconds,
                durationSeconds, clients, connectionsPerClient, window, bodyBytes, jvmProcessors, gatewayJar, out,
                gatewayJvm);
    }

    private ScaleOutSettings withQuotas(double broker, double gateway) {
        return new ScaleOutSettings(brokers, gatewayCounts, broker, gateway, periodMicros, warmupSeconds,
                durationSeconds, clients, connectionsPerClient, window, bodyBytes, jvmProcessors, gatewayJar, out,
                gatewayJvm);
    }

    private ScaleOutSettings withPeriod(int micros) {
        return new ScaleOutSettings(brokers, gatewayCounts, brokerCores, gatewayCores, micros, warmupSeconds,
                durationSeconds, clients, connectionsPerClient, window, bodyBytes, jvmProcessors, gatewayJar, out,
                gatewayJvm);
    }

    private ScaleOutSettings withShape(int connections, int inFlightPerConnection) {
        return new ScaleOutSettings(brokers, gatewayCounts, brokerCores, gatewayCores, periodMicros, warmupSeconds,
                durationSeconds, clients, connections, inFlightPerConnection, bodyBytes, jvmProcessors, gatewayJar,
                out, gatewayJvm);
    }

    private ScaleOutSettings withPaths(Path jar, Path outDir) {
        return new ScaleOutSettings(brokers, gatewayCounts, brokerCores, gatewayCores, periodMicros, warmupSeconds,
                durationSeconds, clients, connectionsPerClient, window, bodyBytes, jvmProcessors, jar, outDir,
                gatewayJvm);
    }

    private ScaleOutSettings withGatewayJvm(List<String> jvm) {
        return new ScaleOutSettings(brokers, gatewayCounts, brokerCores, gatewayCores, periodMicros, warmupSeconds,
                durationSeconds, clients, connectionsPerClient, window, bodyBytes, jvmProcessors, gatewayJar, out,
                jvm);
    }

    private static List<BrokerKind> brokers(String v) throws UsageException {
        List<BrokerKind> list = new ArrayList<>();
        for (String name : v.split(",")) {
            list.add(BrokerKind.byName(name.trim()));
        }
        return List.copyOf(list);
    }

    private static List<Integer> counts(String v) throws UsageException {
        List<Integer> list = new ArrayList<>();
        for (String n : v.split(",")) {
            int c = (int) number("--gateways", n.trim(), 1, 16);
            if (!list.isEmpty() && c <= list.get(list.size() - 1)) {
                throw new UsageException("--gateways wants ascending counts, got " + v);
            }
            list.add(c);
        }
        if (list.get(0) != 1) {
            throw new UsageException("--gateways must start with 1 (the model and the linearity are reckoned from "
                    + "the 1-gateway run), got " + v);
        }
        return List.copyOf(list);
    }

    private static double cores(String option, String v) throws UsageException {
        return number(option, v, 0.01, 64);
    }

    private static double number(String option, String v, double min, double max) throws UsageException {
        double d;
        try {
            d = Double.parseDouble(v.endsWith("s") ? v.substring(0, v.length() - 1) : v);
        } catch (NumberFormatException e) {
            throw new UsageException(option + " wants a number, got " + v);
        }
        if (d < min || d > max) {
            throw new UsageException(option + " out of range [" + min + ", " + max + "]: " + v);
        }
        return d;
    }
}
