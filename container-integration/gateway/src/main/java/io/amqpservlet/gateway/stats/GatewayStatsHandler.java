package io.amqpservlet.gateway.stats;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.util.ajax.JSON;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * With {@code --stats}: the benchmark suite's two endpoints. {@code GET /.amqp-servlet/stats} (over HTTP or AMQP)
 * answers with the process's counters as JSON, for the suite to read before and after a measured run: heap bytes
 * allocated by all threads, ended ones included ({@link ThreadAllocation}), CPU time of the JVM, GC collections and
 * their time, and the live thread count. {@code GET /.amqp-servlet/floor?seconds=S&rate=R&threads=T} runs the floor
 * ({@link FloorRun}: the same POST injected through Jetty's {@code HttpChannel} with no wire) for S seconds and
 * answers with what it measured once it is over. Every other request goes to the application. Off by default: the
 * paths are not part of any app.
 *
 * <p>This package is the benchmark suite's instrumentation, kept out of the gateway's own package: the gateway names
 * it only where {@code --stats} is given (this handler, and {@link ThreadAllocation#counted} for its pool threads),
 * so without the flag none of it is loaded.
 */
public final class GatewayStatsHandler extends Handler.Wrapper {
    /** The path the counters are served at. */
    public static final String PATH = "/.amqp-servlet/stats";
    /** The path the floor is run at. */
    public static final String FLOOR_PATH = "/.amqp-servlet/floor";
    /** The longest floor run one call may ask for. */
    private static final double MAX_FLOOR_SECONDS = 600;

    private final Connector floorConnector;
    private final HttpConfiguration floorConfig;

    /**
     * @param handler        the application, which serves every other request
     * @param floorConnector the connector the floor's requests say they came through (its server, executor and
     *                       buffer pool), or null for no floor
     * @param floorConfig    the {@code HttpConfiguration} of the floor's requests: the one the real connectors have
     */
    public GatewayStatsHandler(Handler handler, Connector floorConnector, HttpConfiguration floorConfig) {
        super(handler);
        this.floorConnector = floorConnector;
        this.floorConfig = floorConfig;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String path = Request.getPathInContext(request);
        if (FLOOR_PATH.equals(path)) {
            floor(request, response, callback);
            return true;
        }
        if (!PATH.equals(path)) {
            return super.handle(request, response, callback);
        }
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, StandardCharsets.UTF_8.encode(snapshot()), callback);
        return true;
    }

    /** Runs the floor on this thread (it blocks for the run's seconds) and answers with its figures. */
    private void floor(Request request, Response response, Callback callback) throws InterruptedException {
        Fields query = Request.extractQueryParameters(request);
        double seconds;
        double rate;
        int threads;
        int bodyBytes;
        try {
            seconds = Double.parseDouble(value(query, "seconds", "1"));
            rate = Double.parseDouble(value(query, "rate", "0"));
            threads = Integer.parseInt(value(query, "threads", "2"));
            bodyBytes = Integer.parseInt(value(query, "body", "100"));
        } catch (NumberFormatException e) {
            answer(response, callback, 400, "{\"error\":\"" + e.getMessage() + "\"}");
            return;
        }
        if (!(seconds > 0 && seconds <= MAX_FLOOR_SECONDS) || rate < 0 || threads < 1 || threads > 64
                || bodyBytes < 0 || bodyBytes > 1 << 20) {
            answer(response, callback, 400, "{\"error\":\"seconds in (0, 600], rate >= 0, threads 1-64, "
                    + "body 0-1048576\"}");
            return;
        }
        if (floorConnector == null) {
            answer(response, callback, 503, "{\"error\":\"no connector to run the floor on\"}");
            return;
        }
        FloorRun run = new FloorRun(floorConnector, floorConfig, value(query, "path", "/echo"), bodyBytes);
        answer(response, callback, 200, new JSON().toJSON(run.run(threads, rate, seconds)));
    }

    private static String value(Fields query, String name, String otherwise) {
        String v = query.getValue(name);
        return v == null ? otherwise : v;
    }

    private static void answer(Response response, Callback callback, int status, String json) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, StandardCharsets.UTF_8.encode(json), callback);
    }

    /** The counters as a JSON object. */
    static String snapshot() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long allocated = Math.max(0, ThreadAllocation.totalBytes());
        long gcCount = 0;
        long gcMillis = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcCount += Math.max(0, gc.getCollectionCount());
            gcMillis += Math.max(0, gc.getCollectionTime());
        }
        long cpuNanos = -1;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            cpuNanos = os.getProcessCpuTime();
        }
        Map<String, Object> counters = new LinkedHashMap<>();
        counters.put("allocatedBytes", allocated);
        counters.put("cpuNanos", cpuNanos);
        counters.put("gcCount", gcCount);
        counters.put("gcMillis", gcMillis);
        counters.put("threads", threads.getThreadCount());
        return new JSON().toJSON(counters);
    }
}
