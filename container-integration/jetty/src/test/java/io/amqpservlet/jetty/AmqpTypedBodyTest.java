package io.amqpservlet.jetty;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.qpid.protonj2.client.AdvancedMessage;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.DeliveryState;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.Sender;
import org.apache.qpid.protonj2.client.Tracker;
import org.apache.qpid.protonj2.types.Binary;
import org.apache.qpid.protonj2.types.Symbol;
import org.apache.qpid.protonj2.types.UnsignedInteger;
import org.apache.qpid.protonj2.types.UnsignedLong;
import org.apache.qpid.protonj2.types.messaging.AmqpSequence;
import org.apache.qpid.protonj2.types.messaging.AmqpValue;
import org.apache.qpid.protonj2.types.messaging.Data;
import org.apache.qpid.protonj2.types.messaging.Section;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Typed bodies over a real socket, with protonj2-client 1.1.0 as the peer (docs/mapping.md, "Typed bodies"): an
 * {@code amqp-value} map or {@code amqp-sequence} reaches an ordinary servlet as JSON, and its JSON answer goes
 * back as an {@code amqp-value}; a servlet that sets {@link AmqpBody#RESPONSE_VALUE} answers with exact AMQP types
 * (ulong, uint, an array of strings), which the client decodes as such.
 */
@Timeout(60)
class AmqpTypedBodyTest {
    private static final long WAIT_SECONDS = 10;

    private Server server;
    private Client client;
    private Receiver replies;
    private String replyAddress;
    private Sender sender;

    /** Answers {@code application/json} with text that is not JSON. */
    static final class NotJson extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws java.io.IOException {
            request.getInputStream().readAllBytes();
            response.setContentType("application/json");
            response.getOutputStream().write("{not json".getBytes(StandardCharsets.US_ASCII));
        }
    }

    /** Sets a response value the mapping cannot encode. */
    static final class Unencodable extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) {
            request.setAttribute(AmqpBody.RESPONSE_VALUE, Map.of("thread", Thread.currentThread()));
        }
    }

    @BeforeEach
    void start() throws Exception {
        server = new Server();
        ServerConnector connector = new ServerConnector(server, new AmqpConnectionFactory());
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new TestServlets.Echo()), "/echo/*");
        context.addServlet(new ServletHolder(new TestServlets.TypedQueue()), "/typed/*");
        context.addServlet(new ServletHolder(new NotJson()), "/not-json");
        context.addServlet(new ServletHolder(new Unencodable()), "/unencodable");
        server.setHandler(context);
        server.start();
        client = Client.create();
        Connection connection = client.connect("127.0.0.1", connector.getLocalPort(), new ConnectionOptions());
        replies = connection.openDynamicReceiver();
        replyAddress = replies.address();
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

    private Message<Object> call(Message<?> request) throws Exception {
        request.replyTo(replyAddress);
        Tracker tracker = sender.send(request);
        Delivery delivery = replies.receive(WAIT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(delivery, "no response within " + WAIT_SECONDS + " s");
        Message<Object> response = delivery.message();
        delivery.accept();
        tracker.awaitSettlement(WAIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(tracker.remoteState().isAccepted(), "request settled as " + tracker.remoteState());
        return response;
    }

    private static Section<?> onlyBodySection(Message<?> message) throws Exception {
        List<Section<?>> sections = new ArrayList<>();
        message.toAdvancedMessage().forEachBodySection(sections::add);
        assertEquals(1, sections.size(), "body sections: " + sections);
        return sections.get(0);
    }

    @Test
    void amqpValueMapReachesAnOrdinaryServletAsJsonAndItsJsonEchoComesBackAsAMap() throws Exception {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", "orders");
        body.put("durable", true);
        body.put("count", 3);
        body.put("tags", List.of("a", "b"));
        body.put("id", UUID.fromString("6f0c9a43-3c5e-4a5e-9d8e-0b0c2b7f1a11"));
        body.put("at", new Date(1700000000123L));
        body.put("raw", new Binary(new byte[] {1, 2}));
        Message<Object> response = call(Message.create((Object) body).to("/echo").subject("POST").messageId("m-1"));
        assertEquals("200", response.subject());
        assertEquals("m-1", response.correlationId());
        assertInstanceOf(AmqpValue.class, onlyBodySection(response));
        // The amqp-value answer carries no content-type: that field describes data sections (AMQP 1.0 §3.2.4).
        assertNull(response.contentType());
        // Nor the Content-Length of the JSON the servlet wrote: the message does not carry those bytes.
        assertNull(response.property("content-length"));
        @SuppressWarnings("unchecked")
        Map<String, Object> back = assertInstanceOf(Map.class, response.body());
        assertEquals("orders", back.get("name"));
        assertEquals(true, back.get("durable"));
        assertEquals(3L, back.get("count"), "a JSON integer reads back as a long (the plain form's rule)");
        assertEquals(List.of("a", "b"), back.get("tags"));
        assertEquals(UUID.fromString("6f0c9a43-3c5e-4a5e-9d8e-0b0c2b7f1a11"), back.get("id"), "tagged in JSON: kept");
        assertEquals(1700000000123L, back.get("at"), "a timestamp again (protonj2 reads timestamps as Long)");
        assertEquals(new Binary(new byte[] {1, 2}), back.get("raw"));
    }

    @Test
    void aTypedServletAnswersWithExactAmqpTypes() throws Exception {
        Map<String, Object> declare = new LinkedHashMap<>();
        declare.put("durable", true);
        declare.put("arguments", Map.of("x-queue-type", "quorum", "x-max-length", 1000L));
        Message<Object> response = call(Message.create((Object) declare).to("/typed/queue/orders").subject("PUT")
                .messageId(UUID.randomUUID()));
        assertEquals("201", response.subject());
        assertEquals("application/json", response.property("x-request-content-type"));
        assertEquals("java.util.LinkedHashMap", response.property("x-request-value-class"));
        String json = (String) response.property("x-request-json");
        assertTrue(json.startsWith("{\"durable\":true,\"arguments\":{"), json);
        assertInstanceOf(AmqpValue.class, onlyBodySection(response));
        assertNull(response.property("content-length"), "the servlet wrote no bytes, yet the value is not empty");
        @SuppressWarnings("unchecked")
        Map<String, Object> queue = assertInstanceOf(Map.class, response.body());
        assertEquals("orders", queue.get("name"));
        assertEquals(true, queue.get("durable"));
        assertEquals(false, queue.get("auto_delete"));
        assertEquals("quorum", queue.get("type"));
        assertEquals(Map.of("x-queue-type", "quorum", "x-max-length", 1000L), queue.get("arguments"));
        assertEquals(UnsignedLong.valueOf(0), queue.get("message_count"));
        assertEquals(UnsignedInteger.valueOf(3), queue.get("consumer_count"));
        assertEquals("rabbit@localhost", queue.get("leader"));
        assertArrayEquals(new String[] {"rabbit@localhost", "rabbit@other"}, (String[]) queue.get("replicas"),
                "an AMQP array of strings");
    }

    @Test
    void aTypedAnswerToANullBodyAndToADataBody() throws Exception {
        // RabbitMQ's clients send GET and DELETE with an amqp-value null: no body, no request value.
        Message<Object> get = call(Message.create((Object) null).to("/typed/queue/q2").subject("GET"));
        assertEquals("200", get.subject());
        assertEquals("null", get.property("x-request-value-class"));
        assertEquals("", get.property("x-request-json"));
        assertEquals(UnsignedInteger.valueOf(3), assertInstanceOf(Map.class, get.body()).get("consumer_count"));
        Message<Object> data = call(Message.create(new byte[0]).to("/typed/queue/q3").subject("GET"));
        assertInstanceOf(AmqpValue.class, onlyBodySection(data));
    }

    @Test
    void anAmqpSequenceIsOneJsonArrayAndComesBackAsAList() throws Exception {
        AdvancedMessage<Object> request = AdvancedMessage.create();
        request.to("/echo").subject("POST");
        request.addBodySection(new AmqpSequence<>(List.of(1, "two")));
        request.addBodySection(new AmqpSequence<>(List.of(Symbol.valueOf("three"))));
        Message<Object> response = call(request);
        assertEquals("200", response.subject());
        assertEquals(List.of(1L, "two", "three"), response.body(), "one JSON array [1,\"two\",\"three\"], read back");
    }

    @Test
    void jsonAnswersToDataRequestsStayData() throws Exception {
        byte[] json = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
        Message<Object> response = call(Message.create(json).to("/echo").subject("POST")
                .contentType("application/json"));
        Data data = assertInstanceOf(Data.class, onlyBodySection(response));
        assertArrayEquals(json, data.getValue());
        assertEquals("application/json", response.contentType());
        assertEquals(String.valueOf(json.length), response.property("content-length"), "data keeps its length");
    }

    @Test
    void aJsonAnswerThatIsNotJsonGoesBackAsItsBytes() throws Exception {
        Message<Object> response = call(Message.create((Object) Map.of("a", 1)).to("/not-json").subject("POST"));
        assertEquals("200", response.subject());
        Data data = assertInstanceOf(Data.class, onlyBodySection(response));
        assertEquals("{not json", new String(data.getValue(), StandardCharsets.US_ASCII));
    }

    @Test
    void aResponseValueTheMappingCannotEncodeFailsTheRequest() throws Exception {
        Message<Object> request = Message.create((Object) Map.of("a", 1)).to("/unencodable").subject("POST");
        request.replyTo(replyAddress);
        Tracker tracker = sender.send(request);
        tracker.awaitSettlement(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(DeliveryState.Type.MODIFIED, tracker.remoteState().getType(), "delivery-failed, the client may retry");
        assertNull(replies.tryReceive(), "no response");
    }

    @Test
    void aTypedBodyBeyondTheDecoderLimitsIsADecodeError() throws Exception {
        Object nested = List.of();
        for (int i = 0; i < 70; i++) {
            nested = List.of(nested); // 71 lists deep: past the decoder's 64 levels
        }
        Message<Object> request = Message.create(nested).to("/echo").subject("POST");
        request.replyTo(replyAddress);
        Tracker tracker = sender.send(request);
        tracker.awaitSettlement(WAIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(tracker.remoteState().isRejected(), "rejected: " + tracker.remoteState());
    }
}
