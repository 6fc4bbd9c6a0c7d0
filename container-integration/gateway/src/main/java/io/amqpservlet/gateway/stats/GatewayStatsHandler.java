package io.amqpservlet.gateway.stats;

import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.amqpservlet.jetty.AmqpConnectionFactory;
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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * With {@code --stats}: {@code GET /.amqp-servlet/stats} (over HTTP or AMQP) answers with the gateway's counters as
 * JSON, read when asked (nothing is counted for it):
 * <ul>
 *   <li>the process's: heap bytes allocated by all threads, ended ones included ({@link ThreadAllocation}), CPU
 *       time of the JVM, GC collections and their time, the live thread count (the benchmark suite reads them
 *       before and after a measured run);</li>
 *   <li>{@code amqp}: each AMQP port's factory counters by port name ({@code amqp}, {@code amqps}), the
 *       {@link AmqpCounter}s: connections open, in their handshake and refused, requests being served, served,
 *       refused, released, expired, timed out, late responses, and the byte budget used and its limit; the
 *       connections refused by each limit; and the AMQP errors the port sent its clients, by condition, in closes,
 *       session ends and link detaches;</li>
 *   <li>{@code attachments}: each broker attachment's queues, brokers, state and connection count, with its
 *       factory's counters (its buffered bytes its own, not the factory's).</li>
 * </ul>
 * Reading the counters runs no work in the server: they are the factories' own getters (their JMX attributes).
 */
public final class GatewayStatsHandler extends Handler.Abstract.NonBlocking {
    /** The path the counters are served at. */
    public static final String PATH = "/.amqp-servlet/stats";

    private final Map<String, AmqpConnectionFactory> listeners;
    private final List<AmqpBrokerAttachment> attachments;

    /**
     * @param listeners   the AMQP ports' factories by port name, in the order to report them
     * @param attachments the broker attachments
     */
    public GatewayStatsHandler(Map<String, AmqpConnectionFactory> listeners, List<AmqpBrokerAttachment> attachments) {
        this.listeners = new LinkedHashMap<>(listeners);
        this.attachments = List.copyOf(attachments);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        if (!PATH.equals(Request.getPathInContext(request))) {
            return false;
        }
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, StandardCharsets.UTF_8.encode(snapshot()), callback);
        return true;
    }

    /** The counters as a JSON object. */
    String snapshot() {
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
        Map<String, Object> amqp = new LinkedHashMap<>();
        for (Map.Entry<String, AmqpConnectionFactory> e : listeners.entrySet()) {
            Map<String, Object> port = factoryCounters(e.getValue(), new LinkedHashMap<>());
            port.put("connectionsRefusedByLimit", e.getValue().getServerBudget().getRefusedByLimit());
            port.put("connectionErrorsSent", e.getValue().getConnectionErrorsSent());
            port.put("sessionErrorsSent", e.getValue().getSessionErrorsSent());
            port.put("linkErrorsSent", e.getValue().getLinkErrorsSent());
            amqp.put(e.getKey(), port);
        }
        counters.put("amqp", amqp);
        List<Object> attached = new ArrayList<>();
        for (AmqpBrokerAttachment a : attachments) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", a.getName());
            m.put("addresses", a.getAddresses());
            m.put("brokers", a.getBrokers());
            m.put("state", a.getState());
            m.put("attached", a.isAttached());
            m.put("broker", a.getBroker());
            m.put("connectCount", a.getConnectCount());
            m.put("failures", a.getFailures());
            m.put("lastFailure", a.getLastFailure());
            m.put("reconnectDelay", a.getReconnectDelay());
            m.put("activeRequests", a.getActiveRequests());
            factoryCounters(a.getConnectionFactory(), m);
            m.put("bufferedBytes", a.getBufferedBytes()); // its own budget's, not its factory's
            m.put("connectionErrorsSent", a.getConnectionErrorsSent()); // to its brokers, its own too
            m.put("sessionErrorsSent", a.getSessionErrorsSent());
            m.put("linkErrorsSent", a.getLinkErrorsSent());
            attached.add(m);
        }
        counters.put("attachments", attached);
        return new JSON().toJSON(counters);
    }

    private static Map<String, Object> factoryCounters(AmqpConnectionFactory factory, Map<String, Object> into) {
        for (AmqpCounter c : AmqpCounter.values()) {
            into.put(c.jsonName(), c.read(factory));
        }
        return into;
    }
}
