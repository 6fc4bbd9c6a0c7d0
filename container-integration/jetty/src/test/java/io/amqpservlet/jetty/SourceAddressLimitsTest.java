package io.amqpservlet.jetty;

import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.transport.Close;
import io.amqpservlet.protocol.types.transport.Open;
import io.amqpservlet.protocol.types.transport.Performatives;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.Sender;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.ProxyConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The limits per source address of an {@link AmqpConnectionFactory} (docs/jetty.md, "Limits per source address"),
 * over real sockets bound to loopback addresses of their own (127.0.0.2, 127.0.0.3) beside a protonj2-client 1.1.0
 * from 127.0.0.1: one address past its connection limit is refused with the limit named, while another is served; a
 * full handshake limit ends its oldest stalled handshake for a newcomer; and behind Jetty's
 * {@link ProxyConnectionFactory} the address counted is the one the PROXY protocol names.
 */
@Timeout(60)
class SourceAddressLimitsTest {
    private Server server;
    private ServerConnector connector;
    private AmqpConnectionFactory factory;
    private Client client;

    private void start(boolean proxyProtocol) throws Exception {
        server = new Server();
        factory = new AmqpConnectionFactory();
        ConnectionFactory[] factories = proxyProtocol
                ? new ConnectionFactory[] {new ProxyConnectionFactory(AmqpConnectionFactory.PROTOCOL), factory}
                : new ConnectionFactory[] {factory};
        connector = new ServerConnector(server, 1, 1, factories);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new TestServlets.Echo()), "/echo/*");
        server.setHandler(context);
        server.start();
        client = Client.create();
    }

    @AfterEach
    void stop() throws Exception {
        try {
            if (client != null) {
                client.close();
            }
        } finally {
            if (server != null) {
                server.stop();
            }
        }
    }

    /** A peer on {@code localAddress}: SASL ANONYMOUS and open, pipelined, then it reads up to the server's open. */
    private RawAmqpPeer open(String localAddress, String proxyLine) throws IOException {
        RawAmqpPeer peer = new RawAmqpPeer(localAddress, connector.getLocalPort());
        if (proxyLine != null) {
            peer.write(proxyLine.getBytes(StandardCharsets.US_ASCII));
        }
        peer.writeHeader(ProtocolHeader.SASL);
        peer.writeSasl(new io.amqpservlet.protocol.types.sasl.SaslFrames().init().clear()
                .mechanism(Symbol.of("ANONYMOUS")));
        peer.writeHeader(ProtocolHeader.AMQP);
        peer.writeFrame(0, new Performatives().open().clear().containerId("raw-" + localAddress));
        assertEquals(ProtocolHeader.SASL, peer.readHeader());
        peer.readFrame(); // mechanisms
        peer.readFrame(); // outcome
        assertEquals(ProtocolHeader.AMQP, peer.readHeader());
        peer.readUntil(Open.class);
        return peer;
    }

    /** Reads the close that refuses {@code peer}: its condition and description. */
    private static String refusal(RawAmqpPeer peer) throws IOException {
        Close close = peer.readUntil(Close.class);
        assertEquals("amqp:resource-limit-exceeded", close.error().condition().toString());
        return close.error().description().toString();
    }

    private static void await(IntSupplier count, int expected, String what) throws Exception {
        Eventually.until(() -> count.getAsInt() == expected,
                () -> what + ": " + count.getAsInt() + ", not " + expected);
    }

    /** protonj2 from 127.0.0.1 connects and is answered. */
    private void servedFromAnotherAddress() throws Exception {
        try (Connection c = client.connect("127.0.0.1", connector.getLocalPort())) {
            Receiver replies = c.openDynamicReceiver();
            Sender sender = c.openAnonymousSender();
            sender.send(Message.create("hi").to("/echo").subject("POST").replyTo(replies.address()));
            Delivery response = replies.receive(10, TimeUnit.SECONDS);
            assertNotNull(response, "no response within 10 s");
            assertEquals("200", response.message().subject());
        }
    }

    @Test
    void anAddressPastItsConnectionLimitIsRefusedWithTheLimitNamedWhileAnotherAddressIsServed() throws Exception {
        start(false);
        factory.setMaxConnectionsPerAddress(2);
        try (RawAmqpPeer first = open("127.0.0.2", null); RawAmqpPeer second = open("127.0.0.2", null);
             RawAmqpPeer third = open("127.0.0.2", null)) {
            String why = refusal(third);
            assertTrue(why.contains("127.0.0.2") && why.contains("maxConnectionsPerAddress"), why);
            assertEquals(1, factory.getServerBudget().getRefusedByMaxConnectionsPerAddress());
            assertEquals(1, factory.getServerBudget().getRefusedBy("maxConnectionsPerAddress"));
            assertEquals(Map.of("maxConnections", 0L, "maxHandshakingConnections", 0L, "maxConnectionsPerAddress", 1L,
                    "maxHandshakesPerAddress", 0L, "maxFailedLoginsPerAddress", 0L),
                    factory.getServerBudget().getRefusedByLimit(), "every limit, by its setting's name");
            assertThrows(IllegalArgumentException.class, () -> factory.getServerBudget().getRefusedBy("maxBytes"));
            assertEquals(1, factory.getConnectionsRefusedPerAddress());
            assertEquals("127.0.0.2: 2 open, 1 in handshake", factory.getServerBudget().getBusiestSourceAddress());
            servedFromAnotherAddress();
            first.assertStillOpen(300);
            second.assertStillOpen(300);
        }
        await(factory.getServerBudget()::getSourceAddresses, 0, "every address forgotten with its connections");
    }

    @Test
    void aFullHandshakeLimitEndsItsOldestStalledHandshakeToServeANewClient() throws Exception {
        start(false);
        factory.setMaxHandshakingConnections(2);
        try (RawAmqpPeer oldest = new RawAmqpPeer("127.0.0.2", connector.getLocalPort())) {
            oldest.writeHeader(ProtocolHeader.SASL); // and then nothing: a stalled handshake
            await(factory::getConnectionsHandshaking, 1, "the first silent handshake");
            // A handshake's age counts from its accept: the newer one connects later, not merely writes later.
            Thread.sleep(200);
            try (RawAmqpPeer newer = new RawAmqpPeer("127.0.0.3", connector.getLocalPort())) {
                newer.writeHeader(ProtocolHeader.SASL);
                await(factory::getConnectionsHandshaking, 2, "two silent handshakes");
                Thread.sleep(AmqpServerBudget.HANDSHAKE_STALLED_MILLIS + 100);
                // The limit is full, and both have stalled: the oldest goes, not the client that comes now.
                servedFromAnotherAddress();
                oldest.awaitEof(5_000);
                newer.assertStillOpen(300); // only the oldest made room
                assertEquals(1, factory.getServerBudget().getEvictedByMaxHandshakingConnections());
                assertEquals(0, factory.getConnectionsRefused());
            }
        }
    }

    @Test
    void behindAProxyTheLimitsCountTheAddressThePROXYProtocolNames() throws Exception {
        start(true);
        factory.setMaxConnectionsPerAddress(1);
        // Every socket comes from 127.0.0.1, the proxy; the PROXY line names the client behind it.
        String client7 = "PROXY TCP4 198.51.100.7 127.0.0.1 40000 5672\r\n";
        String client8 = "PROXY TCP4 198.51.100.8 127.0.0.1 40001 5672\r\n";
        try (RawAmqpPeer first = open("127.0.0.1", client7); RawAmqpPeer again = open("127.0.0.1", client7);
             RawAmqpPeer other = open("127.0.0.1", client8)) {
            String why = refusal(again);
            assertTrue(why.startsWith("198.51.100.7 has 1 AMQP connections open"), why);
            assertEquals(2, factory.getConnectionsOpen(), "198.51.100.7's first, and 198.51.100.8");
            assertEquals(2, factory.getSourceAddresses());
            first.assertStillOpen(300);
            other.assertStillOpen(300);
        }
    }
}
