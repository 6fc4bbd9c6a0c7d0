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
    /** The request queue, the node the generator sends to for {@code amqp://host:port/requests}. */
    public static final String QUEUE = "requests";

    private ArtemisBroker() {
    }

    /**
     * Starts the broker and the responder. Arguments: the port (default: a free one), then {@code --queue NAME} for
     * another request queue than {@link #QUEUE}, and {@code --no-responder} for a broker whose queue gateways in
     * attach mode consume instead.
     */
    public static void main(String[] args) throws Exception {
        int port = 0;
        String queue = QUEUE;
        boolean responder = true;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--queue" -> queue = args[++i];
                case "--no-responder" -> responder = false;
                default -> port = Integer.parseInt(args[i]);
            }
        }
        Running running = start(port, queue, responder);
        Runtime.getRuntime().addShutdownHook(new Thread(running::close, "artemis-shutdown"));
        System.out.println("artemis listening amqp=" + running.port());
        System.out.flush();
    }

    /** A started broker with its responder. */
    public record Running(int port, EmbeddedActiveMQ broker, EngineResponder responder) implements AutoCloseable {
        /** Stops the responder, then the broker. */
        @Override
        public void close() {
            if (responder != null) {
                responder.stop();
            }
            try {
                broker.stop();
            } catch (Exception e) {
                System.err.println("artemis: stop failed: " + e);
            }
        }
    }

    /** Starts the broker on {@code port} (0: a free one) and the responder; returns once the responder is attached. */
    public static Running start(int port) throws Exception {
        return start(port, QUEUE, true);
    }

    /**
     * Starts the broker on {@code port} (0: a free one) with the request queue {@code queue}, and the responder on it
     * unless {@code responder} is false; returns once the responder (if any) is attached.
     */
    public static Running start(int port, String queue, boolean responder) throws Exception {
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
        config.addQueueConfiguration(QueueConfiguration.of(queue).setAddress(queue)
                .setRoutingType(RoutingType.ANYCAST).setDurable(false));
        config.addAddressSetting("#", new AddressSettings().setDefaultAddressRoutingType(RoutingType.ANYCAST)
                .setDefaultQueueRoutingType(RoutingType.ANYCAST).setAutoCreateQueues(true)
                .setAutoCreateAddresses(true));
        EmbeddedActiveMQ broker = new EmbeddedActiveMQ();
        broker.setConfiguration(config);
        broker.start();
        if (!responder) {
            return new Running(port, broker, null);
        }
        EngineResponder engineResponder = new EngineResponder("127.0.0.1", port, queue, 256);
        Thread t = new Thread(engineResponder, "responder");
        t.setDaemon(true);
        t.start();
        try {
            engineResponder.awaitReady(30_000);
        } catch (InterruptedException | RuntimeException e) {
            engineResponder.stop();
            broker.stop();
            throw e;
        }
        return new Running(port, broker, engineResponder);
    }
}
