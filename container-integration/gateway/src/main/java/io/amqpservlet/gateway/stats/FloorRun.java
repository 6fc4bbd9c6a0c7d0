package io.amqpservlet.gateway.stats;

import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The floor: the same POST as the benchmarks' clients send, injected into the gateway's own server through Jetty's
 * {@code HttpChannel} ({@link FloorStream}) with no wire at all, so the server's CPU and heap per request are what
 * Jetty's request handling and the servlet cost whatever the transport. Same server, same handler tree and servlet,
 * same JIT state as the requests that come over the sockets.
 *
 * <p>{@code threads} injecting threads each serve one request at a time on their own stream. Without a rate they go
 * as fast as they can (saturation); with one, each thread has its own schedule (the rate split over the threads,
 * offset so the aggregate is even), sleeps until a request is due and counts its latency from the time it was due,
 * as the load generator does in open loop. The threads end with the run; their allocation is counted
 * ({@link ThreadAllocation}).
 */
final class FloorRun {
    /** The percentiles the result reports, as the suite's clients do. */
    static final double[] PERCENTILES = {0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999};

    private final Connector connector;
    private final HttpConfiguration config;
    private final String path;
    private final byte[] body;

    FloorRun(Connector connector, HttpConfiguration config, String path, int bodyBytes) {
        this.connector = connector;
        this.config = config;
        this.path = path;
        this.body = new byte[bodyBytes];
        for (int i = 0; i < bodyBytes; i++) {
            body[i] = (byte) ('a' + i % 26); // the bytes the load generator, the wrk script and h2load send
        }
    }

    /** Runs for {@code seconds} at {@code ratePerSecond} (0: as fast as possible); returns the figures as a map. */
    Map<String, Object> run(int threads, double ratePerSecond, double seconds) throws InterruptedException {
        HttpURI uri = HttpURI.from("http://localhost" + path);
        HttpFields fields = HttpFields.build()
                .put(HttpHeader.HOST, "localhost")
                .put(HttpHeader.CONTENT_TYPE, "application/octet-stream")
                .put(HttpHeader.CONTENT_LENGTH, Integer.toString(body.length))
                .asImmutable();
        ByteBuffer shared = ByteBuffer.wrap(body).asReadOnlyBuffer();
        Injector[] injectors = new Injector[threads];
        Thread[] running = new Thread[threads];
        long intervalNanos = ratePerSecond > 0 ? Math.max(1, Math.round(1e9 * threads / ratePerSecond)) : 0;
        long start = System.nanoTime() + 1_000_000; // every thread started by then
        long end = start + Math.round(seconds * 1e9);
        for (int i = 0; i < threads; i++) {
            FloorConnection c = new FloorConnection(connector, config, "floor-" + i);
            injectors[i] = new Injector(new FloorStream(c, "floor-" + i, shared), uri, fields, body.length,
                    start + intervalNanos * i / threads, intervalNanos, end);
            running[i] = new Thread(ThreadAllocation.counted(injectors[i]), "floor-" + i);
            running[i].start();
        }
        FloorLatency latency = new FloorLatency();
        Map<String, Long> errors = new TreeMap<>();
        long responses = 0;
        for (int i = 0; i < threads; i++) {
            running[i].join();
            latency.add(injectors[i].latency);
            responses += injectors[i].responses;
            for (Map.Entry<String, Long> e : injectors[i].errors.entrySet()) {
                errors.merge(e.getKey(), e.getValue(), Long::sum);
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("responses", responses);
        out.put("seconds", (end - start) / 1e9);
        out.put("threads", threads);
        out.put("targetRate", ratePerSecond);
        out.put("errors", errors);
        Map<String, Object> percentiles = new LinkedHashMap<>();
        for (double p : PERCENTILES) {
            percentiles.put(Double.toString(p), latency.percentileNanos(p) / 1000.0);
        }
        out.put("percentilesMicros", percentiles);
        out.put("maxMicros", latency.maxNanos() / 1000.0);
        return out;
    }

    /** One injecting thread: its stream, its schedule, its counts. */
    private static final class Injector implements Runnable {
        private final FloorStream stream;
        private final HttpURI uri;
        private final HttpFields fields;
        private final int bodyBytes;
        private final long firstDueNanos;
        private final long intervalNanos;
        private final long endNanos;
        final FloorLatency latency = new FloorLatency();
        final Map<String, Long> errors = new TreeMap<>();
        long responses;

        Injector(FloorStream stream, HttpURI uri, HttpFields fields, int bodyBytes, long firstDueNanos,
                 long intervalNanos, long endNanos) {
            this.stream = stream;
            this.uri = uri;
            this.fields = fields;
            this.bodyBytes = bodyBytes;
            this.firstDueNanos = firstDueNanos;
            this.intervalNanos = intervalNanos;
            this.endNanos = endNanos;
        }

        @Override
        public void run() {
            long due = firstDueNanos;
            long now;
            while ((now = System.nanoTime()) - endNanos < 0) {
                if (now - due < 0) {
                    LockSupport.parkNanos(due - now);
                    continue;
                }
                long from = intervalNanos > 0 ? due : now;
                String problem = stream.serve(new MetaData.Request(from, HttpMethod.POST.asString(), uri,
                        HttpVersion.HTTP_1_1, fields, bodyBytes));
                latency.record(System.nanoTime() - from);
                responses++;
                if (problem == null && stream.status() != 200) {
                    problem = "status " + stream.status();
                } else if (problem == null && stream.responseBodyBytes() != bodyBytes) {
                    problem = "echoed " + stream.responseBodyBytes() + " of " + bodyBytes + " bytes";
                }
                if (problem != null) {
                    errors.merge(problem, 1L, Long::sum);
                }
                due += intervalNanos;
            }
        }
    }
}
