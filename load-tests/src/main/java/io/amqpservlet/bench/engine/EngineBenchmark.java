package io.amqpservlet.bench.engine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * The engine benchmark of docs/design.md §6: for our engine, proton-j 0.35.0 and protonj2 1.1.0 in turn, two engines of
 * the same implementation joined in memory on one thread, the sender sending as fast as credit allows and the
 * receiver granting credit 64 messages at a time; first the seed's workload (empty pre-settled messages), then
 * 100-byte unsettled messages each accepted by the receiver. Each pairing warms up, then the pairings run measured
 * iterations in turns (see {@link FlowMeter} for what is measured). All pairings run in the same JVM, so the ratios
 * compare like with like.
 *
 * <pre>java -cp benchmarks.jar io.amqpservlet.bench.engine.EngineBenchmark [--quick] [--out engine.json] [--only ours]</pre>
 *
 * <p>Writes the JSON of {@link EngineReport#json} to {@code --out} (default
 * {@code load-tests/target/bench/engine.json}) and prints the table of {@link EngineReport#table}. With
 * {@code --only NAME} it runs one implementation's pairings and only prints their numbers: a run to profile.
 */
public final class EngineBenchmark {
    /** Messages sent between clock readings: a multiple of the credit batch, small next to a second's worth. */
    static final int CHUNK_MESSAGES = 64 * 16;

    private EngineBenchmark() {
    }

    /** How long to run each pairing. */
    record Timing(double warmUpSeconds, int iterations, double iterationSeconds) {
        // The JIT needs several seconds of a pairing's loop before its code is final (on a busy 2-core machine our
        // engine's msgs per CPU-second still doubled between the 2nd and the 8th second), so warm-up is long.
        static final Timing FULL = new Timing(8, 5, 1);
        static final Timing QUICK = new Timing(4, 3, 1);

        String describe() {
            return "warm-up " + fmt(warmUpSeconds) + " s, then " + iterations + " x " + fmt(iterationSeconds) + " s";
        }

        static String fmt(double seconds) {
            return seconds == Math.rint(seconds) ? String.valueOf((long) seconds) : String.valueOf(seconds);
        }
    }

    /**
     * One pairing's numbers: messages per second of wall-clock time (the median iteration), messages per second of
     * the driving thread's CPU time plus GC pauses (the median iteration; other processes on the machine do not
     * slow it), and bytes allocated per message over all iterations.
     */
    record Measurement(String engine, double msgsPerSec, double msgsPerCpuSec, double bytesPerMsg) {
    }

    /** Runs every pairing of every workload, writes the JSON and prints the table. */
    public static void main(String[] args) throws IOException {
        Timing timing = Timing.FULL;
        Path out = Path.of("load-tests", "target", "bench", "engine.json");
        String only = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> timing = Timing.QUICK;
                case "--out" -> {
                    if (i + 1 == args.length) {
                        usage("--out needs a file");
                    }
                    out = Path.of(args[++i]);
                }
                case "--only" -> {
                    if (i + 1 == args.length) {
                        usage("--only needs an engine name");
                    }
                    only = args[++i];
                }
                default -> usage("unknown option " + args[i]);
            }
        }
        List<List<Measurement>> results = new ArrayList<>();
        for (Workload w : Workload.values()) {
            List<FlowMeter> meters = new ArrayList<>();
            for (Function<Workload, MessageFlow> pairing : pairings()) {
                MessageFlow flow = pairing.apply(w);
                if (only == null || only.equals(flow.name())) {
                    meters.add(new FlowMeter(flow, timing.iterations()));
                }
            }
            results.add(measure(w, meters, timing));
        }
        if (only != null) {
            // A profiling run: no ratios to compute, nothing to write.
            for (int w = 0; w < results.size(); w++) {
                for (Measurement m : results.get(w)) {
                    System.out.printf("%s %s: %,.0f msgs/s, %,.0f msgs/cpu-s, %.2f B/msg%n",
                            Workload.values()[w].key, m.engine(), m.msgsPerSec(), m.msgsPerCpuSec(), m.bytesPerMsg());
                }
            }
            return;
        }
        Path parent = out.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(out, EngineReport.json(Workload.values(), results), StandardCharsets.UTF_8);
        System.out.print(EngineReport.table(Workload.values(), results, timing.describe()));
    }

    /** Each implementation's pairing, ours first. */
    static List<Function<Workload, MessageFlow>> pairings() {
        return Arrays.asList(OursFlow::new, ProtonJ2Flow::new, ProtonJFlow::new);
    }

    private static void usage(String why) {
        System.err.println("EngineBenchmark: " + why);
        System.err.println("usage: EngineBenchmark [--quick] [--out engine.json] [--only ours|protonj2|protonj]");
        System.exit(2);
    }

    /**
     * Warms every flow up, then measures them in turns, one iteration of each per round, so that a change in the
     * machine's load (other processes on a shared machine) touches every engine alike.
     */
    static List<Measurement> measure(Workload workload, List<FlowMeter> meters, Timing timing) {
        for (FlowMeter m : meters) {
            System.err.printf("bench: %s, %s: warm-up %s s%n", workload.label, m.flow.name(),
                    Timing.fmt(timing.warmUpSeconds()));
            runFor(m.flow, timing.warmUpSeconds());
        }
        System.err.printf("bench: %s: %d rounds of %s s per engine%n", workload.label, timing.iterations(),
                Timing.fmt(timing.iterationSeconds()));
        for (int i = 0; i < timing.iterations(); i++) {
            for (FlowMeter m : meters) {
                m.iterate(timing.iterationSeconds());
            }
        }
        List<Measurement> row = new ArrayList<>();
        for (FlowMeter m : meters) {
            row.add(m.result());
        }
        return row;
    }

    /** Transfers chunks of messages until {@code seconds} have passed; returns how many were transferred. */
    static long runFor(MessageFlow flow, double seconds) {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long n = 0;
        do {
            flow.transfer(CHUNK_MESSAGES);
            n += CHUNK_MESSAGES;
        } while (System.nanoTime() < end);
        return n;
    }
}
