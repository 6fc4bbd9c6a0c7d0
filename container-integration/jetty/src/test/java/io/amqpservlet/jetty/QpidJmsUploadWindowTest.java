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

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Qpid JMS 2.10 (proton-j) streams a request body many times larger than the factory's default session window
 * ({@link AmqpConnectionFactory#STREAMING_SESSION_WINDOW_FRAMES}) without waiting on it: the window is reopened at
 * half used, so the client never runs dry. (Qpid JMS can still hold back the end of a message
 * until its next heartbeat, whatever the window: its output pump flushes before, not after, a write that crosses
 * its flush threshold; docs/jetty.md, "Streaming".)
 */
@Timeout(120)
class QpidJmsUploadWindowTest {
    private static final int WINDOW_FRAMES = AmqpConnectionFactory.STREAMING_SESSION_WINDOW_FRAMES;
    private Server server;
    private ServerConnector connector;

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
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void aBodyOfManyWindowsStreamsWithoutStalling() throws Exception {
        server = new Server();
        EngineConfig engine = new EngineConfig().anonymousAllowed(true).saslRequired(false)
                .maxMessageSizeBytes(64L * 1024 * 1024).sessionIncomingWindowFrames(WINDOW_FRAMES);
        connector = new ServerConnector(server, 1, 1, new AmqpConnectionFactory(new HttpConfiguration(), engine));
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new Count()), "/count");
        server.setHandler(context);
        server.start();

        java.util.Hashtable<String, String> env = new java.util.Hashtable<>();
        env.put(javax.naming.Context.INITIAL_CONTEXT_FACTORY, "org.apache.qpid.jms.jndi.JmsInitialContextFactory");
        env.put("connectionfactory.x", "amqp://127.0.0.1:" + connector.getLocalPort()
                + "?jms.validatePropertyNames=false");
        javax.naming.InitialContext jndi = new javax.naming.InitialContext(env);
        jakarta.jms.Connection jms = ((jakarta.jms.ConnectionFactory) jndi.lookup("x")).createConnection();
        try {
            jms.start();
            jakarta.jms.Session session = jms.createSession(false, jakarta.jms.Session.AUTO_ACKNOWLEDGE);
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
            jakarta.jms.BytesMessage answer = assertInstanceOf(jakarta.jms.BytesMessage.class,
                    consumer.receive(60_000));
            long millis = (System.nanoTime() - began) / 1_000_000;
            byte[] text = new byte[(int) answer.getBodyLength()];
            answer.readBytes(text);
            assertEquals(Integer.toString(length), new String(text, java.nio.charset.StandardCharsets.UTF_8));
            System.out.println("Qpid JMS: " + length + " bytes through a " + WINDOW_FRAMES + "-frame window in "
                    + millis + " ms");
            assertTrue(millis < 15_000, "took " + millis + " ms: a stall waiting for a flow or a heartbeat");
        } finally {
            jms.close();
            jndi.close();
        }
    }
}
