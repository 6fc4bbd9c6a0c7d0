package io.amqpservlet.bench.gateway;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The CPUs of the brokered rows split in two: the broker's (the first half of the CPUs this process may use, at
 * least one) and everyone else's (the consumer, responder or attached gateway, the listener gateway and the
 * generator in this JVM). A deployment gives its broker a machine of its own; on one machine, a broker sharing its
 * cores with the consumer and the generator loses to them the CPU it would serve with, so it is not alone in
 * limiting the rows, as the brokered targets presume. Processes are pinned with {@code taskset -a -p} (every thread, and the
 * threads they start later inherit it).
 */
final class CpuSplit {
    private static final String ALLOWED = "Cpus_allowed_list:";

    private final String all;
    private final String broker;
    private final String others;

    private CpuSplit(String all, String broker, String others) {
        this.all = all;
        this.broker = broker;
        this.others = others;
    }

    /**
     * The split of the CPUs this process may use, or null when there are fewer than two.
     */
    static CpuSplit ofThisProcess() throws IOException {
        List<Integer> cpus = allowedCpus();
        if (cpus.size() < 2) {
            return null;
        }
        int half = cpus.size() / 2;
        return new CpuSplit(list(cpus), list(cpus.subList(0, half)), list(cpus.subList(half, cpus.size())));
    }

    /** The broker's CPUs, as {@code taskset -c} takes them. */
    String broker() {
        return broker;
    }

    /** Everyone else's CPUs. */
    String others() {
        return others;
    }

    void pinBroker(long pid) throws IOException, InterruptedException {
        pin(pid, broker);
    }

    void pinOther(long pid) throws IOException, InterruptedException {
        pin(pid, others);
    }

    /** Gives {@code pid} every CPU of the split back. */
    void release(long pid) throws IOException, InterruptedException {
        pin(pid, all);
    }

    private static void pin(long pid, String cpus) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("taskset", "-a", "-p", "-c", cpus, Long.toString(pid))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("taskset could not give process " + pid + " the CPUs " + cpus + ": " + out);
        }
    }

    /** The CPUs this process may run on, from {@code /proc/self/status}. */
    private static List<Integer> allowedCpus() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith(ALLOWED)) {
                return parseList(line.substring(ALLOWED.length()).trim());
            }
        }
        return List.of();
    }

    /** A CPU list as Linux writes it ({@code 0-1,4}), as the CPUs it names in order. */
    static List<Integer> parseList(String list) {
        List<Integer> cpus = new ArrayList<>();
        for (String range : list.split(",")) {
            int dash = range.indexOf('-');
            int from = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
            int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1));
            for (int c = from; c <= to; c++) {
                cpus.add(c);
            }
        }
        return cpus;
    }

    private static String list(List<Integer> cpus) {
        StringBuilder b = new StringBuilder();
        for (int c : cpus) {
            if (!b.isEmpty()) {
                b.append(',');
            }
            b.append(c);
        }
        return b.toString();
    }
}
