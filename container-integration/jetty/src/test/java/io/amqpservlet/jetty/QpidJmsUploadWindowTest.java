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
 * Qpid JMS 2.10 (proton-j) streams a request body much larger than the server's session window without stalling:
 * the window the server reopens reaches it in a flow that also names the sending link, which proton-j reacts to
 * at once (a flow for the session alone raises no event in proton-j, and Qpid JMS then sent nothing more until its
 * next heartbeat, about 30 s later).
 */
@Timeout(120)
class QpidJmsUploadWindowTest {
    private static final int WINDOW_FRAMES = Integer.getInteger("uploadWindowFrames", 8);
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
    void aBodyOfManyWindowsStreamsWithoutWaitingForAHeartbeat() throws Exception {
        server = new Server();
        EngineConfig engine = new EngineConfig().anonymousAllowed(true).saslRequired(false)
                .maxMessageSizeBytes(256L * 1024 * 1024).sessionIncomingWindowFrames(WINDOW_FRAMES);
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
            int length = Integer.getInteger("uploadBytes", 100 * 1024 * 1024);
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
            assertTrue(millis < 20_000, "took " + millis + " ms: a stall waiting for a heartbeat");
        } finally {
            jms.close();
            jndi.close();
        }
    }
}
