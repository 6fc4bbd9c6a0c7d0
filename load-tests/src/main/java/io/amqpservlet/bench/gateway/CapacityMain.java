package io.amqpservlet.bench.gateway;

import io.amqpservlet.bench.load.LoadOptions;
import io.amqpservlet.bench.load.LoadResult;
import io.amqpservlet.bench.load.LoadRun;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code load-tests/bench capacity}: what idle and half-open AMQP peers cost a gateway (docs/design.md §2). Starts the
 * gateway jar in its own JVM (default {@code -Xmx256m}), then, over loopback only:
 * <ol>
 *   <li>the live heap after a full collection ({@code jcmd <pid> GC.class_histogram}: it collects, then counts live
 *       objects), its threads ({@code /proc/<pid>/status}) and a normal client's latency (one connection, one
 *       request at a time at a fixed rate to {@code /echo}, our load generator);</li>
 *   <li>N sockets that send only the SASL header ({@link IdleSockets#saslHeaderOnly()}), in two halves, each
 *       followed by a measurement, within the gateway's handshake timeout (10 s), which then closes them; for
 *       comparison, N HTTP/1.1 connections that sent nothing yet, in two halves;</li>
 *   <li>N idle open connections ({@link IdleSockets#openConnection()}: SASL ANONYMOUS, open, session, reply link,
 *       heartbeats), opened in batches; the live heap, threads and the normal client's latency again;</li>
 * </ol>
 * Bytes per connection are the live-heap growth divided by the connections the gateway holds: the average over all,
 * and the marginal cost (the growth from the first half to all), which leaves out what the gateway makes once. Prints a table and
 * writes {@code capacity.json}. Every wait is bounded.
 */
public final class CapacityMain {
    private static final Pattern TOTAL = Pattern.compile("(?m)^Total\\s+(\\d+)\\s+(\\d+)\\s*$");

    private CapacityMain() {
    }

    public static void main(String[] args) throws Exception {
        Path jar = null;
        Path out = Path.of("load-tests/target/bench");
        String gatewayJvm = "-Xmx256m";
        int connections = 10_000;
        int halfOpen = -1;
        int latencySeconds = 5;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            switch (a) {
                case "--help" -> {
                    System.out.println("bench capacity [--connections N] [--half-open N] [--latency-seconds S]");
                    return;
                }
                case "--jar" -> { jar = Path.of(v); i++; }
                case "--out" -> { out = Path.of(v); i++; }
                case "--gateway-jvm" -> { gatewayJvm = v; i++; }
                case "--connections" -> { connections = Integer.parseInt(v); i++; }
                case "--half-open" -> { halfOpen = Integer.parseInt(v); i++; }
                case "--latency-seconds" -> { latencySeconds = Integer.parseInt(v); i++; }
                default -> {
                    System.err.println("bench capacity: unknown option " + a);
                    System.exit(2);
                }
            }
        }
        if (jar == null) {
            System.err.println("bench capacity: --jar is required");
            System.exit(2);
        }
        if (halfOpen < 0) {
            halfOpen = connections;
        }
        Files.createDirectories(out);
        List<String> jvm = new ArrayList<>(List.of(gatewayJvm.trim().split("\\s+")));
        List<String> rows = new ArrayList<>();
        StringBuilder json = new StringBuilder("{\n");
        // The gateway's connection and handshake limits (4,096 and 256 by default, 512 and 32 per address) would
        // refuse most of what this run opens, all from 127.0.0.1: it measures what each peer costs, so the limits
        // are raised above the run's own numbers and those per address are off.
        List<String> limits = List.of("--max-connections", Integer.toString(connections + 1_000),
                "--max-handshakes", Integer.toString(Math.max(halfOpen, connections) + 1_000),
                "--max-connections-per-address", "0", "--max-handshakes-per-address", "0");
        try (GatewayProcess gateway = new GatewayProcess(jar, out.resolve("capacity-work"), jvm, limits)) {
            long pid = gateway.pid();
            json.append("  \"gatewayJvm\": \"").append(gatewayJvm).append("\",\n");
            LoadResult quiet = latency(gateway.amqpPort, latencySeconds);
            long base = liveHeapBytes(pid);
            int baseThreads = threads(pid);
            rows.add(row("gateway alone", 0, base, 0, baseThreads, quiet));
            json.append("  \"baseline\": ").append(figures(0, base, 0, baseThreads, quiet)).append(",\n");

            try (IdleSockets handshaking = new IdleSockets()) {
                // The gateway ends a handshake after 10 s: two halves of at most 3 s each, each followed by a
                // measurement, all well within that. The second half's growth is the cost of one more socket
                // (the first half also fills what the gateway makes once).
                long t0 = System.nanoTime();
                int first = handshaking.open(gateway.amqpPort, halfOpen / 2, IdleSockets.saslHeaderOnly(),
                        IdleSockets.HEADER_ONLY_FRAMES, System.nanoTime() + TimeUnit.SECONDS.toNanos(3));
                long half = liveHeapBytes(pid);
                int second = handshaking.open(gateway.amqpPort, halfOpen - halfOpen / 2,
                        IdleSockets.saslHeaderOnly(), IdleSockets.HEADER_ONLY_FRAMES,
                        System.nanoTime() + TimeUnit.SECONDS.toNanos(3));
                double openSeconds = (System.nanoTime() - t0) / 1e9;
                long heap = liveHeapBytes(pid);
                double measuredAfter = (System.nanoTime() - t0) / 1e9;
                int th = threads(pid);
                int opened = first + second;
                long perSocket = second == 0 ? 0 : (heap - half) / second;
                rows.add(row("the second " + second + " of " + opened + " sockets in the SASL handshake (marginal)",
                        second, heap - half, perSocket, th, null));
                json.append("  \"handshake\": ").append(figures(opened, heap, perSocket, th, null))
                        .append(",\n  \"handshakeRequested\": ").append(halfOpen)
                        .append(",\n  \"handshakeOpenSeconds\": ")
                        .append(String.format(Locale.ROOT, "%.1f", openSeconds))
                        .append(",\n  \"handshakeMeasuredAfterSeconds\": ")
                        .append(String.format(Locale.ROOT, "%.1f", measuredAfter)).append(",\n");
            }
            settledHeap(pid); // the handshakes have timed out and their sockets closed
            try (IdleSockets http = new IdleSockets()) {
                // For comparison, what Jetty itself keeps per connection: HTTP/1.1 connections that are open and
                // have sent nothing yet (an idle keep-alive connection between requests holds the same objects).
                int first = http.open(gateway.httpPort, halfOpen / 2, new byte[0], 0,
                        System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
                long half = liveHeapBytes(pid);
                int second = http.open(gateway.httpPort, halfOpen - halfOpen / 2, new byte[0], 0,
                        System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
                long heap = liveHeapBytes(pid);
                int th = threads(pid);
                long perSocket = second == 0 ? 0 : (heap - half) / second;
                rows.add(row("the second " + second + " of " + (first + second)
                        + " idle HTTP/1.1 connections (marginal, for comparison)", second, heap - half, perSocket, th,
                        null));
                json.append("  \"http11Idle\": ").append(figures(first + second, heap, perSocket, th, null))
                        .append(",\n");
            }
            settledHeap(pid);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            try (IdleSockets idle = new IdleSockets()) {
                // Two halves: the first also fills what the gateway makes once (the engine scratch pool, caches,
                // threads), so the second half's growth is what one more idle connection costs.
                long t0 = System.nanoTime();
                int opened = idle.open(gateway.amqpPort, connections / 2, IdleSockets.openConnection(),
                        IdleSockets.OPEN_FRAMES, deadline);
                idle.keepAlive();
                long half = liveHeapBytes(pid);
                int heldHalf = idle.openCount();
                idle.keepAlive();
                opened += idle.open(gateway.amqpPort, connections - connections / 2, IdleSockets.openConnection(),
                        IdleSockets.OPEN_FRAMES, deadline);
                double openSeconds = (System.nanoTime() - t0) / 1e9;
                idle.keepAlive();
                long heap = liveHeapBytes(pid);
                int held = idle.openCount();
                int th = threads(pid);
                idle.keepAlive();
                LoadResult busy = latency(gateway.amqpPort, latencySeconds);
                idle.keepAlive();
                long perConnection = held == 0 ? 0 : (heap - base) / held;
                long marginal = held == heldHalf ? 0 : (heap - half) / (held - heldHalf);
                rows.add(row(held + " idle open connections (average)", held, heap, perConnection, th, busy));
                rows.add(row("the second " + (held - heldHalf) + " of them (marginal)", held - heldHalf, heap - half,
                        marginal, th, null));
                json.append("  \"idle\": ").append(figures(held, heap, perConnection, th, busy))
                        .append(",\n  \"idleMarginalBytesPerConnection\": ").append(marginal)
                        .append(",\n  \"idleRequested\": ").append(connections)
                        .append(",\n  \"idleOpened\": ").append(opened)
                        .append(",\n  \"idleOpenSeconds\": ").append(String.format(Locale.ROOT, "%.1f", openSeconds))
                        .append("\n");
            }
        }
        json.append("}\n");
        System.out.println();
        System.out.println("| state | connections | live heap after GC | bytes per connection | threads | "
                + "normal client p50 / p99 (ms) |");
        System.out.println("|---|---:|---:|---:|---:|---|");
        for (String r : rows) {
            System.out.println(r);
        }
        Files.writeString(out.resolve("capacity.json"), json.toString(), StandardCharsets.UTF_8);
        System.out.println();
        System.out.println("wrote " + out.resolve("capacity.json"));
    }

    private static String row(String state, int n, long heap, long perConnection, int threads, LoadResult latency) {
        return String.format(Locale.ROOT, "| %s | %,d | %.1f MiB | %s | %d | %s |", state, n, heap / 1048576.0,
                n == 0 ? "" : String.format(Locale.ROOT, "%,d", perConnection), threads,
                latency == null ? "" : String.format(Locale.ROOT, "%.2f / %.2f", latency.percentileMicros(50) / 1000,
                        latency.percentileMicros(99) / 1000));
    }

    private static String figures(int n, long heap, long perConnection, int threads, LoadResult latency) {
        StringBuilder sb = new StringBuilder();
        sb.append("{\"connections\": ").append(n).append(", \"liveHeapBytes\": ").append(heap)
                .append(", \"bytesPerConnection\": ").append(perConnection).append(", \"threads\": ").append(threads);
        if (latency != null) {
            sb.append(String.format(Locale.ROOT, ", \"latencyP50Millis\": %.3f, \"latencyP99Millis\": %.3f, "
                    + "\"requests\": %d, \"errors\": %d", latency.percentileMicros(50) / 1000,
                    latency.percentileMicros(99) / 1000, latency.responses(), latency.errorCount()));
        }
        return sb.append('}').toString();
    }

    /** One connection, one request at a time, 200 requests/s to {@code /echo}: a normal client's latency. */
    private static LoadResult latency(int port, int seconds) throws Exception {
        LoadOptions o = new LoadOptions().endpoint("amqp://127.0.0.1:" + port + "/echo").clients(1).connections(1)
                .window(1).rate(200).warmupMillis(1_000).durationMillis(seconds * 1000L).progress(false);
        return new LoadRun(o, null).run();
    }

    /** The gateway's live heap: {@code jcmd GC.class_histogram} runs a full collection and sums what is left. */
    public static long liveHeapBytes(long pid) throws IOException, InterruptedException {
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        Process p = new ProcessBuilder(jcmd, Long.toString(pid), "GC.class_histogram").redirectErrorStream(true)
                .start();
        String text;
        try (InputStream in = p.getInputStream()) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("jcmd GC.class_histogram did not finish");
        }
        Matcher m = TOTAL.matcher(text);
        if (!m.find()) {
            throw new IOException("no Total line in jcmd GC.class_histogram output: "
                    + text.substring(0, Math.min(200, text.length())));
        }
        return Long.parseLong(m.group(2));
    }

    /**
     * The live heap once it has stopped shrinking (closed connections are let go of by the gateway's threads over
     * a few seconds): readings a second apart until two are within 1% of each other, at most ten.
     */
    static long settledHeap(long pid) throws IOException, InterruptedException {
        long last = liveHeapBytes(pid);
        for (int i = 0; i < 10; i++) {
            Thread.sleep(1_000);
            long now = liveHeapBytes(pid);
            if (Math.abs(now - last) <= last / 100) {
                return now;
            }
            last = now;
        }
        return last;
    }

    /** The gateway's thread count, from {@code /proc/<pid>/status}; -1 where there is no /proc. */
    static int threads(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("Threads:")) {
                    return Integer.parseInt(line.substring(8).trim());
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }
}
