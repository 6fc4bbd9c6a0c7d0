package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.Begin;
import io.amqpservlet.protocol.types.transport.Close;
import io.amqpservlet.protocol.types.transport.Detach;
import io.amqpservlet.protocol.types.transport.End;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Flow;
import io.amqpservlet.protocol.types.transport.Open;
import io.amqpservlet.protocol.types.transport.Role;
import io.amqpservlet.protocol.types.transport.Transfer;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.jmx.MBeanContainer;
import org.eclipse.jetty.logging.JettyLevel;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What an operator reads of the AMQP errors a listener sends its clients, from a real Jetty server and raw sockets:
 * each close, end and detach this side sends with an error is counted by scope and condition (the factory's getters
 * and JMX attributes, and a watch for meters), and a session ended or a link detached here is one INFO line naming
 * the peer, as a connection closed here is already. Errors the client sends are the client's, not counted.
 *
 * <p>The server's limits are small so that each error is cheap to cause: 2 links per connection, 1 KiB messages.
 */
@Timeout(60)
class AmqpErrorsSentTest {
    private static final String LISTENER_LOG = "io.amqpservlet.jetty.internal.exchange.ListenerHandler";

    private Server server;
    private AmqpConnectionFactory factory;
    private MBeanServer mbeans;
    private int port;

    @BeforeEach
    void start() throws Exception {
        server = new Server();
        mbeans = MBeanServerFactory.newMBeanServer(); // a server of its own: other tests' beans do not show here
        server.addBean(new MBeanContainer(mbeans));
        factory = new AmqpConnectionFactory(new HttpConfiguration(), new EngineConfig().anonymousAllowed(true)
                .saslRequired(false).maxLinksPerConnection(2).maxMessageSizeBytes(1024));
        ServerConnector connector = new ServerConnector(server, 1, 1, factory);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new TestServlets.Echo()), "/echo");
        server.setHandler(context);
        server.start();
        port = connector.getLocalPort();
    }

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    private RawAmqpPeer opened() throws IOException {
        RawAmqpPeer peer = new RawAmqpPeer(port);
        peer.writeHeader(ProtocolHeader.AMQP);
        peer.writeFrame(0, new Open().containerId("raw-peer"));
        peer.readHeader();
        peer.readUntil(Open.class);
        peer.writeFrame(0, new Begin().nextOutgoingId(0).incomingWindow(1000).outgoingWindow(1000).handleMax(100));
        peer.readUntil(Begin.class);
        return peer;
    }

    private static Attach sender(int handle, String name) {
        Attach a = new Attach().name(name).handle(handle).role(Role.SENDER).initialDeliveryCount(0);
        a.source().present(true);
        a.target().present(true).address("/echo");
        return a;
    }

    @Test
    void errorsSentAreCountedByScopeAndConditionLoggedOnceEachAndShownOverJmx() throws Exception {
        List<String> kinds = new CopyOnWriteArrayList<>();
        factory.watchErrorsSent((scope, condition) -> kinds.add(scope + " " + condition));
        try (LogCapture log = LogCapture.of(JettyLevel.INFO, LISTENER_LOG)) {
            // A link: a request over the 1 KiB limit detaches its link. Its name holds a line break, which the log
            // line must not carry.
            try (RawAmqpPeer peer = opened()) {
                peer.writeFrame(0, sender(0, "big\nrequests"));
                peer.readUntil(Attach.class);
                peer.readUntil(Flow.class);
                byte[] body = new byte[2048];
                byte[] tag = {1};
                peer.writeTransfer(0, new Transfer().handle(0).deliveryId(0).deliveryTag(tag, 0, 1).messageFormat(0),
                        body, body.length);
                Detach detach = peer.readUntil(Detach.class);
                assertTrue(detach.error().is(ErrorConditions.LINK_MESSAGE_SIZE_EXCEEDED), detach.toString());
                String line = log.await("AMQP link 'big?requests' from 127.0.0.1:");
                assertTrue(line.contains("INFO") && line.contains("detached: amqp:link:message-size-exceeded "
                        + "message exceeds 1024 bytes"), line);

                // A session: a third link on a connection that may have two ends its session.
                peer.writeFrame(0, sender(1, "second"));
                peer.readUntil(Attach.class);
                peer.writeFrame(0, sender(2, "third"));
                End end = peer.readUntil(End.class);
                assertTrue(end.error().is(ErrorConditions.RESOURCE_LIMIT_EXCEEDED), end.toString());
                line = log.await("AMQP session 0 from 127.0.0.1:");
                assertTrue(line.contains("INFO") && line.contains("ended: amqp:resource-limit-exceeded"), line);
            }
            // A connection: a frame whose body is no performative.
            try (RawAmqpPeer peer = opened()) {
                peer.write(new byte[] {0, 0, 0, 13, 2, 0, 0, 0, (byte) 0xa1, 3, 'b', 'a', 'd'});
                assertTrue(peer.readUntil(Close.class).error().is(ErrorConditions.DECODE_ERROR));
                peer.awaitEof(5_000);
            }
            // The client's own errors: a link it detaches and a connection it closes with one.
            try (RawAmqpPeer peer = opened()) {
                peer.writeFrame(0, sender(0, "given-up"));
                peer.readUntil(Attach.class);
                Detach detach = new Detach().handle(0).closed(true);
                detach.error().condition(ErrorConditions.LINK_DETACH_FORCED).description("the client gave up");
                peer.writeFrame(0, detach);
                peer.readUntil(Detach.class);
                Close close = new Close();
                close.error().condition(ErrorConditions.INTERNAL_ERROR).description("the client broke");
                peer.writeFrame(0, close);
                peer.readUntil(Close.class);
                peer.awaitEof(5_000);
            }
            Eventually.until(() -> factory.getConnectionsOpen() == 0, () -> "connections still open");

            assertEquals(Map.of("amqp:link:message-size-exceeded", 1L), factory.getLinkErrorsSent());
            assertEquals(Map.of("amqp:resource-limit-exceeded", 1L), factory.getSessionErrorsSent());
            assertEquals(Map.of("amqp:decode-error", 1L), factory.getConnectionErrorsSent());
            assertEquals(1, factory.getErrorsSent("link", "amqp:link:message-size-exceeded"));
            assertEquals(0, factory.getErrorsSent("connection", "amqp:internal-error"), "the client's, not ours");
            assertEquals(Set.of("link amqp:link:message-size-exceeded", "session amqp:resource-limit-exceeded",
                    "connection amqp:decode-error"), Set.copyOf(kinds));
            assertEquals(3, kinds.size(), "each kind is told once: " + kinds);
            assertEquals(1, log.linesWith("AMQP link ").size(), log.lines().toString());
            assertEquals(1, log.linesWith("AMQP session ").size(), log.lines().toString());
            assertEquals(List.of(), log.linesWith("\tat "), "no stack trace");
        }

        ObjectName name = mbeans.queryNames(new ObjectName("io.amqpservlet.jetty:type=amqpconnectionfactory,*"), null)
                .iterator().next();
        assertEquals(factory.getLinkErrorsSent(), mbeans.getAttribute(name, "linkErrorsSent"));
        assertEquals(factory.getSessionErrorsSent(), mbeans.getAttribute(name, "sessionErrorsSent"));
        assertEquals(factory.getConnectionErrorsSent(), mbeans.getAttribute(name, "connectionErrorsSent"));

        List<String> later = new CopyOnWriteArrayList<>();
        factory.watchErrorsSent((scope, condition) -> later.add(scope + " " + condition));
        assertEquals(Set.copyOf(kinds), Set.copyOf(later), "a watch added later hears of the kinds so far");
    }
}
