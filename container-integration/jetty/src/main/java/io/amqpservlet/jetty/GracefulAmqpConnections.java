package io.amqpservlet.jetty;

import io.amqpservlet.jetty.internal.connection.AmqpConnection;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.util.annotation.ManagedAttribute;
import org.eclipse.jetty.util.annotation.ManagedObject;
import org.eclipse.jetty.util.component.Graceful;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The open connections of one {@link AmqpConnectionFactory}, shut down gracefully when the server stops with a stop
 * timeout ({@code Server.setStopTimeout}): Jetty's {@code Server.doStop} asks every {@link Graceful} bean, this one
 * included, to shut down and waits up to that timeout. Each connection then takes the client's credit back, releases
 * the requests that still arrive, lets the ones in flight finish, and closes with {@code amqp:connection:forced}
 *; the future completes when the last one has closed.
 *
 * <p>Without it a stopping server would wait the whole stop timeout for AMQP connections: Jetty's connector waits
 * for its end points to close, and AMQP connections (which ignore the end point's idle timeout in favour of their
 * own) would not. A bean of the factory, so {@code AbstractConnectionFactory.configure} registers it as a
 * {@link Connection.Listener} of every connection it makes.
 */
@ManagedObject("The open AMQP connections of a factory, stopped gracefully with the server")
public final class GracefulAmqpConnections implements Graceful, Connection.Listener {
    private final Set<AmqpConnection> open = ConcurrentHashMap.newKeySet();
    private volatile CompletableFuture<Void> shutdown;

    /** Made by its factory only. */
    GracefulAmqpConnections() {
    }

    @Override
    public void onOpened(Connection connection) {
        if (connection instanceof AmqpConnection amqp) {
            open.add(amqp);
            if (shutdown != null) {
                amqp.shutdown(); // accepted just before the connector stopped accepting
            }
        }
    }

    @Override
    public void onClosed(Connection connection) {
        if (connection instanceof AmqpConnection amqp) {
            open.remove(amqp);
            completeIfDone();
        }
    }

    @Override
    public CompletableFuture<Void> shutdown() {
        CompletableFuture<Void> done;
        synchronized (this) {
            if (shutdown != null) {
                return shutdown;
            }
            done = new CompletableFuture<>();
            shutdown = done;
        }
        for (AmqpConnection c : open) {
            c.shutdown();
        }
        completeIfDone();
        return done;
    }

    private void completeIfDone() {
        CompletableFuture<Void> done = shutdown;
        if (done != null && open.isEmpty()) {
            done.complete(null);
        }
    }

    @Override
    @ManagedAttribute("Whether a graceful stop has begun")
    public boolean isShutdown() {
        return shutdown != null;
    }

    /** {@return the requests the open connections are serving now, summed (a statistic: walks the connections)} */
    public int activeRequests() {
        int active = 0;
        for (AmqpConnection c : open) {
            active += c.getActiveRequests();
        }
        return active;
    }

    /** {@return the number of open connections, for tests and statistics} */
    @ManagedAttribute("AMQP connections open now, handshakes included")
    public int size() {
        return open.size();
    }
}
