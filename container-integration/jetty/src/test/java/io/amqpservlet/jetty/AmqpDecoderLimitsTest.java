package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.protocol.codec.DecoderLimits;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.Rejected;
import org.apache.qpid.protonj2.client.Sender;
import org.apache.qpid.protonj2.client.Tracker;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.jmx.MBeanContainer;
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
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The decoder limits a factory is configured with, not the defaults, bound what a real client (protonj2-client
 * 1.1.0) may nest in a request's typed body, whether the message comes in one frame or in many (streamed), and the
 * factory shows them over JMX.
 */
@Timeout(60)
class AmqpDecoderLimitsTest {
    private static final long WAIT_SECONDS = 10;
    /** Well within the default 64 levels: only the configured limit refuses it. */
    private static final int MAX_DEPTH = 8;

    private Server server;
    private MBeanServer mbeans;
    private Client client;
    private Sender sender;
    private Receiver replies;

    @BeforeEach
    void start() throws Exception {
        server = new Server();
        mbeans = MBeanServerFactory.newMBeanServer(); // a server of its own: no other test's beans
        server.addBean(new MBeanContainer(mbeans));
        ServerConnector connector = new ServerConnector(server, new AmqpConnectionFactory(new HttpConfiguration(),
                new EngineConfig().anonymousAllowed(true).decoderLimits(new DecoderLimits(MAX_DEPTH, 1000))));
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new TestServlets.Echo()), "/echo/*");
        server.setHandler(context);
        server.start();
        client = Client.create();
        Connection connection = client.connect("127.0.0.1", connector.getLocalPort(), new ConnectionOptions());
        replies = connection.openDynamicReceiver();
        sender = connection.openAnonymousSender();
        sender.openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws Exception {
        try {
            client.close();
        } finally {
            server.stop();
        }
    }

    /** Lists {@code levels} deep (the outermost counts), holding {@code innermost}. */
    private static Object nested(int levels, Object innermost) {
        Object value = List.of(innermost);
        for (int i = 1; i < levels; i++) {
            value = List.of(value);
        }
        return value;
    }

    private Tracker send(Object body) throws Exception {
        Message<Object> request = Message.create(body).to("/echo").subject("POST");
        request.replyTo(replies.address());
        Tracker tracker = sender.send(request);
        tracker.awaitSettlement(WAIT_SECONDS, TimeUnit.SECONDS);
        return tracker;
    }

    @Test
    void aTypedBodyNestedPastTheConfiguredDepthIsADecodeErrorWholeOrStreamed() throws Exception {
        // Past the configured depth, in one frame and in several (a string longer than the 64 KiB frame inside).
        for (Object innermost : List.of("x", "y".repeat(200_000))) {
            Tracker tracker = send(nested(MAX_DEPTH + 2, innermost));
            Rejected rejected = assertInstanceOf(Rejected.class, tracker.remoteState(),
                    String.valueOf(tracker.remoteState()));
            assertEquals("amqp:decode-error", rejected.getCondition(), rejected.getDescription());
        }
        // Within it: served.
        Tracker tracker = send(nested(MAX_DEPTH - 2, "x"));
        assertEquals(true, tracker.remoteState().isAccepted(), String.valueOf(tracker.remoteState()));
        assertNotNull(replies.receive(WAIT_SECONDS, TimeUnit.SECONDS), "the response");

        // More application-properties than the configured elements per map, whole and streamed (a data body past a
        // frame): the header sections of a streamed request are read within the configured limits too.
        for (int bodyBytes : new int[] {10, 200_000}) {
            Message<Object> request = Message.create((Object) new byte[bodyBytes]).to("/echo").subject("POST");
            request.replyTo(replies.address());
            for (int i = 0; i < 600; i++) {
                request.property("k" + i, "v"); // 1,200 elements: keys and values
            }
            Tracker sent = sender.send(request);
            sent.awaitSettlement(WAIT_SECONDS, TimeUnit.SECONDS);
            Rejected rejected = assertInstanceOf(Rejected.class, sent.remoteState(),
                    bodyBytes + " bytes: " + sent.remoteState());
            assertEquals("amqp:decode-error", rejected.getCondition(), rejected.getDescription());
        }

        ObjectName factory = mbeans.queryNames(new ObjectName("io.amqpservlet.jetty:type=amqpconnectionfactory,*"),
                null).iterator().next();
        assertEquals(MAX_DEPTH, mbeans.getAttribute(factory, "maxDecodeDepth"));
        assertEquals(1000, mbeans.getAttribute(factory, "maxDecodeElements"));
    }
}
