package io.amqpservlet.gateway.metrics;

import io.micrometer.core.instrument.binder.jetty.JettyConnectionMetrics;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.server.DetectorConnectionFactory;

/**
 * Micrometer's Jetty connection meters, fed only the connections that serve a protocol (HTTP/1.1, h2c, AMQP), so
 * that one client connection counts once. Jetty tells a connector's listeners of every {@link Connection} on a socket,
 * and some only lead to the next: TLS ({@link SslConnection}, which stays under the decrypted connection, so each
 * TLS client counted twice in {@code jetty_connections_current}), and the connection of a
 * {@link DetectorConnectionFactory} (the shared ports, and {@code ProxyConnectionFactory}'s PROXY header), which
 * reads the first bytes and is replaced, so each client on such a port counted one more short connection in
 * {@code jetty_connections_request_seconds}.
 */
final class ServedConnections implements Connection.Listener {
    private final JettyConnectionMetrics meters;

    ServedConnections(JettyConnectionMetrics meters) {
        this.meters = meters;
    }

    @Override
    public void onOpened(Connection connection) {
        if (serves(connection)) {
            meters.onOpened(connection);
        }
    }

    @Override
    public void onClosed(Connection connection) {
        if (serves(connection)) {
            meters.onClosed(connection);
        }
    }

    /** Not TLS under another connection, nor a detector's (its classes are nested in the detector's factory). */
    static boolean serves(Connection connection) {
        if (connection instanceof SslConnection) {
            return false;
        }
        for (Class<?> c = connection.getClass().getEnclosingClass(); c != null; c = c.getEnclosingClass()) {
            if (DetectorConnectionFactory.class.isAssignableFrom(c)) {
                return false;
            }
        }
        return true;
    }
}
