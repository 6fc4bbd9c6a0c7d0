package io.amqpservlet.gateway;

import io.amqpservlet.jetty.AmqpBrokerAttachment;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code --health}: what a load balancer or an orchestrator probes, without credentials (a probe has none) and
 * without saying more than a status and counts (no broker address, no user).
 * <ul>
 *   <li>{@value #LIVE}: 200 whenever the gateway answers at all (liveness: restart it when this fails).</li>
 *   <li>{@value #READY}: 200 while every port of the gateway accepts and every broker attachment is attached, else
 *       503 (readiness: send it traffic only then). A gateway that is stopping, or whose attachment is connecting
 *       or backing off after a failure, is not ready.</li>
 * </ul>
 * Both answer {@code GET} and {@code HEAD}, with a small JSON body ({@code {"status":"UP",...}}), never cached.
 */
final class HealthHandler extends Handler.Abstract.NonBlocking {
    static final String LIVE = "/health/live";
    static final String READY = "/health/ready";

    private final Server server;
    private final List<Connector> ports;
    private final List<AmqpBrokerAttachment> attachments;

    /**
     * @param server      the gateway's server: not ready while it is not running (starting or stopping)
     * @param ports       the ports that must accept connections for the gateway to be ready
     * @param attachments the broker attachments that must be attached for the gateway to be ready
     */
    HealthHandler(Server server, List<Connector> ports, List<AmqpBrokerAttachment> attachments) {
        this.server = server;
        this.ports = List.copyOf(ports);
        this.attachments = attachments;
    }

    /** Whether {@code path} is one of the health paths. */
    static boolean serves(String path) {
        return LIVE.equals(path) || READY.equals(path);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        String path = Request.getPathInContext(request);
        if (!serves(path)) {
            return false;
        }
        String method = request.getMethod();
        if (!HttpMethod.GET.is(method) && !HttpMethod.HEAD.is(method)) {
            response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
            Response.writeError(request, response, callback, 405);
            return true;
        }
        String body;
        int status;
        if (LIVE.equals(path)) {
            status = 200;
            body = "{\"status\":\"UP\"}";
        } else {
            int portsDown = 0;
            for (Connector port : ports) {
                if (!port.isRunning()) {
                    portsDown++;
                }
            }
            int attached = 0;
            for (AmqpBrokerAttachment a : attachments) {
                if (a.isAttached()) {
                    attached++;
                }
            }
            boolean up = server.isRunning() && portsDown == 0 && attached == attachments.size();
            status = up ? 200 : 503;
            body = "{\"status\":\"" + (up ? "UP" : "DOWN") + "\",\"server\":\""
                    + (server.isRunning() ? "UP" : server.isStopping() ? "STOPPING" : "DOWN")
                    + "\",\"ports\":{\"up\":" + (ports.size() - portsDown) + ",\"down\":" + portsDown
                    + "},\"attachments\":{\"up\":" + attached + ",\"down\":" + (attachments.size() - attached) + "}}";
        }
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        byte[] bytes = body.getBytes(StandardCharsets.US_ASCII);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, bytes.length);
        if (HttpMethod.HEAD.is(method)) {
            callback.succeeded();
        } else {
            response.write(true, ByteBuffer.wrap(bytes), callback);
        }
        return true;
    }
}
