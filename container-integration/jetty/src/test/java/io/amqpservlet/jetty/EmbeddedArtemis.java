package io.amqpservlet.jetty;

import org.apache.activemq.artemis.api.core.QueueConfiguration;
import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.activemq.artemis.api.core.SimpleString;
import org.apache.activemq.artemis.core.config.Configuration;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.server.Queue;
import org.apache.activemq.artemis.core.server.embedded.EmbeddedActiveMQ;
import org.apache.activemq.artemis.core.settings.impl.AddressSettings;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A real ActiveMQ Artemis broker in this JVM for the attach-mode tests: an AMQP acceptor on a loopback port, no
 * persistence, no security, anycast queues created on demand (the reply queues of clients) and the request queues
 * the test names. Can be stopped and started again on the same port, as a restarted broker is.
 */
public final class EmbeddedArtemis implements AutoCloseable {
    private final int port;
    private final Path dir;
    private final String[] queues;
    /** A second acceptor with TLS on this port, or -1; its key store is {@link #tlsKeyStore}. */
    private int tlsPort = -1;
    private Path tlsKeyStore;
    private EmbeddedActiveMQ broker;

    private EmbeddedArtemis(int port, Path dir, String[] queues) {
        this.port = port;
        this.dir = dir;
        this.queues = queues;
    }

    private static int freePort() throws java.io.IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * Starts a broker as {@link #start} does, with a second AMQP acceptor that speaks TLS with the certificate of
     * {@code serverKeyStore} (PKCS12, password {@link TestCertificates#PASSWORD}).
     */
    public static EmbeddedArtemis startWithTls(Path serverKeyStore, String... queues) throws Exception {
        EmbeddedArtemis artemis = new EmbeddedArtemis(freePort(), Files.createTempDirectory("artemis-attach"), queues);
        artemis.tlsPort = freePort();
        artemis.tlsKeyStore = serverKeyStore;
        artemis.startAgain();
        return artemis;
    }

    /** The TLS acceptor's port, or -1 without one. */
    public int tlsPort() {
        return tlsPort;
    }

    /** Starts a broker on a free port with the given request queues (anycast, not durable). */
    public static EmbeddedArtemis start(String... queues) throws Exception {
        EmbeddedArtemis artemis = new EmbeddedArtemis(freePort(), Files.createTempDirectory("artemis-attach"), queues);
        artemis.startAgain();
        return artemis;
    }

    /** (Re)starts the broker on its port; its queues are empty (no persistence). */
    public void startAgain() throws Exception {
        Configuration config = new ConfigurationImpl()
                .setPersistenceEnabled(false)
                .setSecurityEnabled(false)
                .setJMXManagementEnabled(false)
                .setJournalDirectory(dir.resolve("journal").toString())
                .setBindingsDirectory(dir.resolve("bindings").toString())
                .setPagingDirectory(dir.resolve("paging").toString())
                .setLargeMessagesDirectory(dir.resolve("large").toString())
                .addAcceptorConfiguration("amqp", "tcp://127.0.0.1:" + port + "?protocols=AMQP");
        if (tlsPort > 0) {
            config.addAcceptorConfiguration("amqps", "tcp://127.0.0.1:" + tlsPort + "?protocols=AMQP;sslEnabled=true;"
                    + "keyStorePath=" + tlsKeyStore + ";keyStorePassword=" + TestCertificates.PASSWORD
                    + ";keyStoreType=PKCS12");
        }
        for (String queue : queues) {
            config.addQueueConfiguration(QueueConfiguration.of(queue).setAddress(queue)
                    .setRoutingType(RoutingType.ANYCAST).setDurable(false));
        }
        config.addAddressSetting("#", new AddressSettings().setDefaultAddressRoutingType(RoutingType.ANYCAST)
                .setDefaultQueueRoutingType(RoutingType.ANYCAST).setAutoCreateQueues(true)
                .setAutoCreateAddresses(true));
        // Addresses under nowhere. are never created: a message sent there is refused (tests of refused responses).
        config.addAddressSetting("nowhere.#", new AddressSettings().setAutoCreateQueues(false)
                .setAutoCreateAddresses(false));
        // Requests in redeliver.* are dead-lettered after three deliveries.
        config.addAddressSetting("redeliver.#", new AddressSettings().setMaxDeliveryAttempts(3)
                .setDeadLetterAddress(org.apache.activemq.artemis.api.core.SimpleString.of("dead"))
                .setAutoCreateDeadLetterResources(true));
        broker = new EmbeddedActiveMQ();
        broker.setConfiguration(config);
        broker.start();
    }

    public int port() {
        return port;
    }

    /** The messages of {@code queue} delivered to consumers and not yet settled by them. */
    public int deliveringCount(String queue) {
        Queue q = broker.getActiveMQServer().locateQueue(SimpleString.of(queue));
        return q == null ? 0 : q.getDeliveringCount();
    }

    /** The messages waiting in {@code queue} (not delivered yet) plus those delivered and not settled. */
    public long messageCount(String queue) {
        Queue q = broker.getActiveMQServer().locateQueue(SimpleString.of(queue));
        return q == null ? 0 : q.getMessageCount();
    }

    /** Stops the broker (its connections drop); {@link #startAgain()} brings it back on the same port. */
    public void stop() throws Exception {
        if (broker != null) {
            broker.stop();
            broker = null;
        }
    }

    @Override
    public void close() throws Exception {
        stop();
        try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
