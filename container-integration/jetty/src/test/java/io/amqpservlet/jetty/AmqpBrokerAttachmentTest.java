package io.amqpservlet.jetty;

import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The attachment's configuration from a URI, and its deadlines against a peer that never answers. */
@Timeout(60)
class AmqpBrokerAttachmentTest {
    @Test
    void aUriNamesTheFailoverListTheCredentialsAndTheAddress() {
        AmqpBrokerAttachment a = new AmqpBrokerAttachment(new Server());
        a.setUri("amqp://app%40corp:s%3Acret%2F@broker1:5673,broker2,[::1]:5674/orders%2Fin");
        assertEquals(List.of("broker1:5673", "broker2:5672", "::1:5674"), a.getBrokers());
        assertEquals(List.of("orders/in"), a.getAddresses());
        assertFalse(a.isTls());
    }

    @Test
    void amqpsMeansTlsOnPort5671AndASecondSlashKeepsALeadingSlashInTheAddress() {
        AmqpBrokerAttachment a = new AmqpBrokerAttachment(new Server());
        a.setUri("amqps://rabbit//queue/orders");
        assertEquals(List.of("rabbit:5671"), a.getBrokers());
        assertEquals(List.of("/queue/orders"), a.getAddresses());
        assertTrue(a.isTls());
    }

    /**
     * At most once, a broker that sends beyond the credit (4 requests at once against a credit of 2, pre-settled, so
     * they cannot be given back): the extra requests wait for a servlet, which the credit still bounds, and every
     * one is served and answered.
     */
    @Test
    void atMostOnceRequestsABrokerSendsBeyondTheCreditWaitForAServlet() throws Exception {
        int requests = 4;
        try (OverrunningBroker broker = new OverrunningBroker(requests, 100);
             AttachedGateway g = new AttachedGateway("amqp://127.0.0.1:" + broker.port() + "/orders", 2)) {
            g.attachment.setAtMostOnce(true);
            g.start().awaitAttached(10_000);
            Eventually.within(20, () -> broker.responses() >= requests,
                    () -> broker.responses() + " of " + requests + " answered; " + broker.failures());
            assertEquals(2, broker.firstCredit(), "the credit the broker overran");
            assertEquals(requests, g.work.calls.get(), "served");
            assertTrue(g.work.mostInside.get() <= 2, "servlet concurrency " + g.work.mostInside.get());
            assertEquals(null, broker.closeError(), "the gateway closed");
            assertEquals(2, g.attachment.getRequestsBeyondCredit(), "counted beyond the credit");
            assertEquals(List.of(), broker.failures());
        }
    }

    /**
     * A broker that overruns the credit four times over (12 at once against 2: 2 served, 8 held, then one more) does
     * not keep to it: the attachment closes the connection, saying so, rather than hold what it sends without end;
     * the servlets still run 2 at most.
     */
    @Test
    void atMostOnceABrokerThatIgnoresTheCreditLosesTheConnection() throws Exception {
        try (OverrunningBroker broker = new OverrunningBroker(12, 300);
             AttachedGateway g = new AttachedGateway("amqp://127.0.0.1:" + broker.port() + "/orders", 2)) {
            g.attachment.setAtMostOnce(true);
            // The broker sends its 12 as soon as it has credit, maybe before the attachment counts as attached.
            g.start();
            Eventually.within(20, () -> broker.closeError() != null,
                    () -> "the gateway did not close; " + broker.failures());
            assertEquals("amqp:connection:forced the broker sent 9 requests beyond the credit of 2",
                    broker.closeError());
            assertTrue(g.work.mostInside.get() <= 2, "servlet concurrency " + g.work.mostInside.get());
        }
    }

    @Test
    void badUrisAreRefusedWithTheReason() {
        AmqpBrokerAttachment a = new AmqpBrokerAttachment(new Server());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> a.setUri("http://broker/orders"))
                .getMessage().contains("amqp or amqps"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> a.setUri("amqp://broker"))
                .getMessage().contains("no request address"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> a.setUri("amqp://broker/q?x=1"))
                .getMessage().contains("no query"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> a.setUri("amqp://a,,b/q"))
                .getMessage().contains("empty host"));
        assertThrows(IllegalArgumentException.class, () -> a.setCredit(-1));
        assertThrows(IllegalArgumentException.class, () -> a.setReconnectDelay(10, 5));
    }

    /**
     * A connection that cannot be made is said in words with the broker's address, in the warning and in
     * {@code lastFailure}: no Java exception's class, and nothing it said lost.
     */
    @Test
    void aConnectionThatCannotBeMadeIsSaidInWordsWithTheBrokersAddress() throws Exception {
        // Port 1 on loopback: nothing listens, and it is not in the ephemeral range a socket could connect to itself
        // on. A name under .invalid (RFC 6761) never resolves.
        for (String[] broker : new String[][] {{"127.0.0.1:1", "connection refused"},
                {"no-such-host.invalid:5672", "unknown host"}}) {
            try (LogCapture log = LogCapture.of(org.eclipse.jetty.logging.JettyLevel.INFO, "io.amqpservlet")) {
                Server server = new Server();
                AmqpBrokerAttachment a = new AmqpBrokerAttachment(server);
                a.setUri("amqp://" + broker[0] + "/orders");
                a.setReconnectDelay(60_000, 60_000); // one attempt
                server.addConnector(a);
                server.start();
                try {
                    String line = log.await("; connecting to ");
                    String said = "cannot connect to " + broker[0] + ": " + broker[1];
                    assertEquals(said, a.getLastFailure());
                    assertTrue(line.contains(said + "; connecting to " + broker[0] + " in "), line);
                    assertFalse(line.contains("java.") || line.contains("Exception"), line);
                } finally {
                    server.stop();
                }
            }
        }
    }

    @Test
    void aBrokerThatNeverAnswersTheHandshakeIsGivenUpOnAtTheAttachTimeoutAndTriedAgain() throws Exception {
        List<Socket> accepted = new CopyOnWriteArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        Socket s = silent.accept(); // reads nothing, answers nothing
                        accepted.add(s);
                    }
                } catch (java.io.IOException closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            Server server = new Server();
            AmqpBrokerAttachment a = new AmqpBrokerAttachment(server);
            a.setUri("amqp://127.0.0.1:" + silent.getLocalPort() + "/orders");
            a.setAttachTimeout(300);
            a.setReconnectDelay(10, 50);
            server.addConnector(a);
            server.start();
            try {
                Eventually.until(() -> accepted.size() >= 3, () -> "connections made: " + accepted.size());
                assertFalse(a.isAttached());
                // Each earlier connection was closed by the gateway when its deadline passed.
                Socket first = accepted.get(0);
                first.setSoTimeout(5_000);
                try (InputStream in = first.getInputStream()) {
                    while (in.read() >= 0) {
                        // the protocol header the gateway sent, then end of stream
                    }
                }
            } finally {
                server.stop();
                for (Socket s : accepted) {
                    s.close();
                }
            }
        }
    }

    @Test
    void theOpenAnnouncesHalfTheIdleTimeoutTheFactorysUntilOneIsSet() throws Exception {
        try (UnansweringBroker broker = UnansweringBroker.start()) {
            AmqpBrokerAttachment byDefault = new AmqpBrokerAttachment(new Server());
            assertEquals(60_000, byDefault.getIdleTimeout(), "the factory's engine idle timeout");
            assertEquals(30_000, announcedBy(byDefault, broker, 1));
            AmqpBrokerAttachment set = new AmqpBrokerAttachment(new Server());
            set.setIdleTimeout(4_000);
            assertEquals(2_000, announcedBy(set, broker, 2));
            AmqpBrokerAttachment none = new AmqpBrokerAttachment(new Server());
            none.setIdleTimeout(0);
            assertEquals(-1, announcedBy(none, broker, 3), "no idle timeout: none announced");
            assertThrows(IllegalArgumentException.class, () -> none.setIdleTimeout(-1));
            assertEquals(List.of(), broker.failures());
        }
    }

    /**
     * A broker is a peer too: the factory's shortest idle-time-out a peer may announce (here raised to 1 s) holds
     * for it as for a client, so a broker that announces 500 ms (which would have us send something every 250 ms)
     * gets a close with {@code amqp:resource-limit-exceeded} naming both (AMQP 1.0 §2.4.5), and the attachment
     * never counts as attached.
     */
    @Test
    void aBrokerAnnouncingAnIdleTimeoutBelowTheFactorysMinimumIsClosedWithTheReason() throws Exception {
        try (UnansweringBroker broker = UnansweringBroker.announcing(500)) {
            Server server = new Server();
            AmqpBrokerAttachment a = new AmqpBrokerAttachment(server);
            a.getConnectionFactory().getEngineConfig().minPeerIdleTimeoutMillis(1_000);
            a.setUri("amqp://127.0.0.1:" + broker.port() + "/orders");
            a.setReconnectDelay(10, 50);
            a.getConnectionFactory().setCloseTimeout(200); // the broker answers no close
            server.addConnector(a);
            server.start();
            try {
                Eventually.until(() -> !broker.closeErrors().isEmpty(),
                        () -> "no close; opens seen: " + broker.opened() + ", attaches: " + broker.attaches());
            } finally {
                server.stop();
            }
            assertEquals("amqp:resource-limit-exceeded idle-time-out 500 ms is below the shortest this side keeps, "
                    + "1000 ms", broker.closeErrors().get(0));
            assertFalse(a.isAttached());
            assertEquals(List.of(), broker.failures());
        }
    }

    /** The idle-time-out of the open that {@code a} sends as the {@code n}th connection {@code broker} sees. */
    private static long announcedBy(AmqpBrokerAttachment a, UnansweringBroker broker, int n) throws Exception {
        Server server = a.getServer();
        a.setUri("amqp://127.0.0.1:" + broker.port() + "/orders");
        server.addConnector(a);
        server.start();
        try {
            Eventually.until(() -> broker.opened() >= n, () -> "opens seen: " + broker.opened());
            return broker.announcedIdleTimeouts().get(n - 1);
        } finally {
            server.stop();
        }
    }

    @Test
    void anAttachNeverAnsweredIsLoggedOnceForEachConnectionMadeAgain() throws Exception {
        try (UnansweringBroker broker = UnansweringBroker.start();
             LogCapture log = LogCapture.of(org.eclipse.jetty.logging.JettyLevel.INFO, "io.amqpservlet")) {
            Server server = new Server();
            AmqpBrokerAttachment a = new AmqpBrokerAttachment(server);
            a.setUri("amqp://127.0.0.1:" + broker.port() + "/orders");
            a.setAttachTimeout(300);
            a.setReconnectDelay(10, 50);
            a.getConnectionFactory().setCloseTimeout(200); // the broker answers no close either
            server.addConnector(a);
            server.start();
            try {
                Eventually.within(20, () -> broker.connections() >= 4,
                        () -> "connections made: " + broker.connections());
            } finally {
                server.stop();
            }
            assertEquals(List.of(), broker.failures());
            assertTrue(broker.attaches() >= 3, "attaches sent: " + broker.attaches());
            List<String> warnings = new java.util.ArrayList<>();
            for (String line : log.lines()) {
                if (line.contains(":WARN") || line.contains(":ERROR")) {
                    warnings.add(line);
                }
            }
            // One line per connection given up on: what was not answered, and when the next attempt is.
            List<String> unanswered = log.linesWith("did not answer the attach of request link orders");
            int attempts = unanswered.size();
            assertTrue(attempts >= 3 && attempts <= broker.connections(), unanswered.toString());
            assertEquals(attempts, warnings.size(), "one line per attempt: " + warnings);
            // The close that gives up says why, once per connection (AMQP 1.0 §2.4.3), however many links it ends.
            assertEquals(1, broker.mostClosesOnAConnection());
            for (String error : broker.closeErrors()) {
                assertTrue(error.startsWith("amqp:connection:forced the broker did not answer the attach of request "
                        + "link orders within 300 ms"), error);
            }
        }
    }

    @Test
    void aSocketThatConnectedToItselfIsDroppedAtOnceSoThePortStaysFreeForTheBroker() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        Server server = new Server();
        AmqpBrokerAttachment a = new AmqpBrokerAttachment(server);
        a.setUri("amqp://127.0.0.1:" + port + "/orders");
        a.setReconnectDelay(10, 20);
        // Bound to the broker's own free port, the socket meets itself (TCP's simultaneous open), as an ephemeral
        // port now and then does when a local broker is down.
        a.getBean(org.eclipse.jetty.io.ClientConnector.class)
                .setBindAddress(new java.net.InetSocketAddress("127.0.0.1", port));
        server.addConnector(a);
        server.start();
        try {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (a.getFailures() < 3) {
                assertTrue(System.nanoTime() < deadline, "failures: " + a.getFailures());
                Thread.sleep(5);
            }
            assertEquals(0, a.getConnectCount(), "no AMQP connection was made on a socket connected to itself");
            assertFalse(a.isAttached());
        } finally {
            server.stop();
        }
        // The port was never held for long: a broker can listen there at once.
        try (ServerSocket broker = new ServerSocket()) {
            broker.setReuseAddress(true);
            broker.bind(new java.net.InetSocketAddress("127.0.0.1", port));
        }
    }
}
