package io.amqpservlet.jetty;

import org.apache.qpid.protonj2.client.AdvancedMessage;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.Sender;
import org.apache.qpid.protonj2.client.Tracker;
import org.apache.qpid.protonj2.types.UnsignedLong;
import org.apache.qpid.protonj2.types.messaging.Data;
import org.apache.qpid.protonj2.types.messaging.Section;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Apache Qpid protonj2-client 1.1.0, an AMQP 1.0 client from another project, against the connector: a dynamic
 * receiver for replies, an anonymous sender routed by {@code to}, subject as method and status, the request's
 * message-id as the response's correlation-id.
 */
@Timeout(60)
class ProtonJ2ClientInteropTest {
    private static final long WAIT_SECONDS = 10;

    private InteropServer server;
    private Client client;
    private Connection connection;
    private Receiver replies;
    private String replyAddress;
    private Sender sender;

    @BeforeEach
    void connect() throws Exception {
        server = InteropServer.start(100);
        client = Client.create();
        connection = client.connect("127.0.0.1", server.port(), new ConnectionOptions());
        replies = connection.openDynamicReceiver();
        replyAddress = replies.address(); // waits for our attach, which names the generated node
        sender = connection.openAnonymousSender();
        sender.openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    @AfterEach
    void close() throws Exception {
        try {
            if (client != null) {
                client.close();
            }
        } finally {
            server.close();
        }
    }

    private Message<Object> call(Message<?> request) throws Exception {
        request.replyTo(replyAddress);
        Tracker tracker = sender.send(request);
        Delivery delivery = replies.receive(WAIT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(delivery, "no response within " + WAIT_SECONDS + " s");
        Message<Object> response = delivery.message();
        delivery.accept();
        // At-least-once: the request is settled once its response has been sent.
        tracker.awaitSettlement(WAIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(tracker.remoteSettled());
        return response;
    }

    /** All data sections of a message, concatenated (a response has one per flush of the servlet's output). */
    private static byte[] dataBody(Message<?> message) throws Exception {
        AdvancedMessage<?> advanced = message.toAdvancedMessage();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (Section<?> section : advanced.bodySections()) {
            body.writeBytes(assertInstanceOf(Data.class, section).getValue());
        }
        return body.toByteArray();
    }

    @Test
    void dynamicReceiverGetsAGeneratedAddress() {
        assertNotNull(replyAddress);
        assertTrue(!replyAddress.isEmpty());
    }

    @Test
    void requestReplyMapsSubjectToReplyToAndMessageId() throws Exception {
        Message<String> request = Message.create("hello").to("/echo/items").subject("PUT").messageId("req-1")
                .property("x-trace", "t-1");
        Message<Object> response = call(request);
        assertEquals("200", response.subject());
        assertEquals(replyAddress, response.to());
        assertEquals("req-1", response.correlationId());
        assertEquals("PUT", response.property("x-echo-method"));
        assertEquals("/echo/items", response.property("x-echo-path"));
        assertEquals("t-1", response.property("x-trace"));
        assertEquals("1.1", response.property("http:response"));
        assertEquals("hello", new String(dataBody(response), java.nio.charset.StandardCharsets.UTF_8));
        assertTrue(response.contentType().startsWith("text/plain"), response.contentType());
    }

    @Test
    void getAndPostWithHeadersRoundTrip() throws Exception {
        Message<Object> get = call(Message.create().to("/echo").subject("GET").messageId("get-1")
                .property("x-trace", "j2-get").property("x-tenant", "blue"));
        assertEquals("200", get.subject());
        assertEquals("get-1", get.correlationId());
        assertEquals("GET", get.property("x-echo-method"));
        assertEquals("j2-get", get.property("x-trace"));
        assertEquals("blue", get.property("x-tenant"));
        assertEquals(0, dataBody(get).length);

        Message<Object> post = call(Message.create("body").to("/echo").subject("POST").messageId("post-1")
                .property("x-trace", "j2-post"));
        assertEquals("200", post.subject());
        assertEquals("post-1", post.correlationId());
        assertEquals("POST", post.property("x-echo-method"));
        assertEquals("j2-post", post.property("x-trace"));
        assertEquals("body", new String(dataBody(post), java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void correlationIdOfTheRequestWinsAndKeepsItsType() throws Exception {
        Message<byte[]> request = Message.create(new byte[] {1, 2, 3}).to("/echo").subject("POST")
                .messageId(UUID.fromString("6f0c9a43-3c5e-4a5e-9d8e-0b0c2b7f1a11"))
                .correlationId(UnsignedLong.valueOf(42)).contentType("application/octet-stream");
        Message<Object> response = call(request);
        assertEquals("200", response.subject());
        assertEquals(UnsignedLong.valueOf(42), response.correlationId(), "a ulong stays a ulong");
        assertArrayEquals(new byte[] {1, 2, 3}, dataBody(response));
        assertEquals("application/octet-stream", response.contentType());
    }

    @Test
    void uuidMessageIdComesBackAsAUuidCorrelationId() throws Exception {
        UUID id = UUID.fromString("0d4a5a8e-8f5e-4c1b-a7e2-9b1f3f1c2d3e");
        Message<Object> response = call(Message.create("x").to("/echo").subject("POST").messageId(id));
        assertEquals(id, response.correlationId());
    }

    @Test
    void unknownPathIs404AndThrowingServletIs500() throws Exception {
        assertEquals("404", call(Message.create("").to("/missing").subject("GET").messageId("m-404")).subject());
        assertEquals("500", call(Message.create("").to("/boom").subject("GET").messageId("m-500")).subject());
    }

    @Test
    void fiveMebibyteRequestAndResponse() throws Exception {
        byte[] body = new byte[5 * 1024 * 1024];
        new Random(7).nextBytes(body);
        Message<Object> response = call(Message.create(body).to("/echo").subject("POST").messageId("big")
                .contentType("application/octet-stream"));
        assertEquals("200", response.subject());
        assertEquals("big", response.correlationId());
        byte[] echoed = dataBody(response);
        assertEquals(body.length, echoed.length);
        assertArrayEquals(body, echoed);
    }

    @Test
    void demoThrowServletIs500() throws Exception {
        assertEquals("500", call(Message.create().to("/throw").subject("GET").messageId("t-500")).subject());
    }

    @Test
    void fiveMebibyteGeneratedResponseIsOneDataSection() throws Exception {
        int n = 5 * 1024 * 1024;
        Message<Object> response = call(Message.create().to("/bytes/" + n).subject("GET").messageId("bytes"));
        assertEquals("200", response.subject());
        assertEquals(1, response.toAdvancedMessage().bodySections().size(), "one data section for all the flushes");
        assertArrayEquals(InteropServer.patternedBytes(n), dataBody(response));
    }

    @Test
    void hundredRequestsInFlightOnOneConnection() throws Exception {
        Tracker[] trackers = new Tracker[100];
        for (int i = 0; i < 100; i++) {
            trackers[i] = sender.send(Message.create("").to("/barrier").subject("GET").messageId("m-" + i)
                    .replyTo(replyAddress).property("x-request", Integer.toString(i)));
        }
        Set<String> answered = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            Delivery delivery = replies.receive(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(delivery, "response " + i + " missing");
            Message<Object> response = delivery.message();
            delivery.accept();
            assertEquals("200", response.subject(), "the barrier saw fewer than 100 requests at once");
            String request = (String) response.property("x-request");
            assertEquals("m-" + request, response.correlationId());
            assertTrue(answered.add(request), "request " + request + " answered twice");
        }
        assertEquals(100, answered.size());
        for (Tracker tracker : trackers) {
            tracker.awaitSettlement(WAIT_SECONDS, TimeUnit.SECONDS);
            assertTrue(tracker.remoteSettled());
        }
    }

    @Test
    void aRequestThatExpiredBeforeItWasServedIsAnswered504AndTheServletNeverRuns() throws Exception {
        int before = server.echo.calls.get();
        Message<Object> response = call(Message.create().to("/echo").subject("GET").messageId("late-1")
                .absoluteExpiryTime(System.currentTimeMillis() - 1_000));
        assertEquals("504", response.subject());
        assertEquals("late-1", response.correlationId());
        // A one-way request that expired is rejected: a broker would dead-letter it rather than retry it.
        Tracker oneWay = sender.send(Message.create().to("/echo").subject("GET").messageId("late-2")
                .absoluteExpiryTime(System.currentTimeMillis() - 1_000));
        oneWay.awaitSettlement(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(org.apache.qpid.protonj2.client.DeliveryState.Type.REJECTED, oneWay.remoteState().getType());
        // Not expired yet: served as usual.
        assertEquals("200", call(Message.create().to("/echo").subject("GET").messageId("fresh")
                .absoluteExpiryTime(System.currentTimeMillis() + 60_000)).subject());
        assertEquals(before + 1, server.echo.calls.get(), "only the fresh request reached the servlet");
    }
}
