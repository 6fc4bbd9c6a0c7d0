package io.amqpservlet.gateway;

import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;

import java.util.Set;

/**
 * The gateway's operator surface in front of the application: the operator paths that are on ({@code --stats},
 * {@code --metrics}, {@code --bench-floor}) go to their endpoints, through the same users as the servlets when
 * there are users; the health paths ({@code --health}) are answered without credentials, since a probe has none;
 * every other request goes to the application untouched. A port of its own for the metrics
 * ({@code --metrics-port}) serves {@code /metrics} and the health paths, nothing else.
 */
final class OperatorHandler extends Handler.Wrapper {
    private final Handler endpoints;
    private final HealthHandler health;
    private final Set<String> paths;
    private final Connector metricsConnector;
    private final String metricsPath;

    /**
     * @param app              the application
     * @param endpoints        the operator endpoints (behind a security handler when there are users)
     * @param health           the health paths, or null when they are off
     * @param paths            the operator paths served on the application's ports
     * @param metricsConnector the port of the metrics' own, or null
     * @param metricsPath      the one path served on that port
     */
    OperatorHandler(Handler app, Handler endpoints, HealthHandler health, Set<String> paths,
                    Connector metricsConnector, String metricsPath) {
        super(app);
        this.endpoints = endpoints;
        this.health = health;
        this.paths = Set.copyOf(paths);
        this.metricsConnector = metricsConnector;
        this.metricsPath = metricsPath;
        addBean(endpoints); // started and stopped with this handler
        if (health != null) {
            addBean(health);
        }
    }

    @Override
    public void setServer(Server server) {
        super.setServer(server);
        endpoints.setServer(server);
        if (health != null) {
            health.setServer(server);
        }
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String path = Request.getPathInContext(request);
        if (health != null && HealthHandler.serves(path)) {
            return health.handle(request, response, callback);
        }
        if (metricsConnector != null && request.getConnectionMetaData().getConnector() == metricsConnector) {
            if (metricsPath.equals(path)) {
                return endpoints.handle(request, response, callback);
            }
            Response.writeError(request, response, callback, 404);
            return true;
        }
        if (paths.contains(path)) {
            return endpoints.handle(request, response, callback);
        }
        return super.handle(request, response, callback);
    }
}
