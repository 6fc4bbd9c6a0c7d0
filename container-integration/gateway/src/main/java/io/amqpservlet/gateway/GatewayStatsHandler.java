package io.amqpservlet.gateway;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ajax.JSON;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * With {@code --stats}: answers {@code GET /.amqp-servlet/stats} (over HTTP or AMQP) with the process's counters as
 * JSON, for the benchmark suite to read before and after a measured run: heap bytes allocated summed over all live
 * threads ({@code com.sun.management.ThreadMXBean}), CPU time of the JVM, GC collections and their time, and the live
 * thread count. Every other request goes to the application. Off by default: the path is not part of any app.
 *
 * <p>Allocation is summed over the threads alive at the time of the call, so bytes of a thread that ended between
 * two calls are missed; Jetty's pool keeps its threads for a minute of idleness, longer than a measured run.
 */
final class GatewayStatsHandler extends Handler.Wrapper {
    /** The path the counters are served at. */
    static final String PATH = "/.amqp-servlet/stats";

    GatewayStatsHandler(Handler handler) {
        super(handler);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (!PATH.equals(Request.getPathInContext(request))) {
            return super.handle(request, response, callback);
        }
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, StandardCharsets.UTF_8.encode(snapshot()), callback);
        return true;
    }

    /** The counters as a JSON object. */
    static String snapshot() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long allocated = 0;
        if (threads instanceof com.sun.management.ThreadMXBean) {
            com.sun.management.ThreadMXBean t = (com.sun.management.ThreadMXBean) threads;
            for (long a : t.getThreadAllocatedBytes(t.getAllThreadIds())) {
                if (a > 0) {
                    allocated += a; // -1 for a thread that ended since the ids were taken
                }
            }
        }
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
