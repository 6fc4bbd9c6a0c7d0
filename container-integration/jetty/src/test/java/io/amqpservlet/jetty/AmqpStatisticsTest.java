package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageWriter;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.ConnectionStatistics;
import org.eclipse.jetty.jmx.MBeanContainer;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a Jetty user reads about HTTP connections works for AMQP ones (docs/jetty.md, "Statistics and JMX"): Jetty's
 * {@link ConnectionStatistics} on an AMQP connector counts the bytes and messages of each connection, and a real
 * {@link MBeanContainer} shows the factory's limits and counts, its budget and its connections, and a broker
 * attachment's state, with live values.
 */
@Timeout(60)
class AmqpStatisticsTest {
    private Server server;
    private ServerConnector connector;
    private AmqpConnectionFactory factory;
    private MBeanServer mbeans;
    private final CountDownLatch closed = new CountDownLatch(1);

    private void start() throws Exception {
        server = new Server();
        mbeans = MBeanServerFactory.newMBeanServer(); // a server of its own: other tests' beans do not show here
        server.addBean(new MBeanContainer(mbeans));
        factory = new AmqpConnectionFactory(new HttpConfiguration(),
                new EngineConfig().anonymousAllowed(true));
        connector = new ServerConnector(server, 1, 1, factory);
        connector.setHost("127.0.0.1");
        connector.addBean(new ConnectionStatistics()); // as Jetty's statistics module does
        // Notified after the statistics, on the same thread: once it has seen a close, so have they. The statistics
        // count a connection out before they record its bytes and messages, so their count is no such sign.
        connector.addBean(new Connection.Listener() {
            @Override
            public void onClosed(Connection connection) {
                closed.countDown();
            }
        });
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new TestServlets.Echo()), "/echo");
        server.setHandler(context);
        server.start();
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
    }

    private static AmqpWriter post(String replyTo, int bodyBytes) {
        AmqpWriter w = new AmqpWriter();
        new MessageWriter().wrap(w).startProperties().messageId("m").to("/echo").subject("POST").replyTo(replyTo)
                .endProperties().data(new byte[bodyBytes], 0, bodyBytes).end();
        return w;
    }

    @Test
    void connectionStatisticsCountTheBytesAndMessagesOfAnAmqpConnection() throws Exception {
        start();
        ConnectionStatistics statistics = connector.getBean(ConnectionStatistics.class);
        long clientWrote;
        long clientRead;
        try (AmqpSocketClient client = AmqpSocketClient.connect(connector.getLocalPort(), "/echo")) {
            for (int i = 0; i < 3; i++) {
                client.send(post(client.replyAddress(), 1000));
            }
            client.awaitResponses(3);
            client.close(); // both closes exchanged: every byte either side wrote has been read
            clientWrote = client.bytesWritten;
            clientRead = client.bytesRead;
        }
        assertTrue(closed.await(10, TimeUnit.SECONDS), "the server never closed the connection");
        assertEquals(1, statistics.getConnectionsTotal());
        assertEquals(0, statistics.getConnections());
        assertEquals(3, statistics.getReceivedMessages(), "the three request messages");
        assertEquals(3, statistics.getSentMessages(), "the three response messages");
        assertEquals(clientWrote, statistics.getReceivedBytes(), "every byte the client wrote");
        assertEquals(clientRead, statistics.getSentBytes(), "every byte the client read");
    }

    /**
     * Jetty's dump (the server's {@code dump} JMX operation, {@code jetty.dump.stop}) shows an AMQP connection as it
     * shows an HTTP one's state: after its end point, the client's container-id and user, messages in and out.
     */
    @Test
    void jettysDumpShowsAnAmqpConnectionsClientAndItsMessages() throws Exception {
        start();
        try (AmqpSocketClient client = AmqpSocketClient.connect(connector.getLocalPort(), "/echo",
                AmqpSocketClient.defaultConfig().containerId("orders-client-7"))) {
            for (int i = 0; i < 2; i++) {
                client.send(post(client.replyAddress(), 10));
            }
            client.awaitResponses(2);
            // The response is on the wire before Jetty's end of the request runs on the servlet's thread.
            Eventually.until(() -> factory.getRequestsActive() == 0, () -> "a request never ended");
            String dump = server.dump();
            String line = Arrays.stream(dump.split("\n")).filter(l -> l.contains("AmqpConnection@")).findFirst()
                    .orElseThrow(() -> new AssertionError("no AMQP connection in the dump:\n" + dump));
            assertTrue(line.contains("{ACTIVE,container-id=orders-client-7,user=anonymous,in=2,out=2,active=0}"),
                    line);
        }
    }

    @Test
    void anMBeanContainerShowsTheFactoryItsBudgetAndItsConnectionsWithLiveValues() throws Exception {
        start();
        ObjectName factoryName = only("io.amqpservlet.jetty:type=amqpconnectionfactory,*");
        Set<String> attributes = new TreeSet<>();
        for (MBeanAttributeInfo info : mbeans.getMBeanInfo(factoryName).getAttributes()) {
            attributes.add(info.getName());
        }
        assertTrue(attributes.containsAll(Set.of("linkCredit", "maxConnections", "maxHandshakingConnections",
                "maxBufferedBytes", "maxFrameSize", "maxMessageSize", "requestTimeout", "connectionsOpen",
                "connectionsHandshaking", "bufferedBytes", "freeBytes", "requestsServed", "requestsRefused",
                "requestsReleased", "expiredRequests", "requestsTimedOut", "lateResponses", "requestsActive",
                "channelMax", "handleMax", "maxLinksPerConnection", "maxLinkBytesPerConnection", "maxDeliveriesInFlight", "sessionIncomingWindow",
                "maxUnsettledSentDeliveries", "maxBufferedMessagesPerLink", "maxBufferedBytesPerConnection",
                "idleTimeout", "minPeerIdleTimeout", "partialFrameTimeout", "saslTimeout",
                "maxFailedLoginsPerAddress", "failedLoginsWindowMillis", "maxDecodeDepth", "maxDecodeElements")),
                attributes.toString());
        assertEquals(100, mbeans.getAttribute(factoryName, "linkCredit"));
        // The engine's limits, as the factory's engine configuration has them.
        assertEquals(1024, mbeans.getAttribute(factoryName, "maxLinksPerConnection"));
        assertEquals(32 * 1024, mbeans.getAttribute(factoryName, "maxLinkBytesPerConnection"));
        assertEquals(16_384, mbeans.getAttribute(factoryName, "maxUnsettledSentDeliveries"));
        assertEquals(100L, mbeans.getAttribute(factoryName, "minPeerIdleTimeout"));
        assertEquals(30_000L, mbeans.getAttribute(factoryName, "partialFrameTimeout"));
        assertEquals(64, mbeans.getAttribute(factoryName, "maxDecodeDepth"));
        assertEquals(1 << 20, mbeans.getAttribute(factoryName, "maxDecodeElements"));
        assertEquals(0L, mbeans.getAttribute(factoryName, "requestsServed"));

        try (AmqpSocketClient client = AmqpSocketClient.connect(connector.getLocalPort(), "/echo")) {
            client.send(post(client.replyAddress(), 10));
            client.awaitResponses(1);
            assertEquals(1L, mbeans.getAttribute(factoryName, "requestsServed"));
            // The response is on the wire before Jetty's end of the request runs on the servlet's thread.
            Eventually.until(() -> (int) mbeans.getAttribute(factoryName, "requestsActive") == 0,
                    () -> "the one request never ended");
            assertEquals(1, mbeans.getAttribute(factoryName, "connectionsOpen"));
            ObjectName budget = only("io.amqpservlet.jetty:type=amqpserverbudget,*");
            assertEquals(1, mbeans.getAttribute(budget, "connections"));
            assertEquals(AmqpServerBudget.DEFAULT_MAX_BUFFERED_BYTES, (long) mbeans.getAttribute(budget, "freeBytes")
                    + (long) mbeans.getAttribute(budget, "bufferedBytes"));
            ObjectName connections = only("io.amqpservlet.jetty:type=gracefulamqpconnections,*");
            assertEquals(1, mbeans.getAttribute(connections, "size"));

            // A limit changed through JMX is the factory's.
            mbeans.setAttribute(budget, new javax.management.Attribute("maxConnections", 7));
            assertEquals(7, factory.getMaxConnections());
            assertEquals(AmqpServerBudget.DEFAULT_MAX_FAILED_LOGINS_PER_ADDRESS,
                    mbeans.getAttribute(budget, "maxFailedLoginsPerAddress"));
            assertEquals(AmqpServerBudget.DEFAULT_FAILED_LOGINS_WINDOW_MILLIS,
                    mbeans.getAttribute(budget, "failedLoginsWindowMillis"));
            assertEquals(0L, mbeans.getAttribute(budget, "refusedByMaxFailedLoginsPerAddress"));
            assertEquals(0, mbeans.getAttribute(budget, "failedLoginAddresses"));
            assertEquals(0L, mbeans.getAttribute(budget, "failedLoginAddressesEvicted"));
            mbeans.setAttribute(budget, new javax.management.Attribute("maxFailedLoginsPerAddress", 5));
            assertEquals(5, factory.getMaxFailedLoginsPerAddress());
            mbeans.setAttribute(factoryName, new javax.management.Attribute("failedLoginsWindowMillis", 30_000L));
            assertEquals(30_000L, factory.getServerBudget().getFailedLoginsWindowMillis());
        }
    }

    @Test
    void anMBeanContainerShowsABrokerAttachmentsStateAsItAttachesAndLosesItsBroker() throws Exception {
        try (EmbeddedArtemis broker = EmbeddedArtemis.start("orders")) {
            server = new Server();
            mbeans = MBeanServerFactory.newMBeanServer();
            server.addBean(new MBeanContainer(mbeans));
            AmqpBrokerAttachment attachment = new AmqpBrokerAttachment(server);
            attachment.setUri("amqp://127.0.0.1:" + broker.port() + "/orders");
            attachment.setReconnectDelay(50, 50);
            server.addConnector(attachment);
            ServletContextHandler context = new ServletContextHandler();
            context.addServlet(new ServletHolder(new TestServlets.Echo()), "/*");
            server.setHandler(context);
            server.start();
            ObjectName name = only("io.amqpservlet.jetty:type=amqpbrokerattachment,*");
            awaitAttribute(name, "state", "ATTACHED");
            assertEquals(true, mbeans.getAttribute(name, "attached"));
            assertEquals(1L, mbeans.getAttribute(name, "connectCount"));
            assertEquals("127.0.0.1:" + broker.port(), mbeans.getAttribute(name, "broker"));
            broker.stop();
            awaitAttribute(name, "attached", false);
            Eventually.until(() -> (int) mbeans.getAttribute(name, "failures") >= 2,
                    () -> "no failures counted while the broker is down");
            broker.startAgain();
            awaitAttribute(name, "state", "ATTACHED");
            assertEquals(0, mbeans.getAttribute(name, "failures"));
            assertTrue((long) mbeans.getAttribute(name, "connectCount") >= 2);
        }
    }

    private void awaitAttribute(ObjectName name, String attribute, Object value) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!value.equals(mbeans.getAttribute(name, attribute))) {
            assertTrue(System.nanoTime() < deadline, attribute + " never became " + value + ": "
                    + mbeans.getAttribute(name, attribute));
            Thread.sleep(10);
        }
    }

    private ObjectName only(String pattern) throws Exception {
        Set<ObjectName> names = mbeans.queryNames(new ObjectName(pattern), null);
        assertEquals(1, names.size(), pattern + " among " + Arrays.toString(
                mbeans.queryNames(new ObjectName("io.amqpservlet.jetty:*"), null).toArray()));
        return names.iterator().next();
    }
}
