package io.amqpservlet.jetty;

import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.ObjectMessage;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TextMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.naming.Context;
import javax.naming.InitialContext;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Apache Qpid JMS 2.10.0, an AMQP 1.0 client from another project, against the connector: JNDI lookup, temporary
 * queue request/reply, TextMessage and BytesMessage bodies, JMS properties as headers, JMSType as the method and the
 * status, JMSCorrelationID equal to the request's JMSMessageID.
 *
 * <p>Qpid JMS maps JMSType to AMQP {@code properties.subject}, a destination to {@code properties.to} and
 * JMSReplyTo to {@code properties.reply-to}; a TextMessage body is an {@code amqp-value} string and a BytesMessage
 * body one {@code data} section (content type {@code application/octet-stream}).
 */
@Timeout(60)
class QpidJmsInteropTest {
    private static final long RECEIVE_MILLIS = 10_000;

    private InteropServer server;
    private InitialContext jndi;
    private Connection connection;
    private Session session;
    private TemporaryQueue replies;
    private MessageConsumer replyConsumer;

    @BeforeEach
    void connect() throws Exception {
        server = InteropServer.start(100);
        Hashtable<String, String> env = new Hashtable<>();
        env.put(Context.INITIAL_CONTEXT_FACTORY, "org.apache.qpid.jms.jndi.JmsInitialContextFactory");
        // HTTP header names such as x-trace are not Java identifiers, which JMS property names must be by default.
        env.put("connectionfactory.x", "amqp://127.0.0.1:" + server.port() + "?jms.validatePropertyNames=false");
        env.put("queue.echo", "/echo");
        env.put("queue.missing", "/missing");
        env.put("queue.whole", "/whole");
        env.put("queue.boom", "/boom");
        env.put("queue.barrier", "/barrier");
        env.put("queue.bytes5m", "/bytes/" + (5 * 1024 * 1024));
        env.put("queue.throw", "/throw");
        jndi = new InitialContext(env);
        ConnectionFactory factory = (ConnectionFactory) jndi.lookup("x");
        connection = factory.createConnection();
        connection.start();
        session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        replies = session.createTemporaryQueue();
        replyConsumer = session.createConsumer(replies);
    }

    @AfterEach
    void close() throws Exception {
        try {
            if (connection != null) {
                connection.close();
            }
            if (jndi != null) {
                jndi.close();
            }
        } finally {
            server.close();
        }
    }

    private MessageProducer producer(String jndiName) throws Exception {
        return session.createProducer((Queue) jndi.lookup(jndiName));
    }

    private Message call(MessageProducer producer, Message request, String method) throws Exception {
        request.setJMSType(method);
        request.setJMSReplyTo(replies);
        producer.send(request);
        Message response = replyConsumer.receive(RECEIVE_MILLIS);
        assertNotNull(response, "no response within " + RECEIVE_MILLIS + " ms");
        assertEquals(request.getJMSMessageID(), response.getJMSCorrelationID());
        return response;
    }

    @Test
    void jndiNamesTheEchoQueueAndTheTemporaryQueueGetsTheReply() throws Exception {
        Queue echo = (Queue) jndi.lookup("echo");
        assertEquals("/echo", echo.getQueueName());
        assertTrue(replies.getQueueName().length() > 0, "the temporary queue has an address");

        TextMessage response = assertInstanceOf(TextMessage.class,
                call(producer("echo"), session.createTextMessage("ping"), "POST"));
        assertEquals("200", response.getJMSType());
        assertEquals("ping", response.getText());
        assertEquals("/echo", response.getStringProperty("x-echo-path"));
        assertEquals(1, server.echo.calls.get());
    }

    @Test
    void textMessagePostIsUtf8TextAndHeadersRoundTrip() throws Exception {
        TextMessage request = session.createTextMessage("grüße, 世界");
        request.setStringProperty("x-trace", "abc-123");
        request.setStringProperty("x-tenant", "blue");
        TextMessage response = assertInstanceOf(TextMessage.class, call(producer("echo"), request, "POST"));
        assertEquals("200", response.getJMSType());
        assertEquals("grüße, 世界", response.getText());
        assertEquals("POST", response.getStringProperty("x-echo-method"));
        assertEquals("abc-123", response.getStringProperty("x-trace"));
        assertEquals("blue", response.getStringProperty("x-tenant"));
        assertEquals("1.1", response.getStringProperty("http:response"));
    }

    /**
     * A {@code MapMessage} is an amqp-value map: the servlet reads it as JSON, and the JSON echo comes back as an
     * amqp-value map (docs/mapping.md, "Typed bodies"; a JSON integer reads back as a long). Qpid JMS makes a
     * MapMessage only of a message carrying its own message-type annotation, so it reads the answer as an
     * ObjectMessage holding the map.
     */
    @Test
    void mapMessageReachesTheServletAsJsonAndComesBackAsAMap() throws Exception {
        MapMessage request = session.createMapMessage();
        request.setString("name", "orders");
        request.setBoolean("durable", true);
        request.setInt("count", 3);
        ObjectMessage response = assertInstanceOf(ObjectMessage.class, call(producer("echo"), request, "POST"));
        assertEquals("200", response.getJMSType());
        assertEquals(Map.of("name", "orders", "durable", true, "count", 3L), response.getObject());
        assertEquals(1, server.echo.calls.get());
    }

    @Test
    void bytesMessagePostEchoesTheBytes() throws Exception {
        byte[] body = {0, 1, 2, (byte) 0xff, 'a', 'b'};
        BytesMessage request = session.createBytesMessage();
        request.writeBytes(body);
        request.setStringProperty("x-kind", "bytes");
        BytesMessage response = assertInstanceOf(BytesMessage.class, call(producer("echo"), request, "POST"));
        assertEquals("200", response.getJMSType());
        assertEquals("bytes", response.getStringProperty("x-kind"));
        assertEquals(body.length, response.getBodyLength());
        byte[] read = new byte[body.length];
        response.readBytes(read);
        assertArrayEquals(body, read);
    }

    @Test
    void getWithHeadersAndNoBody() throws Exception {
        BytesMessage request = session.createBytesMessage();
        request.setStringProperty("x-trace", "get-1");
        Message response = call(producer("echo"), request, "GET");
        assertEquals("200", response.getJMSType());
        assertEquals("GET", response.getStringProperty("x-echo-method"));
        assertEquals("get-1", response.getStringProperty("x-trace"));
        assertEquals(0, response.getBody(byte[].class) == null ? 0 : response.getBody(byte[].class).length);
    }

    @Test
    void plainMessageWithoutBodyIsAGet() throws Exception {
        Message request = session.createMessage();
        request.setStringProperty("x-trace", "plain");
        Message response = call(producer("echo"), request, "GET");
        assertEquals("200", response.getJMSType());
        assertEquals("GET", response.getStringProperty("x-echo-method"));
        assertEquals("plain", response.getStringProperty("x-trace"));
    }

    @Test
    void applicationCorrelationIdIsEchoedInsteadOfTheMessageId() throws Exception {
        TextMessage request = session.createTextMessage("c");
        request.setJMSCorrelationID("order-77");
        request.setJMSType("POST");
        request.setJMSReplyTo(replies);
        producer("echo").send(request);
        Message response = replyConsumer.receive(RECEIVE_MILLIS);
        assertNotNull(response);
        assertEquals("order-77", response.getJMSCorrelationID());
        assertEquals("200", response.getJMSType());
    }

    @Test
    void unknownQueueIsA404Response() throws Exception {
        Message response = call(producer("missing"), session.createTextMessage(""), "GET");
        assertEquals("404", response.getJMSType());
    }

    @Test
    void throwingServletIsA500Response() throws Exception {
        Message response = call(producer("boom"), session.createTextMessage(""), "POST");
        assertEquals("500", response.getJMSType());
    }

    /**
     * The echo servlet lets Jetty flush the 5 MiB response in 32 KiB pieces; Qpid JMS keeps only the last data
     * section of a message, so this passes only because the connector joins the pieces into one section.
     */
    @Test
    void fiveMebibyteBodyEachWay() throws Exception {
        byte[] body = new byte[5 * 1024 * 1024];
        new Random(42).nextBytes(body);
        BytesMessage request = session.createBytesMessage();
        request.writeBytes(body);
        BytesMessage response = assertInstanceOf(BytesMessage.class, call(producer("echo"), request, "POST"));
        assertEquals("200", response.getJMSType());
        assertEquals(body.length, response.getBodyLength());
        byte[] read = new byte[body.length];
        assertEquals(body.length, response.readBytes(read));
        assertArrayEquals(body, read);
    }

    @Test
    void demoThrowServletIsA500Response() throws Exception {
        Message response = call(producer("throw"), session.createMessage(), "GET");
        assertEquals("500", response.getJMSType());
    }

    /** /bytes/{n} flushes every 64 KiB; Qpid JMS would keep only the last piece were they separate data sections. */
    @Test
    void fiveMebibyteGeneratedResponse() throws Exception {
        BytesMessage response = assertInstanceOf(BytesMessage.class,
                call(producer("bytes5m"), session.createMessage(), "GET"));
        assertEquals("200", response.getJMSType());
        byte[] expected = InteropServer.patternedBytes(5 * 1024 * 1024);
        assertEquals(expected.length, response.getBodyLength());
        byte[] read = new byte[expected.length];
        assertEquals(expected.length, response.readBytes(read));
        assertArrayEquals(expected, read);
    }

    @Test
    void hundredRequestsInFlightOnOneConnection() throws Exception {
        MessageProducer producer = producer("barrier");
        // Non-persistent sends do not wait for the outcome, which the connector gives only with the response.
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        Map<String, String> requestByMessageId = new HashMap<>();
        for (int i = 0; i < 100; i++) {
            TextMessage request = session.createTextMessage("");
            request.setJMSType("GET");
            request.setJMSReplyTo(replies);
            request.setStringProperty("x-request", Integer.toString(i));
            producer.send(request);
            requestByMessageId.put(request.getJMSMessageID(), Integer.toString(i));
        }
        Set<String> answered = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            Message response = replyConsumer.receive(RECEIVE_MILLIS);
            assertNotNull(response, "response " + i + " missing");
            assertEquals("200", response.getJMSType(), "the barrier saw fewer than 100 requests at once");
            String request = requestByMessageId.get(response.getJMSCorrelationID());
            assertEquals(request, response.getStringProperty("x-request"));
            assertTrue(answered.add(request), "request " + request + " answered twice");
        }
        assertEquals(100, answered.size());
    }
}
