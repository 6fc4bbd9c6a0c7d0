package io.amqpservlet.bench.gateway;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;

/**
 * The options {@code bench gateway} and {@code bench attach} share: what is measured (the gateway jar, the generator's
 * shape), for how long, and where the reports go. Each suite starts from its own defaults and reads its own options
 * besides these ({@link #take}).
 */
final class SuiteOptions {
    Path jar = Path.of("container-integration/gateway/target/amqp-servlet-gateway.jar");
    Path out = Path.of("load-tests/target/bench");
    int connections = 16;
    int window = 4;
    int bodyBytes = 100;
    int threads = 2;
    int rounds = 3;
    double warmupSeconds;
    double saturationSeconds;
    double rateSeconds = 6;
    /** The brokers of the brokered rows ({@link BrokerUnderTest#NAMES}); empty for none. */
    List<String> brokers;
    List<String> gatewayJvm = List.of("-Xms512m", "-Xmx512m");
    /** Whether the brokered rows give the broker CPUs of its own ({@link CpuSplit}): {@code --split-cpus}. */
    boolean splitCpus;

    /**
     * @param seconds the warm-up and the saturation runs' length, in seconds, unless {@code --quick} or the options
     *                say otherwise
     * @param brokers the brokers of the brokered rows unless {@code --broker} says otherwise
     */
    SuiteOptions(double seconds, List<String> brokers) {
        this.warmupSeconds = seconds;
        this.saturationSeconds = seconds;
        this.brokers = brokers;
    }

    /** The settings of the brokered rows these options make. */
    BrokeredRows.Settings brokeredRows() {
        return new BrokeredRows.Settings(jar, out, gatewayJvm, threads, connections, window, bodyBytes, warmupSeconds,
                saturationSeconds, rateSeconds, rounds, splitCpus);
    }

    /**
     * Reads {@code args}: these options, and those {@code own} takes (a flag without a value; true when it is one of
     * the suite's). Anything else ends the process with status 2 and a line naming {@code command}.
     */
    void parse(String[] args, String command, Predicate<String> own) {
        for (int i = 0; i < args.length; i++) {
            int last = take(args, i);
            if (last >= 0) {
                i = last;
            } else if (!own.test(args[i])) {
                System.err.println(command + ": unknown option " + args[i]);
                System.exit(2);
            }
        }
    }

    /**
     * Reads the option at {@code args[i]} (and its value) when it is one of these.
     *
     * @return the index of the option's last argument, or -1 when the option is not one of these
     */
    private int take(String[] args, int i) {
        switch (args[i]) {
            case "--quick" -> {
                warmupSeconds = 3;
                saturationSeconds = 3;
                rateSeconds = 2;
                return i;
            }
            case "--split-cpus" -> {
                splitCpus = true;
                return i;
            }
            case "--broker" -> brokers = BrokerUnderTest.parse(args[i + 1]);
            case "--jar" -> jar = Path.of(args[i + 1]);
            case "--out" -> out = Path.of(args[i + 1]);
            case "--connections" -> connections = Integer.parseInt(args[i + 1]);
            case "--window" -> window = Integer.parseInt(args[i + 1]);
            case "--threads" -> threads = Integer.parseInt(args[i + 1]);
            case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
            case "--duration" -> saturationSeconds = Double.parseDouble(args[i + 1]);
            case "--rate-duration" -> rateSeconds = Double.parseDouble(args[i + 1]);
            case "--warmup" -> warmupSeconds = Double.parseDouble(args[i + 1]);
            case "--gateway-jvm" -> gatewayJvm = List.of(args[i + 1].trim().split("\\s+"));
            default -> {
                return -1;
            }
        }
        return i + 1;
    }
}
