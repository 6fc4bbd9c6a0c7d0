package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.EngineConfig;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.OutputStreamOptions;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.StreamSender;
import org.apache.qpid.protonj2.client.StreamSenderMessage;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * A request streamed in several frames (protonj2-client 1.1.0 StreamSender, 4 KiB frames) with a
 * {@code content-length} application-property: the servlet sees it as the request's Content-Length, a body that
 * turns out longer or shorter fails the servlet's read (400), an invalid value is a 400 without the servlet, and a
 * message that arrives whole keeps the length it really has.
 */
@Timeout(60)
class AmqpStreamedContentLengthTest {
    private static final int FRAME = 4096;
    private static final int LENGTH = 100_000;

    private final AtomicInteger served = new AtomicInteger();
    private Server server;
    private ServerConnector connector;
    private Client client;
    private Connection connection;
    private Receiver replies;

    /** Answers with the Content-Length it was given and the bytes it read; a failed read propagates. */
    final class Length extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            served.incrementAndGet();
            long count = 0;
            byte[] buffer = new byte[8192];
            try (InputStream in = request.getInputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    count += n;
                }
            }
            response.setHeader("x-declared", Long.toString(request.getContentLengthLong()));
            response.setHeader("x-count", Long.toString(count));
        }
    }

    @BeforeEach
    void start() throws Exception {
        server = new Server();
        EngineConfig engine = new EngineConfig().anonymousAllowed(true).maxFrameSizeBytes(FRAME);
        AmqpConnectionFactory factory = new AmqpConnectionFactory(new HttpConfiguration(), engine);
        connector = new ServerConnector(server, 1, 1, factory);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new Length()), "/length");
        server.setHandler(context);
        server.start();
        client = Client.create();
        connection = client.connect("127.0.0.1", connector.getLocalPort(), new ConnectionOptions());
        replies = connection.openDynamicReceiver();
    }

    @AfterEach
    void stop() throws Exception {
        try {
            client.close();
        } finally {
            server.stop();
        }
    }

    /** Streams {@code bodyBytes} in one data section (or several) with {@code declared} as content-length. */
    private Message<?> stream(Object declared, int bodyBytes, boolean oneSection) throws Exception {
        StreamSender sender = connection.openStreamSender("/length");
        StreamSenderMessage request = sender.beginMessage();
        request.subject("POST").messageId("streamed").replyTo(replies.address());
        if (declared != null) {
            request.property("content-length", declared);
        }
        OutputStreamOptions options = new OutputStreamOptions();
        if (oneSection) {
            options.bodyLength(bodyBytes);
        }
        byte[] block = new byte[10_000];
        try (OutputStream out = request.body(options)) {
            for (int at = 0; at < bodyBytes; at += block.length) {
                out.write(block, 0, Math.min(block.length, bodyBytes - at));
            }
        }
        Delivery response = replies.receive(20, TimeUnit.SECONDS);
        assertNotNull(response, "no response");
        return response.message();
    }

    @Test
    void declaredLengthIsTheServletsContentLength() throws Exception {
        Message<?> response = stream(Long.toString(LENGTH), LENGTH, true);
        assertEquals("200", response.subject());
        assertEquals(Long.toString(LENGTH), response.property("x-declared"));
        assertEquals(Long.toString(LENGTH), response.property("x-count"));
    }

    @Test
    void anIntegerPropertyOverSeveralDataSectionsIsTakenToo() throws Exception {
        Message<?> response = stream((long) LENGTH, LENGTH, false);
        assertEquals("200", response.subject());
        assertEquals(Long.toString(LENGTH), response.property("x-declared"));
        assertEquals(Long.toString(LENGTH), response.property("x-count"));
    }

    @Test
    void withoutThePropertyTheLengthIsUnknown() throws Exception {
        Message<?> response = stream(null, LENGTH, true);
        assertEquals("200", response.subject());
        assertEquals("-1", response.property("x-declared"));
        assertEquals(Long.toString(LENGTH), response.property("x-count"));
    }

    @Test
    void aBodyLongerThanDeclaredIs400() throws Exception {
        Message<?> response = stream(Long.toString(LENGTH / 2), LENGTH, true);
        assertEquals("400", response.subject());
        assertEquals(1, served.get());
    }

    @Test
    void aBodyShorterThanDeclaredIs400() throws Exception {
        Message<?> response = stream(Long.toString(LENGTH * 2), LENGTH, true);
        assertEquals("400", response.subject());
        assertEquals(1, served.get());
    }

    @Test
    void anInvalidDeclaredLengthIs400WithoutTheServlet() throws Exception {
        for (Object invalid : new Object[] {"12abc", "-5", -5L, "", "1234567890123456789"}) {
            Message<?> response = stream(invalid, LENGTH, true);
            assertEquals("400", response.subject(), "content-length " + invalid);
        }
        assertEquals(0, served.get());
    }

    @Test
    void aWholeMessageKeepsItsRealLength() throws Exception {
        connection.openSender("/length").send(Message.create(new byte[10]).subject("POST").messageId("whole")
                .replyTo(replies.address()).property("content-length", "999"));
        Delivery response = replies.receive(20, TimeUnit.SECONDS);
        assertNotNull(response, "no response");
        assertEquals("200", response.message().subject());
        assertEquals("10", response.message().property("x-declared"));
        assertEquals("10", response.message().property("x-count"));
    }
}
