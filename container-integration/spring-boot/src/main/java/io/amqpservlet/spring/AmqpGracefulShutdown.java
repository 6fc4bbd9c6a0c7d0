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
 * (docs/jetty.md, "Graceful stop"); every broker attachment, the named ones too, stops taking the broker's requests
 * the same way.
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

    /** Stops the AMQP connectors gracefully and waits until they are closed. */
    @Override
    public void stop() {
        shutDown().join();
    }

    /** Stops the AMQP connectors gracefully; {@code callback} runs once they are closed. */
    @Override
    public void stop(Runnable callback) {
        shutDown().whenComplete((v, failure) -> callback.run());
    }

    private CompletableFuture<Void> shutDown() {
        running = false;
        List<CompletableFuture<Void>> done = new ArrayList<>();
        ServerConnector listener = connectors.getListener();
        if (listener != null) {
            done.add(listener.shutdown());
            done.add(connectors.getListenerFactory().getConnections().shutdown());
        }
        AmqpBrokerAttachment attachment = connectors.getAttachment();
        if (attachment != null) {
            shutDown(attachment, done);
        }
        for (AmqpBrokerAttachment named : connectors.getAttachments().values()) {
            shutDown(named, done);
        }
        return CompletableFuture.allOf(done.toArray(new CompletableFuture[0]));
    }

    /** No further connection to the broker, and its connection stops as a listener's connections do. */
    private static void shutDown(AmqpBrokerAttachment attachment, List<CompletableFuture<Void>> done) {
        done.add(attachment.shutdown());
        done.add(attachment.getConnectionFactory().getConnections().shutdown());
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
