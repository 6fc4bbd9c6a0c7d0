package io.amqpservlet.spring;

import io.amqpservlet.jetty.AmqpBrokerAttachment;
import org.eclipse.jetty.server.ServerConnector;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.SmartLifecycle;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code server.shutdown=graceful} for AMQP: the listener stops accepting, every AMQP connection takes its clients'
 * credit back, releases what still arrives, lets the requests in flight be answered and settled, and closes
 * (docs/jetty.md, "Graceful stop"); the attachment stops taking the broker's requests the same way.
 *
 * <p>It runs in the phase just before Boot's own graceful shutdown of the web server, which shuts every connector
 * down in turn and waits for each to have no connection left: an AMQP connection, which keeps its socket open
 * between requests, would hold that wait until it timed out. Stopped first, the AMQP connections are gone when
 * Boot's turn comes, and HTTP requests are still served while AMQP ones finish.
 */
public final class AmqpGracefulShutdown implements SmartLifecycle {
    private final AmqpServletConnectors connectors;
    private volatile boolean running;

    /**
     * The graceful shutdown of {@code connectors}.
     *
     * @param connectors the AMQP connectors of Boot's server
     */
    public AmqpGracefulShutdown(AmqpServletConnectors connectors) {
        this.connectors = connectors;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        throw new UnsupportedOperationException("stop(Runnable) only");
    }

    @Override
    public void stop(Runnable callback) {
        running = false;
        List<CompletableFuture<Void>> done = new ArrayList<>();
        ServerConnector listener = connectors.getListener();
        if (listener != null) {
            done.add(listener.shutdown());
            done.add(connectors.getListenerFactory().getConnections().shutdown());
        }
        AmqpBrokerAttachment attachment = connectors.getAttachment();
        if (attachment != null) {
            done.add(attachment.shutdown());
            done.add(attachment.getConnectionFactory().getConnections().shutdown());
        }
        CompletableFuture.allOf(done.toArray(new CompletableFuture[0])).whenComplete((v, failure) -> callback.run());
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE + 1;
    }
}
