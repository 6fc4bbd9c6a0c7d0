package io.amqpservlet.gateway.stats;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.util.ajax.JSON;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * With {@code --bench-floor}, for {@code load-tests/bench gateway} only: {@code GET
 * /.amqp-servlet/floor?seconds=S&rate=R&threads=T} runs the floor ({@link FloorRun}: the benchmark's POST injected
 * through Jetty's {@code HttpChannel} with no wire) for S seconds on the calling thread and answers with what it
 * measured once it is over. It keeps the server busy for as long as it is asked, so it is never on unless asked
 * for, and it answers only a client on the same machine: a request whose connection is not loopback at both ends
 * gets 403, whatever address the gateway listens on.
 */
public final class FloorHandler extends Handler.Abstract {
    /** The path the floor is run at. */
    public static final String PATH = "/.amqp-servlet/floor";
    /** The longest floor run one call may ask for. */
    private static final double MAX_FLOOR_SECONDS = 600;

    private final Connector floorConnector;
    private final HttpConfiguration floorConfig;

    /**
     * @param floorConnector the connector the floor's requests say they came through (its server, executor and
     *                       buffer pool), or null for no floor
     * @param floorConfig    the {@code HttpConfiguration} of the floor's requests: the one the real connectors have
     */
    public FloorHandler(Connector floorConnector, HttpConfiguration floorConfig) {
        this.floorConnector = floorConnector;
        this.floorConfig = floorConfig;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws InterruptedException {
        if (!PATH.equals(Request.getPathInContext(request))) {
            return false;
        }
        if (!loopback(request.getConnectionMetaData())) {
            answer(response, callback, 403, "{\"error\":\"the floor answers clients on this machine only\"}");
            return true;
        }
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
            return true;
        }
        if (!(seconds > 0 && seconds <= MAX_FLOOR_SECONDS) || rate < 0 || threads < 1 || threads > 64
                || bodyBytes < 0 || bodyBytes > 1 << 20) {
            answer(response, callback, 400, "{\"error\":\"seconds in (0, 600], rate >= 0, threads 1-64, "
                    + "body 0-1048576\"}");
            return true;
        }
        if (floorConnector == null) {
            answer(response, callback, 503, "{\"error\":\"no connector to run the floor on\"}");
            return true;
        }
        FloorRun run = new FloorRun(floorConnector, floorConfig, value(query, "path", "/echo"), bodyBytes);
        answer(response, callback, 200, new JSON().toJSON(run.run(threads, rate, seconds)));
        return true;
    }

    /** Whether the connection is loopback at both ends: its client runs on this machine and came over lo. */
    static boolean loopback(ConnectionMetaData connection) {
        return loopback(connection.getLocalSocketAddress()) && loopback(connection.getRemoteSocketAddress());
    }

    private static boolean loopback(SocketAddress address) {
        return address instanceof InetSocketAddress inet && inet.getAddress() != null
                && inet.getAddress().isLoopbackAddress();
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
}
