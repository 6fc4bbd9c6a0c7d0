package io.amqpservlet.bench.soak;

import io.amqpservlet.bench.load.LoadOptions;
import io.amqpservlet.bench.load.LoadResult;
import io.amqpservlet.bench.load.LoadRun;

import org.HdrHistogram.Histogram;

import java.util.Locale;
import java.util.Map;

/**
 * Our load generator ({@code bench load}) at a fixed rate, open loop, over AMQP (to the gateway or to the broker's
 * queue that the gateway consumes in attach mode) or HTTP/1.1. It runs in back-to-back segments, each a
 * {@link LoadRun} with no warm-up, so the figures reach the sampler while the soak goes on; each segment opens its
 * connections anew (set up before its schedule starts, never timed).
 */
final class GeneratorSoakClient implements SoakClient {
    private final KindStats stats;
    private final String url;
    private final int connections;
    private final int window;
    private final int bodyBytes;
    private final double ratePerSecond;
    private final long segmentMillis;
    private final Thread thread;
    private volatile boolean running;

    GeneratorSoakClient(String name, String url, int connections, int window, int bodyBytes, double ratePerSecond,
                        long segmentMillis) {
        this.stats = new KindStats(name);
        this.url = url;
        this.connections = connections;
        this.window = window;
        this.bodyBytes = bodyBytes;
        this.ratePerSecond = ratePerSecond;
        this.segmentMillis = segmentMillis;
        this.thread = new Thread(this::loop, "soak-" + name);
        thread.setDaemon(true);
    }

    @Override
    public String name() {
        return stats.name;
    }

    @Override
    public String describe() {
        return String.format(Locale.ROOT, "bench load, %s: %d connections x %d in flight, POST %,d B, %,.0f req/s "
                + "open loop, in segments of %d s", url, connections, window, bodyBytes, ratePerSecond,
                segmentMillis / 1000);
    }

    @Override
    public KindStats stats() {
        return stats;
    }

    @Override
    public void start() {
        running = true;
        thread.start();
    }

    private void loop() {
        while (running) {
            try {
                LoadOptions o = new LoadOptions().endpoint(url).clients(1).connections(connections).window(window)
                        .body(bodyBytes).rate(ratePerSecond).warmupMillis(0).durationMillis(segmentMillis)
                        .timeoutMillis(10_000).progress(false);
                LoadResult r = new LoadRun(o, null).run();
                stats.add(r.histogram(), r.errors());
            } catch (Exception e) {
                // A segment that cannot connect is an error of its own; the next one tries again.
                stats.add(new Histogram(1, 60_000_000_000L, 3), Map.of("segment failed: " + e.getMessage(), 1L));
                sleepQuietly(1_000);
            }
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void stop() throws InterruptedException {
        running = false;
        thread.join(segmentMillis + 30_000);
    }
}
