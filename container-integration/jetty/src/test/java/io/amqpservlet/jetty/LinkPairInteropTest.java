package io.amqpservlet.jetty;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.DeliveryMode;
import org.apache.qpid.protonj2.client.DeliveryState;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.ReceiverOptions;
import org.apache.qpid.protonj2.client.Rejected;
import org.apache.qpid.protonj2.client.Sender;
import org.apache.qpid.protonj2.client.SenderOptions;
import org.apache.qpid.protonj2.client.Session;
import org.apache.qpid.protonj2.client.Tracker;
import org.apache.qpid.protonj2.client.exceptions.ClientLinkRemotelyClosedException;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Link pairing over a real socket, driven by Apache Qpid protonj2-client 1.1.0 the way RabbitMQ 4's Java AMQP 1.0
 * client drives its management API (it is built on protonj2): a sender and a receiver both named
 * {@code management-link-pair}, both at {@code /management}, both settled, with the link property
 * {@code paired = true}; requests with {@code reply-to = "$me"} are answered on the receiver. Also the open's
 * connection properties that client checks, and a RabbitMQ bindings path with path parameters reaching the servlet.
 */
@Timeout(60)
class LinkPairInteropTest {
    private static final long WAIT_SECONDS = 10;
    private static final String PAIR = "management-link-pair";

    /** 200 with "METHOD request-URI" (the raw URI, path parameters and all) and the query. */
    static final class Where extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws java.io.IOException {
            response.setStatus(200);
            response.setContentType("text/plain;charset=utf-8");
            String query = request.getQueryString();
            response.getWriter().print(request.getMethod() + " " + request.getRequestURI()
                    + (query == null ? "" : "?" + query));
        }
    }

    private Server server;
    private int port;
    private Client client;
    private Connection connection;

    @BeforeEach
    void start() throws Exception {
        server = new Server();
        AmqpConnectionFactory amqp = new AmqpConnectionFactory();
        amqp.setConnectionProperty("product", "RabbitMQ");
        amqp.setConnectionProperty("version", "4.0.0");
        amqp.setConnectionProperty("node", "rabbit@gateway");
        ServerConnector connector = new ServerConnector(server, 1, 1, amqp);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        context.addServlet(new ServletHolder(new Where()), "/*");
        server.setHandler(context);
        server.start();
        port = connector.getLocalPort();
        client = Client.create();
        connection = client.connect("127.0.0.1", port, new ConnectionOptions());
    }

    @AfterEach
    void stop() throws Exception {
        try {
            if (client != null) {
                client.close();
            }
        } finally {
            server.stop();
        }
    }

    private static Map<String, Object> paired() {
        return Map.of("paired", Boolean.TRUE);
    }

    private static Sender pairedSender(Session session) throws Exception {
        Sender sender = session.openSender("/management", new SenderOptions().deliveryMode(DeliveryMode.AT_MOST_ONCE)
                .linkName(PAIR).properties(paired()));
        sender.openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
        return sender;
    }

    private static Receiver pairedReceiver(Session session) throws Exception {
        return session.openReceiver("/management", new ReceiverOptions().deliveryMode(DeliveryMode.AT_MOST_ONCE)
                .linkName(PAIR).properties(paired()).creditWindow(100));
    }

    private static Message<Object> request(Object id, String method, String to) {
        Message<Object> m = Message.create((Object) null);
        try {
            m.messageId(id).to(to).subject(method).replyTo("$me");
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        return m;
    }

    @Test
    void theOpenOffersTheConfiguredConnectionProperties() throws Exception {
        Map<String, Object> offered = connection.properties();
        assertEquals("RabbitMQ", offered.get("product"));
        assertEquals("4.0.0", offered.get("version"));
        assertEquals("rabbit@gateway", offered.get("node"));
    }

    @Test
    void meIsAnsweredOnThePairedReceiverPreSettled() throws Exception {
        Session session = connection.openSession();
        Sender sender = pairedSender(session);
        Receiver receiver = pairedReceiver(session);
        receiver.openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(Boolean.TRUE, sender.properties().get("paired"), "the server echoes paired=true");
        assertEquals(Boolean.TRUE, receiver.properties().get("paired"));

        UUID id = UUID.randomUUID();
        sender.send(request(id, "GET", "/queues/orders%20q"));
        Delivery delivery = receiver.receive(WAIT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(delivery, "no response on the paired receiver");
        assertTrue(delivery.remoteSettled(), "the settled pair's response comes pre-settled");
        Message<Object> response = delivery.message();
        assertEquals("200", response.subject());
        assertEquals(id, response.correlationId(), "the message-id comes back with its type");
        assertEquals("GET /queues/orders%20q", new String((byte[]) response.body(), StandardCharsets.UTF_8));
    }

    @Test
    void bindingsPathParametersReachTheServletAsTheyWereSent() throws Exception {
        Session session = connection.openSession();
        Receiver receiver = pairedReceiver(session); // the receiving half first: either order pairs
        Sender sender = pairedSender(session);
        receiver.openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
        String target = "/bindings/src=orders-x;dstq=orders-q;key=k;args=";
        sender.send(request("b-1", "DELETE", target));
        Delivery delivery = receiver.receive(WAIT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(delivery);
        Message<Object> response = delivery.message();
        assertEquals("200", response.subject(), "Jetty's URI compliance lets path parameters through");
        assertEquals("DELETE " + target, new String((byte[]) response.body(), StandardCharsets.UTF_8));
        assertEquals("b-1", response.correlationId());
    }

    @Test
    void meOnALinkThatIsNotPairedIsRejectedWithNotFound() throws Exception {
        Sender plain = connection.openSender("/management");
        Tracker tracker = plain.send(request("m-1", "GET", "/queues/q"));
        tracker.awaitSettlement(WAIT_SECONDS, TimeUnit.SECONDS);
        DeliveryState state = tracker.remoteState();
        Rejected rejected = assertInstanceOf(Rejected.class, state, String.valueOf(state));
        assertEquals("amqp:not-found", rejected.getCondition());
    }

    @Test
    void halvesOnTwoSessionsAreRefused() throws Exception {
        pairedSender(connection.openSession());
        Receiver elsewhere = pairedReceiver(connection.openSession());
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> elsewhere.openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS));
        ClientLinkRemotelyClosedException closed = assertInstanceOf(ClientLinkRemotelyClosedException.class,
                e.getCause());
        assertEquals("amqp:precondition-failed", closed.getErrorCondition().condition());
    }
}
