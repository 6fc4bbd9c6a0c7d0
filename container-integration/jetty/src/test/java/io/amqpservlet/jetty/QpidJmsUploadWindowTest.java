package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.EngineConfig;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.naming.Context;
import javax.naming.InitialContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Hashtable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Qpid JMS 2.10 (proton-j) uploads through the factory's small default session window
 * ({@link AmqpConnectionFactory#STREAMING_SESSION_WINDOW_FRAMES}).
 *
 * <p>The window is reopened at half used, so a body many times larger than it streams without waiting on it.
 *
 * <p>Qpid JMS can leave the last bytes of a pump unflushed in its socket: its output pump flushes before, not after,
 * the write that crosses its flush threshold (128 KiB). With a small window a burst often ends the message, and the
 * client, with nothing more to write, flushes it only at its heartbeat, so a persistent send waits that long for its
 * settlement: 15 s with the 60 s idle timeout used here (advertised as 30 s); the first upload stalled every time it
 * was run so. The factory therefore announces a 1 s idle-time-out to Qpid JMS clients
 * ({@link AmqpConnectionFactory#setQpidJmsHeartbeatMillis}): the held bytes go out with the next heartbeat, about
 * half a second later. With {@code setQpidJmsHeartbeatMillis(0)} the second test fails at upload 0
 * (docs/jetty.md, "Streaming").
 */
@Timeout(120)
class QpidJmsUploadWindowTest {
    private static final int WINDOW_FRAMES = AmqpConnectionFactory.STREAMING_SESSION_WINDOW_FRAMES;
    private static final int UPLOADS = 24;
    /** Far below the client's heartbeat interval without the Qpid JMS announcement (15 s). */
    private static final long MAX_UPLOAD_MILLIS = 5_000;
    private Server server;
    private InitialContext jndi;
    private jakarta.jms.Connection jms;

    /** Reads the whole body and answers its length. */
    static final class Count extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            long n;
            try (InputStream in = request.getInputStream()) {
                n = in.transferTo(OutputStream.nullOutputStream());
            }
            response.getWriter().print(n);
        }
    }

    @AfterEach
    void stop() throws Exception {
        if (jms != null) {
            jms.close();
        }
        if (jndi != null) {
            jndi.close();
        }
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void aBodyOfManyWindowsStreamsWithoutStalling() throws Exception {
        jakarta.jms.Session session = connect("");
        jakarta.jms.TemporaryQueue replies = session.createTemporaryQueue();
        jakarta.jms.MessageConsumer consumer = session.createConsumer(replies);
        jakarta.jms.MessageProducer producer = session.createProducer(session.createQueue("/count"));
        int length = 16 * 1024 * 1024;
        jakarta.jms.BytesMessage post = session.createBytesMessage();
        post.writeBytes(new byte[length]);
        post.setJMSType("POST");
        post.setJMSReplyTo(replies);
        long began = System.nanoTime();
        producer.send(post);
        jakarta.jms.BytesMessage answer = assertInstanceOf(jakarta.jms.BytesMessage.class, consumer.receive(60_000));
        long millis = (System.nanoTime() - began) / 1_000_000;
        assertEquals(Integer.toString(length), text(answer));
        System.out.println("Qpid JMS: " + length + " bytes through a " + WINDOW_FRAMES + "-frame window in "
                + millis + " ms");
        assertTrue(millis < 15_000, "took " + millis + " ms: a stall waiting for a flow or a heartbeat");
    }

    @Test
    void uploadsThroughASmallWindowNeverWaitForTheClientsHeartbeat() throws Exception {
        jakarta.jms.Session session = connect("&jms.sendTimeout=" + MAX_UPLOAD_MILLIS);
        jakarta.jms.TemporaryQueue replies = session.createTemporaryQueue();
        jakarta.jms.MessageConsumer consumer = session.createConsumer(replies);
        jakarta.jms.MessageProducer producer = session.createProducer(session.createQueue("/count"));
        long slowestMillis = 0;
        for (int i = 0; i < UPLOADS; i++) {
            // Sizes of 1 to 3 MiB in uneven steps, so the client's pumps end on every kind of write.
            int length = 1024 * 1024 + i * 89 * 1024 + i;
            jakarta.jms.BytesMessage post = session.createBytesMessage();
            post.writeBytes(new byte[length]);
            post.setJMSType("POST");
            post.setJMSReplyTo(replies);
            long began = System.nanoTime();
            producer.send(post); // waits for our settlement, so for the message's last bytes
            jakarta.jms.Message answer = consumer.receive(MAX_UPLOAD_MILLIS);
            long millis = (System.nanoTime() - began) / 1_000_000;
            assertNotNull(answer, "upload " + i + " (" + length + " bytes) got no answer within "
                    + MAX_UPLOAD_MILLIS + " ms: the client held back its last bytes");
            assertEquals(Integer.toString(length), text((jakarta.jms.BytesMessage) answer));
            slowestMillis = Math.max(slowestMillis, millis);
        }
        System.out.println("Qpid JMS: " + UPLOADS + " uploads of 1-3 MiB, slowest " + slowestMillis + " ms");
        assertTrue(slowestMillis < MAX_UPLOAD_MILLIS, "slowest upload took " + slowestMillis + " ms");
    }

    /**
     * Starts a server with the factory's streaming window and a 60 s idle timeout serving {@link Count} at
     * {@code /count}, and connects Qpid JMS to it; {@code uriOptions} are appended to its connection URI.
     */
    private jakarta.jms.Session connect(String uriOptions) throws Exception {
        server = new Server();
        EngineConfig engine = new EngineConfig().anonymousAllowed(true).saslRequired(false)
                .idleTimeoutMillis(60_000).maxMessageSizeBytes(64L * 1024 * 1024)
                .sessionIncomingWindowFrames(WINDOW_FRAMES);
        ServerConnector connector = new ServerConnector(server, 1, 1,
                new AmqpConnectionFactory(new HttpConfiguration(), engine));
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new Count()), "/count");
        server.setHandler(context);
        server.start();

        Hashtable<String, String> env = new Hashtable<>();
        env.put(Context.INITIAL_CONTEXT_FACTORY, "org.apache.qpid.jms.jndi.JmsInitialContextFactory");
        env.put("connectionfactory.x", "amqp://127.0.0.1:" + connector.getLocalPort()
                + "?jms.validatePropertyNames=false" + uriOptions);
        jndi = new InitialContext(env);
        jms = ((jakarta.jms.ConnectionFactory) jndi.lookup("x")).createConnection();
        jms.start();
        return jms.createSession(false, jakarta.jms.Session.AUTO_ACKNOWLEDGE);
    }

    private static String text(jakarta.jms.BytesMessage answer) throws jakarta.jms.JMSException {
        byte[] text = new byte[(int) answer.getBodyLength()];
        answer.readBytes(text);
        return new String(text, StandardCharsets.UTF_8);
    }
}
