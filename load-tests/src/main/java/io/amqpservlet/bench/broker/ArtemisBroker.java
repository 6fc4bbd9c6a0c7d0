package io.amqpservlet.bench.broker;

import org.apache.activemq.artemis.api.core.QueueConfiguration;
import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.activemq.artemis.core.config.Configuration;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.server.embedded.EmbeddedActiveMQ;
import org.apache.activemq.artemis.core.settings.impl.AddressSettings;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The brokered baseline of {@code load-tests/bench gateway}, what users do today: an embedded ActiveMQ Artemis
 * broker (in-memory, no persistence, no security) with an AMQP acceptor on 127.0.0.1, a request queue, and an
 * {@link EngineResponder} that consumes the queue and answers each request to its {@code reply-to}, echoing the
 * body as the gateway's {@code /echo} does. Run as its own JVM; prints {@code artemis listening amqp=PORT} once
 * ready and runs until killed.
 */
public final class ArtemisBroker {
    /** The request queue, also the address requests are sent to: a path, as the generator sends to a URL's path. */
    public static final String QUEUE = "/requests";

    private ArtemisBroker() {
    }

    /** Starts the broker and the responder; the optional argument is the port (default: a free one). */
    public static void main(String[] args) throws Exception {
        Running running = start(args.length > 0 ? Integer.parseInt(args[0]) : 0);
        Runtime.getRuntime().addShutdownHook(new Thread(running::close, "artemis-shutdown"));
        System.out.println("artemis listening amqp=" + running.port());
        System.out.flush();
    }

    /** A started broker with its responder. */
    public record Running(int port, EmbeddedActiveMQ broker, EngineResponder responder) implements AutoCloseable {
        /** Stops the responder, then the broker. */
        @Override
        public void close() {
            responder.stop();
            try {
                broker.stop();
            } catch (Exception e) {
                System.err.println("artemis: stop failed: " + e);
            }
        }
    }

    /** Starts the broker on {@code port} (0: a free one) and the responder; returns once the responder is attached. */
    public static Running start(int port) throws Exception {
        if (port == 0) {
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort(); // a free port now; the broker binds it a moment later
            }
        }
        Path dir = Files.createTempDirectory("artemis-bench");
        Configuration config = new ConfigurationImpl()
                .setPersistenceEnabled(false)
                .setSecurityEnabled(false)
                .setJMXManagementEnabled(false)
                .setJournalDirectory(dir.resolve("journal").toString())
                .setBindingsDirectory(dir.resolve("bindings").toString())
                .setPagingDirectory(dir.resolve("paging").toString())
                .setLargeMessagesDirectory(dir.resolve("large").toString())
                .addAcceptorConfiguration("amqp", "tcp://127.0.0.1:" + port + "?protocols=AMQP");
        // Requests go to one anycast queue (point to point); replies to the generator's dynamic (temporary) queues.
        config.addQueueConfiguration(QueueConfiguration.of(QUEUE).setAddress(QUEUE)
                .setRoutingType(RoutingType.ANYCAST).setDurable(false));
        config.addAddressSetting("#", new AddressSettings().setDefaultAddressRoutingType(RoutingType.ANYCAST)
                .setDefaultQueueRoutingType(RoutingType.ANYCAST).setAutoCreateQueues(true)
                .setAutoCreateAddresses(true));
        EmbeddedActiveMQ broker = new EmbeddedActiveMQ();
        broker.setConfiguration(config);
        broker.start();
        EngineResponder responder = new EngineResponder("127.0.0.1", port, QUEUE, 256);
        Thread t = new Thread(responder, "responder");
        t.setDaemon(true);
        t.start();
        try {
            responder.awaitReady(30_000);
        } catch (InterruptedException | RuntimeException e) {
            responder.stop();
            broker.stop();
            throw e;
        }
        return new Running(port, broker, responder);
    }
}
