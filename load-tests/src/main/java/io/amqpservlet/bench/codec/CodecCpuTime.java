package io.amqpservlet.bench.codec;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.function.LongSupplier;

/**
 * The codec benchmark methods timed by this thread's CPU time instead of wall time, for comparing variants on a
 * shared, loaded machine where JMH's wall-clock error bars exceed the differences. Every method runs 20,000 times
 * per round, all methods interleaved round by round; after 5 warm-up rounds the best of 15 rounds is reported
 * per method. CPU time still includes cache and SMT interference from other processes, so only ratios taken in
 * one run mean anything, and JMH on a quiet machine remains the reference.
 *
 * <p>{@code java -cp load-tests/target/benchmarks.jar io.amqpservlet.bench.codec.CodecCpuTime [substring]}
 * runs the methods whose name contains the substring (all by default).
 */
public final class CodecCpuTime {
    private static final int WARM_UP_ROUNDS = 5;
    private static final int ROUNDS = 15;
    private static final int RUNS_PER_ROUND = 20_000;

    private static long sink;

    private CodecCpuTime() {
    }

    /** Runs the benchmark methods matching {@code args[0]} (or all) and prints ns of CPU time per operation. */
    public static void main(String[] args) {
        RequestMessageBenchmark request = new RequestMessageBenchmark();
        request.setup();
        ListOfIntsAndUuidBenchmark list = new ListOfIntsAndUuidBenchmark();
        list.setup();
        String[] names = {
            "requestMessage_ours_encode", "requestMessage_ours_encodePreencoded", "requestMessage_protonj2_encode",
            "requestMessage_protonj_encode", "requestMessage_ours_decode", "requestMessage_ours_decodeCached",
            "requestMessage_ours_scan", "requestMessage_protonj2_decode", "requestMessage_protonj_decode",
            "listOfIntsAndUuid_ours_encode", "listOfIntsAndUuid_protonj2_encode", "listOfIntsAndUuid_protonj_encode",
            "listOfIntsAndUuid_ours_decode", "listOfIntsAndUuid_protonj2_decode", "listOfIntsAndUuid_protonj_decode",
        };
        LongSupplier[] ops = {
            request::requestMessage_ours_encode,
            request::requestMessage_ours_encodePreencoded,
            request::requestMessage_protonj2_encode,
            request::requestMessage_protonj_encode,
            () -> request.requestMessage_ours_decode().headerCount,
            () -> request.requestMessage_ours_decodeCached().headerCount,
            () -> request.requestMessage_ours_scan().headerCount,
            () -> request.requestMessage_protonj2_decode().headerCount,
            () -> request.requestMessage_protonj_decode().headerCount,
            list::listOfIntsAndUuid_ours_encode,
            list::listOfIntsAndUuid_protonj2_encode,
            list::listOfIntsAndUuid_protonj_encode,
            list::listOfIntsAndUuid_ours_decode,
            list::listOfIntsAndUuid_protonj2_decode,
            list::listOfIntsAndUuid_protonj_decode,
        };
        String filter = args.length > 0 ? args[0] : "";
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double[] best = new double[ops.length];
        java.util.Arrays.fill(best, Double.MAX_VALUE);
        for (int round = 0; round < WARM_UP_ROUNDS + ROUNDS; round++) {
            for (int o = 0; o < ops.length; o++) {
                if (!names[o].contains(filter)) {
                    continue;
                }
                LongSupplier op = ops[o];
                long before = threads.getCurrentThreadCpuTime();
                long s = 0;
                for (int i = 0; i < RUNS_PER_ROUND; i++) {
                    s += op.getAsLong();
                }
                long nanos = threads.getCurrentThreadCpuTime() - before;
                sink += s;
                if (round >= WARM_UP_ROUNDS) {
                    best[o] = Math.min(best[o], nanos / (double) RUNS_PER_ROUND);
                }
            }
        }
        for (int o = 0; o < ops.length; o++) {
            if (names[o].contains(filter)) {
                System.out.printf("%-40s %9.1f ns CPU/op%n", names[o], best[o]);
            }
        }
        System.out.println("(checksum " + sink + ")");
    }
}
